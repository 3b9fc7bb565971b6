// The public view of a tournament (contract section 15) as GET /public/tournaments/{slug} returns it.
import { z } from "zod";
import { EXAMPLE_IDS } from "./common.ts";
import { Match, MatchExample, Standing } from "./matches.ts";
import { Registration, RegistrationExample } from "./registrations.ts";
import { Stage, StageExample } from "./stages.ts";
import { Tournament, TournamentExample } from "./tournaments.ts";

/** GET /public/tournaments/{slug} (contract section 15): the keyed routes' documents without payment or account data. */
export const PublicView = z.object({
  tournament: Tournament,
  stages: z.array(Stage.extend({
    standings: z.array(Standing).meta({
      description: "The stage's own standings (with `group` where it has groups); empty until it starts.",
    }),
  })).meta({ description: "Every stage in order, each with its own standings." }),
  registrations: z.array(Registration.omit({ payment_status: true }))
    .meta({ description: "Every registration with its team, in registration order; no `payment_status`." }),
  matches: z.array(Match).meta({ description: "Every started stage's matches, by stage, round, then position (as the results)." }),
  standings: z.array(Standing).meta({ description: "The overall standings (as the results)." }),
}).meta({
  example: {
    tournament: { ...TournamentExample, status: "ongoing", visibility: "public" },
    stages: [{
      ...StageExample,
      number: 1,
      name: "Stage 1",
      status: "ongoing",
      team_count: 16,
      started_at: "2027-03-01T17:00:00.000Z",
      standings: [],
    }],
    registrations: [{
      id: EXAMPLE_IDS.registration,
      tournament_id: EXAMPLE_IDS.tournament,
      team_id: EXAMPLE_IDS.team1,
      registered_at: "2026-11-21T10:05:00.000Z",
      seed: 1,
      checked_in_at: null,
      teams: { id: EXAMPLE_IDS.team1, name: "Aurora Gaming", tag: "AUR", logo_url: null },
      lineup: RegistrationExample.lineup,
    }],
    matches: [MatchExample],
    standings: [],
  },
});

// A tournament's registration as the API returns it, with its team and its lineup (response
// model and its example).
import { z } from "zod";
import { EXAMPLE_IDS, instant } from "./common.ts";
import { TeamSummary } from "./teams.ts";
import { ROLES } from "./players.ts";

export const RegistrationExample = {
  id: EXAMPLE_IDS.registration,
  tournament_id: EXAMPLE_IDS.tournament,
  team_id: EXAMPLE_IDS.team1,
  payment_status: "pending",
  registered_at: "2026-11-21T10:05:00.000Z",
  seed: null,
  checked_in_at: null,
  teams: { id: EXAMPLE_IDS.team1, name: "Aurora Gaming", tag: "AUR", logo_url: "https://example.com/aur.png" },
  lineup: [{ player_id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d40", handle: "frost", country: "SE", role: "player", captain: true }],
  state: "accepted",
  disqualified_at: null,
};

/** A registration's states (contract section 17): only `accepted` ones hold a slot and take part at the start. */
export const REGISTRATION_STATES = ["accepted", "pending", "waitlisted", "refused"] as const;

/** One player of a registration's lineup, as the public view shows it too: never the player's name, external_id or game accounts. */
export const LineupEntry = z.object({
  player_id: z.guid(),
  handle: z.string(),
  country: z.string().nullable(),
  role: z.enum(ROLES),
  captain: z.boolean(),
});

export const Registration = z.object({
  id: z.guid(),
  tournament_id: z.guid(),
  team_id: z.guid(),
  payment_status: z.enum(["pending", "complete", "refunded"]).meta({
    description: "`complete` when the entry fee is 0, else `pending`.",
  }),
  registered_at: instant("UTC; after the seeded teams, registration order gives the seeds."),
  seed: z.int().nullable().meta({
    description: "The seed asked for (1–1024), null unless set; seeded teams come first at the start, by seed.",
  }),
  checked_in_at: instant("UTC; null until the team checks in.").nullable(),
  teams: TeamSummary,
  lineup: z.array(LineupEntry).meta({ description: "Who plays for the team in this tournament, in lineup order; `[]` when none." }),
  state: z.enum(REGISTRATION_STATES).meta({
    description:
      "`accepted` (holds a slot; takes part at the start), `pending` (a sign-up awaiting the organiser's approval), `waitlisted` (takes the next slot that frees, oldest first) or `refused`.",
  }),
  disqualified_at: instant("UTC; set when the organiser disqualified the team (it forfeits its matches from then on).").nullable(),
}).meta({ example: RegistrationExample });

import { z } from "zod";
import type { Route } from "../route.ts";
import { dateTime } from "../validation.ts";
import { Match, Results } from "./models.ts";

const score = z.int().min(0).max(1_000_000);

export const ReportMatch = z.strictObject({
  team1_score: score.optional(),
  team2_score: score.optional(),
  forfeit: z.enum(["team1", "team2"]).optional()
    .meta({ description: "The team that forfeits: the match completes with the other team winning and no scores. Not with scores." }),
  scheduled_at: dateTime().nullable().optional()
    .meta({ description: "When the match is planned (with an offset), or null; on any match of an ongoing tournament." }),
}).superRefine((b, ctx) => {
  const scores = (b.team1_score !== undefined) || (b.team2_score !== undefined);
  if (b.forfeit !== undefined && scores) {
    ctx.addIssue({ code: "custom", path: ["forfeit"], message: "a forfeit has no scores: send either both scores or forfeit" });
  } else if (scores && (b.team1_score === undefined || b.team2_score === undefined)) {
    ctx.addIssue({ code: "custom", path: [b.team1_score === undefined ? "team1_score" : "team2_score"],
      message: "both scores are needed" });
  } else if (scores && b.team1_score === b.team2_score) {
    ctx.addIssue({ code: "custom", path: ["team2_score"], message: "scores cannot be equal: a match needs a winner" });
  } else if (!scores && b.forfeit === undefined && b.scheduled_at === undefined) {
    ctx.addIssue({ code: "custom", path: [], message: "send a result (both scores, or forfeit) and/or scheduled_at" });
  }
});

export const resultRoutes: Route[] = [
  { method: "GET", path: "/tournaments/{tournament_id}/results", scope: "read:results", op: "results.get",
    response: Results, summary: "Get a tournament's matches and standings",
    description: "The bracket is made when the tournament goes to `ongoing`: seeds from the registrations (seeded teams first by seed, then registration order; with check-in, only checked-in teams), size the next power of two, standard seeding (1 v P, 2 v P−1, …), byes to the top seeds, all P−1 matches at once. Swiss: only the current round's matches exist (round 1 seed i v i + N/2, N odd: the lowest seed has a bye); the next round is drawn when the last result of a round comes in (same win count, highest seed first, no rematch where one can be avoided; a bye, status `bye`, to the lowest-placed team without one)." },
  { method: "PATCH", path: "/tournaments/{tournament_id}/matches/{match_id}", scope: "write:results",
    op: "matches.report", body: ReportMatch, response: Match, conflicts: ["match_not_ready", "match_locked"],
    summary: "Report, correct or forfeit a match, or schedule it",
    description: "A result is both scores (no draws) or a `forfeit` naming the team that forfeits (no scores; the other team wins); on a `ready` or `completed` match of an `ongoing` tournament. The winner advances. A completed match (score or forfeit) may be corrected while the match it feeds is not completed. A match waiting for a team, or a bye, is 409 `match_not_ready`; a match whose next match is completed, a swiss match once a later round has a result, or a match of a tournament that is not ongoing, is 409 `match_locked`. A swiss correction that changes the next round's draw (drawn, no result yet) redraws it. `scheduled_at` (alone or with a result) may be set on any match while the tournament is ongoing.",
    bodyExample: { team1_score: 2, team2_score: 1 } },
];

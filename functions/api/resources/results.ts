import { z } from "zod";
import type { Route } from "../route.ts";
import { Match, Results } from "./models.ts";

const score = z.int().min(0).max(1_000_000);

export const ReportMatch = z.strictObject({ team1_score: score, team2_score: score })
  .refine((s) => s.team1_score !== s.team2_score, {
    path: ["team2_score"],
    message: "scores cannot be equal: a match needs a winner",
  });

export const resultRoutes: Route[] = [
  { method: "GET", path: "/tournaments/{tournament_id}/results", scope: "read:results", op: "results.get",
    response: Results, summary: "Get a tournament's matches and standings",
    description: "The bracket is made when the tournament goes to `ongoing`: seeds in registration order, size the next power of two, standard seeding (1 v P, 2 v P−1, …), byes to the top seeds, all P−1 matches at once." },
  { method: "PATCH", path: "/tournaments/{tournament_id}/matches/{match_id}", scope: "write:results",
    op: "matches.report", body: ReportMatch, response: Match, conflicts: ["match_not_ready", "match_locked"],
    summary: "Report or correct a match result",
    description: "On a `ready` or `completed` match of an `ongoing` tournament; no draws. The winner advances. A completed match may be corrected while the match it feeds is not completed. A match waiting for a team, or a bye, is 409 `match_not_ready`; a match whose next match is completed, or of a tournament that is not ongoing, is 409 `match_locked`.",
    bodyExample: { team1_score: 2, team2_score: 1 } },
];

import { z } from "zod";
import type { Route } from "../route.ts";

const score = z.int().min(0).max(1_000_000);

export const ReportMatch = z.strictObject({ team1_score: score, team2_score: score })
  .refine((s) => s.team1_score !== s.team2_score, {
    path: ["team2_score"],
    message: "scores cannot be equal: a match needs a winner",
  });

export const resultRoutes: Route[] = [
  { method: "GET", path: "/tournaments/{tournament_id}/results", scope: "read:results", op: "results.get",
    summary: "Get a tournament's matches and standings" },
  { method: "PATCH", path: "/tournaments/{tournament_id}/matches/{match_id}", scope: "write:results",
    op: "matches.report", body: ReportMatch, summary: "Report or correct a match result" },
];

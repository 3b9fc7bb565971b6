import { z } from "zod";
import type { Route, RouteCall } from "../route.ts";
import { FFA_LIMITS, MAX_STAGES } from "../contract.ts";
import { dateTime, queryInt, queryVersion, seriesLength, text, uuid } from "../validation.ts";
import { Match, Results } from "./models/matches.ts";
import { Stage, StageDetail } from "./models/stages.ts";
import { BracketQuery, pictureKey, pictureResponse } from "../pictures.ts";
import { keptText } from "../kept.ts";

const score = z.int().min(0).max(1_000_000);

export const ReportMatch = z.strictObject({
  team1_score: score.optional()
    .meta({
      description:
        "With team2_score, the result; on a best-of-n match (n > 1), the series score: the winner has exactly n / 2 + 1 (ceil(n / 2) when odd), the loser at most the rest. Equal scores are a draw where the stage allows draws (a series: n / 2 each, n even), else 400. Replaces the games reported.",
    }),
  team2_score: score.optional(),
  forfeit: z.enum(["team1", "team2"]).optional()
    .meta({ description: "The team that forfeits: the match completes with the other team winning and no scores. Not with scores." }),
  scheduled_at: dateTime().nullable().optional()
    .meta({ description: "When the match is planned (with an offset), or null; on any match of an ongoing tournament." }),
  best_of: seriesLength().optional()
    .meta({
      description:
        "The match's series length (1–9; odd, or even in a stage with draws), until it has a game or a result (409 `match_locked` after). With a result in the same body, the result is checked against it.",
    }),
}).superRefine((b, ctx) => {
  // The body's shape is checked here only: SQL does not repeat it (table constraints keep direct SQL callers to it).
  const scores = (b.team1_score !== undefined) || (b.team2_score !== undefined);
  if (b.forfeit !== undefined && scores) {
    ctx.addIssue({ code: "custom", path: ["forfeit"], message: "a forfeit has no scores: send either both scores or forfeit" });
  } else if (scores && (b.team1_score === undefined || b.team2_score === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [b.team1_score === undefined ? "team1_score" : "team2_score"],
      message: "both scores are needed",
    });
  } else if (!scores && b.forfeit === undefined && b.scheduled_at === undefined && b.best_of === undefined) {
    ctx.addIssue({ code: "custom", path: [], message: "send a result (both scores, or forfeit), best_of and/or scheduled_at" });
  }
});

/** One side of a game's lineups: player ids, each once. */
const gameSide = z.array(uuid()).max(100).refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, {
  message: "must name each player once",
});

/** One team's result in a free-for-all lobby's game (contract section 20). */
const LobbyResult = z.strictObject({
  team_id: uuid(),
  placement: z.int().min(1).max(FFA_LIMITS.lobbySize.max).meta({ description: "1..n (the lobby's teams), each once." }),
  kills: z.int().min(0).max(FFA_LIMITS.kills.max).optional().meta({ description: "0–1,000. Default 0." }),
});

/** PUT a game of a match's series, or of a free-for-all lobby. */
export const PutGame = z.strictObject({
  team1_score: score.optional().meta({ description: "team1's score in this game (rounds, points, kills: the game's own)." }),
  team2_score: score.optional().meta({ description: "Not equal to team1_score: a game has a winner." }),
  results: z.array(LobbyResult).min(1).max(FFA_LIMITS.lobbySize.max).optional().meta({
    description:
      "A free-for-all lobby's game instead of scores: every team of the lobby once, placements 1..n each once, kills 0–1,000 (default 0). Each scores its placement's points plus `kill_points` per kill.",
  }),
  map: text(100).nullable().optional().meta({ description: "The map (or mode) played; at most 100 characters." }),
  lineups: z.strictObject({ team1: gameSide, team2: gameSide }).nullable().optional().meta({
    description:
      "Who played this game: on each side exactly `team_size` player ids from that side's lineup (players or substitutes). Omitted or null: not recorded.",
  }),
}).superRefine((b, ctx) => {
  if (b.results !== undefined) {
    // A lobby's game: its entries' teams and placements are checked against the lobby in SQL.
    for (const field of ["team1_score", "team2_score", "map", "lineups"] as const) {
      if (b[field] !== undefined) {
        ctx.addIssue({ code: "custom", path: [field], message: "not with results: a lobby's game is its placements and kills" });
      }
    }
    const seen = new Set<string>();
    b.results.forEach((r, i) => {
      if (seen.has(r.team_id.toLowerCase())) ctx.addIssue({ code: "custom", path: ["results", i, "team_id"], message: "is listed twice" });
      seen.add(r.team_id.toLowerCase());
    });
  } else if (b.team1_score === undefined || b.team2_score === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [b.team1_score === undefined ? "team1_score" : "team2_score"],
      message: "is required (or results, for a free-for-all lobby)",
    });
  } else if (b.team1_score === b.team2_score) {
    ctx.addIssue({ code: "custom", path: ["team2_score"], message: "scores cannot be equal: a game needs a winner" });
  }
});

export const ResultsQuery = z.object({
  stage: queryInt(1, MAX_STAGES).optional()
    .meta({ description: "Only this stage's matches, with its own standings." }),
  since: queryVersion().optional()
    .meta({
      description:
        "A version (`tournament.version` of an earlier read): only the matches changed after it, and `removed_matches`; the standings stay whole.",
    }),
  report_state: z.enum(["awaiting_confirmation", "disputed"]).optional()
    .meta({ description: "Only the matches whose participants' report is in this state: the organiser's queue." }),
});

/** PATCH a stage: start it. */
export const UpdateStage = z.strictObject({
  status: z.enum(["pending", "ongoing", "completed"])
    .meta({ description: "`ongoing` starts the stage; the stage's current status again is a no-op." }),
  advancing: z.array(uuid()).min(1).max(1024).optional()
    .meta({
      description:
        "The K teams that go on, in seed order, chosen by hand: any K distinct teams of the stage before. Resolves a `stage_tie`.",
    }),
}).superRefine((b, ctx) => {
  if (b.advancing !== undefined && b.status !== "ongoing") {
    ctx.addIssue({ code: "custom", path: ["advancing"], message: 'goes only with status "ongoing"' });
  } else if (b.advancing !== undefined && new Set(b.advancing.map((id) => id.toLowerCase())).size !== b.advancing.length) {
    ctx.addIssue({ code: "custom", path: ["advancing"], message: "must not list a team twice" });
  }
});

const stagePath = "/tournaments/{tournament_id}/stages";

export const stageRoutes: Route[] = [
  {
    method: "GET",
    path: stagePath,
    scope: "read:results",
    op: "stages.list",
    response: z.array(Stage),
    summary: "List a tournament's stages",
    description:
      "Every stage in order, with its status, team count (null until it starts) and times. A tournament created without `stages` has one.",
  },
  {
    method: "GET",
    path: `${stagePath}/{number}`,
    scope: "read:results",
    op: "stages.get",
    response: StageDetail,
    summary: "Get a stage, its standings and its qualifiers",
    description:
      "The stage, its own standings and, while it is pending and the stage before it has started, `qualifiers`: the teams that would go on now, in seed order (by tier: every group's 1st, then every group's 2nd, …, then the best next-placed; within a tier by the stage's standings, then group; in an elimination stage after groups, teams of one group kept apart).",
  },
  {
    method: "PATCH",
    path: `${stagePath}/{number}`,
    scope: "write:tournaments",
    op: "stages.update",
    body: UpdateStage,
    response: StageDetail,
    conflicts: ["invalid_status_transition", "stage_tie"],
    summary: "Start the next stage",
    description: [
      '`{"status": "ongoing"}` starts the stage after a `completed` one: its qualifiers (or `advancing`, by hand) and its matches, in one transaction. The stage\'s current status again is a no-op.',
      "- Stage 1 starts with the tournament; a stage completes by itself; anything else is 409 `invalid_status_transition`.",
      "- A tie at the last qualifying place that the criteria cannot break is 409 `stage_tie`, its `details` listing the tied teams; send `advancing` to decide.",
      "- Once a stage has started, the matches of the stage before are 409 `match_locked`.",
    ].join("\n"),
    bodyExample: { status: "ongoing" },
  },
];

const pictureDescription = (kind: string) =>
  [
    `The stage drawn on the server as ${kind} (contract section 15): elimination stages as trees (winners and losers brackets, grand final and reset, third-place match), round robin as a table per group (standings and the cross-table of results), swiss as its rounds of pairings and the standings. Each match shows both teams (tag, name, seed), scores (series scores with their games), the winner marked, \`BYE\` / \`TBD\`, and its scheduled time when set. Before the stage starts: its teams.`,
    kind === "PNG"
      ? "- At most 4,096 pixels on a side (small pictures at 2×): a bracket too large to be legible there shows its last rounds (round robin: its first groups) and says so in the picture and in `X-Bracket-Clipped`; `round` and `group` pick the other parts."
      : "- One self-contained SVG: text as text, no scripts, external fonts or images.",
    "- The same picture as the public route draws for a public tournament; this one answers for any of the account's tournaments, public or not.",
  ].join("\n");

/** The whole results (no `?since=`), per `?stage=` and `?report_state=`, are kept by version (kept.ts). */
function keptResults(args: Record<string, unknown>): string | null {
  const query = (args.query ?? {}) as { since?: number; stage?: number; report_state?: string };
  return query.since === undefined ? `keyed:${String(args.tournament_id)}|results|${query.stage ?? ""}|${query.report_state ?? ""}` : null;
}

/** The results' JSON: the kept one when the database answered from the version alone, else the one it built, kept. */
async function resultsData(result: string, c: RouteCall): Promise<string> {
  if (!c.kept || c.outcome.version === null) return result;
  return await keptText(c.kept, c.outcome.version, c.outcome.notModified ? null : result);
}

/** A bracket picture's route: kept by its query, drawn from the public view the operation read. */
function picture(kind: "svg" | "png"): Pick<Route, "picture" | "kept" | "answer"> {
  const query = (args: Record<string, unknown>) => (args.query ?? {}) as BracketQuery;
  return {
    picture: kind,
    kept: (args) => pictureKey(`keyed:${String(args.tournament_id)}`, kind, query(args)),
    answer: (c) =>
      pictureResponse(
        kind,
        c.kept!,
        c.outcome.version!,
        c.outcome.notModified ? null : c.outcome.result ?? "null",
        query(c.args),
        c.req,
        c.headers,
        c.env.readFile,
      ),
  };
}

export const resultRoutes: Route[] = [
  {
    method: "GET",
    path: "/tournaments/{tournament_id}/stream",
    scope: "read:results",
    op: "stream.open",
    stream: true,
    answer: (c) => c.env.hub.response(c.req.method, c.outcome.result ?? "null", c.headers),
    response: Results,
    summary: "Watch a tournament live (Server-Sent Events)",
    description: [
      "A `text/event-stream` of the tournament's results (contract section 14); a browser's `EventSource` reads it as it is.",
      "- First `event: results` with the whole results (as `GET .../results`), `id:` the tournament's version; with `Last-Event-ID` (a version: what `EventSource` sends when it reconnects), the delta since it instead.",
      "- Then one `event: results` per new version, within a second of its commit: `data` is the delta (as `?since=`: the matches changed, `removed_matches`, the whole standings), `id:` the version. Commits closer together than the poll (250 ms) arrive as one event, with the last one's version.",
      '- `event: deleted` (`data: {"id": …}`) when the tournament is deleted, and the end.',
      "- A comment line (`: keep-alive`) at least every 15 seconds. The server ends the stream after at most 120 seconds with `retry: 1000`: `EventSource` reconnects with `Last-Event-ID` and misses nothing.",
      "- Opening it counts as one request; at most 10 open streams per key (429 `rate_limited` beyond, with `Retry-After`).",
    ].join("\n"),
  },
  {
    method: "GET",
    path: "/tournaments/{tournament_id}/results",
    scope: "read:results",
    op: "results.get",
    query: ResultsQuery,
    kept: keptResults,
    data: resultsData,
    response: Results,
    summary: "Get a tournament's matches and standings",
    description:
      "The bracket is made when the tournament goes to `ongoing`: seeds from the registrations (seeded teams first by seed, then registration order; with check-in, only checked-in teams), size the next power of two, standard seeding (1 v P, 2 v P−1, …), byes to the top seeds, all P−1 matches at once. Swiss: only the current round's matches exist (round 1 seed i v i + N/2, N odd: the lowest seed has a bye); the next round is drawn when the last result of a round comes in (same win count, highest seed first, no rematch where one can be avoided; a bye, status `bye`, to the lowest-placed team without one).",
  },
  {
    method: "PATCH",
    path: "/tournaments/{tournament_id}/matches/{match_id}",
    scope: "write:results",
    op: "matches.report",
    body: ReportMatch,
    response: Match,
    conflicts: ["match_not_ready", "match_locked"],
    summary: "Report, correct or forfeit a match, or schedule it",
    description:
      "A result is both scores (no draws) or a `forfeit` naming the team that forfeits (no scores; the other team wins); on a `ready` or `completed` match of an `ongoing` tournament. The winner advances. A completed match (score or forfeit) may be corrected while the match it feeds is not completed. A match waiting for a team, or a bye, is 409 `match_not_ready`; a match whose next match is completed, a swiss match once a later round has a result, or a match of a tournament that is not ongoing, is 409 `match_locked`. A swiss correction that changes the next round's draw (drawn, no result yet) redraws it. `scheduled_at` (alone or with a result) may be set on any match while the tournament is ongoing.",
    bodyExample: { team1_score: 2, team2_score: 1 },
  },
  {
    method: "PUT",
    path: "/tournaments/{tournament_id}/matches/{match_id}/games/{number}",
    scope: "write:results",
    op: "games.put",
    body: PutGame,
    response: Match,
    conflicts: ["match_not_ready", "match_locked", "series_decided"],
    summary: "Report or correct a game of a series or a free-for-all lobby",
    description: [
      "Reports game `number` of a best-of match (the next one, `1..best_of`, no gaps: 400 otherwise), or corrects a game already reported. The match's `team1_score`/`team2_score` become the games each side has won.",
      "- A free-for-all lobby's game is `{results: [{team_id, placement, kills?}]}` instead (contract section 20): every team of the lobby once, placements 1..n each once, kills 0–1,000 (400 naming `results[i].<field>`), `number` 1..the stage's `games`; each result scores its placement's points plus `kill_points` per kill, the lobby's `opponents` are ranked again, and it completes when its games are all in (won by the team it places first). With `draw: \"standings\"` a round's games are 409 `match_locked` once the next round has a game.",
      "- When a side reaches ceil(best_of / 2) wins, the match completes and its winner advances, as a result sent directly would; a game past a decided series is 409 `series_decided`.",
      "- A correction that changes or undoes the decision follows the correction rules (409 `match_locked` when a match it feeds has a result or games; an undone decision takes the winner back out of the next match).",
      "- On a `ready` or `completed` match of the stage being played (409 `match_not_ready` / `match_locked` as for a result); a match decided by forfeit keeps its games as they are (409 `series_decided`).",
      "Answers the match with its `games`. Webhook `match.game_reported`, then `match.completed` when the game decides the match.",
    ].join("\n"),
    bodyExample: { team1_score: 13, team2_score: 9, map: "Mirage" },
  },
  {
    method: "DELETE",
    path: "/tournaments/{tournament_id}/matches/{match_id}/games/{number}",
    scope: "write:results",
    op: "games.delete",
    response: Match,
    conflicts: ["match_not_ready", "match_locked", "series_decided"],
    summary: "Delete the last game of a series",
    description:
      "Removes the last game reported (an earlier one is 409 `match_locked`: delete the games after it first; a game not reported is 404), under the same rules as a correction: a decision it undoes takes the winner back out of the next match. Answers the match.",
  },
  {
    method: "GET",
    path: "/tournaments/{tournament_id}/bracket.svg",
    scope: "read:results",
    op: "bracket.get",
    ...picture("svg"),
    query: BracketQuery,
    response: Results,
    summary: "Draw a stage's bracket (SVG)",
    description: pictureDescription("SVG"),
  },
  {
    method: "GET",
    path: "/tournaments/{tournament_id}/bracket.png",
    scope: "read:results",
    op: "bracket.get",
    ...picture("png"),
    query: BracketQuery,
    response: Results,
    summary: "Draw a stage's bracket (PNG)",
    description: pictureDescription("PNG"),
  },
];

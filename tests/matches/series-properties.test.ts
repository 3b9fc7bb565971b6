// Series (contract section 13, with sections 5, 9, 10 and 12 where they meet it), properties
// with fast-check over HTTP, written from the contract alone:
// 1. one match of best_of 1/3/5/7/9 under random sequences of game reports, corrections and
//    deletions, kept against a model of its games: status, series score, winner and `games`
//    after every step; the requests the contract refuses are refused with its status/code and
//    change nothing; a forfeit keeps the games, a direct series score replaces them;
// 2. advancement equivalence: one event played twice, game by game (with detours: wrong games
//    corrected, extra games deleted, earlier games flipped) and by series scores sent directly,
//    ends with the same bracket and the same standings, for single and double elimination,
//    swiss and round robin;
// 3. undo symmetry: deciding a match by its last game, then deleting that game, gives back the
//    bracket (every match, the standings) exactly as it was before the game, in single and double
//    elimination, swiss and round robin; on the way, a game in what the decision fed locks it
//    (409 match_locked) except for a correction that keeps the winner.
//
// Each run starts its own tournaments (one account each) through the API; the registrations go
// in by SQL as in tests/matches/series.test.ts. Shrinking is off (endOnFailure): every step is HTTP, and
// the failure message carries the steps that led to it.
//
// Runs are seeded (SERIES_PROPS_SEED, printed below) so a failure replays.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiResponse,
  type Call,
  createTeams,
  expectError,
  expectStatus,
  type Match,
  mulberry32,
  runSeed,
  startedTournament,
} from "../support/helpers.ts";

const SEED = runSeed("SERIES_PROPS_SEED");
/** Scales every numRuns below (SERIES_PROPS_RUNS=4 for a longer hunt). */
const RUNS = Number(process.env.SERIES_PROPS_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * RUNS));
console.log(`series-properties: fast-check seed ${SEED} (SERIES_PROPS_SEED=<n> replays another), runs x${RUNS}`);

/** What the runs met: "<what> -> <status> <code>" counted, printed at the end and checked for coverage. */
const seen = new Map<string, number>();
const note = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
/** The tests that ran to their end (the coverage check looks only at groups that ran whole). */
const ran = new Set<string>();
afterAll(() => {
  console.log("series-properties coverage:\n" + [...seen].sort().map(([k, v]) => `  ${String(v).padStart(5)}  ${k}`).join("\n"));
});

/** Platform teams shared by the tests here: pool[s - 1] is seed s of every tournament. */
let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(8, `SerProp${Date.now().toString(36)}`);
});

interface Results {
  tournament: { id: string; format: string; status: string; version?: number };
  matches: Match[];
  standings: Record<string, unknown>[];
}

/** A tournament of `n` teams (seed i + 1 = pool[i]) with these fields, started. */
async function started(fields: Record<string, unknown>, n: number) {
  const { call, id } = await startedTournament(fields, pool.slice(0, n));
  return { call, id };
}
type Event = Awaited<ReturnType<typeof started>>;

async function results(call: Call, id: string): Promise<Results> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  return res.body.data;
}

const gamePath = (ev: Event, matchId: string, n: number) => `/tournaments/${ev.id}/matches/${matchId}/games/${n}`;
const matchPath = (ev: Event, matchId: string) => `/tournaments/${ev.id}/matches/${matchId}`;

// ============================================================================
// the model of a series
// ============================================================================
/** A game as the model keeps it. */
interface G {
  t1: number;
  t2: number;
  map: string | null;
}
const sideOf = (g: G): 1 | 2 => (g.t1 > g.t2 ? 1 : 2);
const need = (bestOf: number) => Math.ceil(bestOf / 2);
function wins(games: G[]): [number, number] {
  let w1 = 0;
  let w2 = 0;
  for (const g of games) {
    if (sideOf(g) === 1) w1++;
    else w2++;
  }
  return [w1, w2];
}
/** The index of the game at which one side reached ceil(best_of / 2), or -1. */
function decidedAt(games: G[], bestOf: number): number {
  let w1 = 0;
  let w2 = 0;
  for (let i = 0; i < games.length; i++) {
    if (sideOf(games[i]) === 1) w1++;
    else w2++;
    if (w1 === need(bestOf) || w2 === need(bestOf)) return i;
  }
  return -1;
}
/** A series the contract allows to stand: at most best_of games, none after the deciding one. */
const allowed = (games: G[], bestOf: number) => {
  const d = decidedAt(games, bestOf);
  return games.length <= bestOf && (d === -1 || d === games.length - 1);
};
const gameBody = (
  g: G,
) => (g.map === null ? { team1_score: g.t1, team2_score: g.t2 } : { team1_score: g.t1, team2_score: g.t2, map: g.map });

/** The match as section 13 says it must read with these games (no forfeit, no direct result). */
function expectSeries(m: Match, games: G[], bestOf: number, teams: [string, string], ctx: string): void {
  const [w1, w2] = wins(games);
  const decided = Math.max(w1, w2) === need(bestOf);
  expect({
    status: m.status,
    team1_score: m.team1_score,
    team2_score: m.team2_score,
    winner_id: m.winner_id,
    forfeit: m.forfeit,
    best_of: m.best_of,
    completed_at_set: m.completed_at !== null,
  }, ctx).toEqual({
    status: decided ? "completed" : "ready",
    team1_score: games.length ? w1 : null,
    team2_score: games.length ? w2 : null,
    winner_id: decided ? teams[w1 > w2 ? 0 : 1] : null,
    forfeit: null,
    best_of: bestOf,
    completed_at_set: decided,
  });
  expect(m.games, ctx).toEqual(games.map((g, i) => ({
    number: i + 1,
    team1_score: g.t1,
    team2_score: g.t2,
    winner_id: teams[sideOf(g) - 1],
    map: g.map,
    reported_at: expect.any(String),
    lineups: null,
  })));
}

const MAPS = ["Mirage", "Nuke", "Inferno", "Ancient", "Anubis", "Dust II", "Vertigo"];
const mapArb = fc.option(fc.oneof(fc.constantFrom(...MAPS), fc.string({ minLength: 1, maxLength: 100 })), { nil: null });
const gameArb: fc.Arbitrary<G> = fc.record({
  t1: fc.integer({ min: 0, max: 1_000_000 }),
  t2: fc.integer({ min: 0, max: 1_000_000 }),
  map: mapArb,
}).map((g) => (g.t1 !== g.t2 ? g : { ...g, t2: g.t1 === 0 ? 1 : g.t1 - 1 }));

/** A random game won by `side` (scores 0..1,000,000, a map or none) from a seeded generator. */
function randomGame(rng: () => number, side: 1 | 2): G {
  const hi = 1 + Math.floor(rng() * 1_000_000);
  const lo = Math.floor(rng() * hi);
  const map = rng() < 0.3 ? null : MAPS[Math.floor(rng() * MAPS.length)];
  return side === 1 ? { t1: hi, t2: lo, map } : { t1: lo, t2: hi, map };
}

// 409 codes of sections 2, 9, 12 and 13: a refused DELETE of a game that is not the last is a
// 409 whose code section 13 does not name.
const CONFLICT_CODES = ["invalid_status_transition", "tournament_locked", "match_not_ready", "match_locked", "series_decided"];

// ============================================================================
// 1. one series, step by step
// ============================================================================
type Kind =
  | "next"
  | "correct"
  | "deleteLast"
  | "gap"
  | "pastBestOf"
  | "deleteNotLast"
  | "deleteMissing"
  | "equal"
  | "zero"
  | "longMap"
  | "badBody"
  | "bestOf";
function kindOf(k: number): Kind {
  if (k < 40) return "next";
  if (k < 54) return "correct";
  if (k < 66) return "deleteLast";
  if (k < 70) return "gap";
  if (k < 73) return "pastBestOf";
  if (k < 78) return "deleteNotLast";
  if (k < 81) return "deleteMissing";
  if (k < 84) return "equal";
  if (k < 86) return "zero";
  if (k < 88) return "longMap";
  if (k < 94) return "badBody";
  return "bestOf";
}
/** Game bodies section 13 refuses (400 naming the field): scores out of 0..1,000,000, not integers, missing, or a field it does not take. */
const BAD_BODIES: [Record<string, unknown>, string][] = [
  [{ team1_score: -1, team2_score: 3 }, "team1_score"],
  [{ team1_score: 3, team2_score: 1_000_001 }, "team2_score"],
  [{ team1_score: 2.5, team2_score: 1 }, "team1_score"],
  [{ team1_score: "13", team2_score: 1 }, "team1_score"],
  [{ team1_score: 13 }, "team2_score"],
  [{ team1_score: 13, team2_score: 7, map: 5 }, "map"],
  [{ team1_score: 13, team2_score: 7, winner_id: null }, "winner_id"],
];
const opArb = fc.record({ kind: fc.integer({ min: 0, max: 99 }), k: fc.nat({ max: 1000 }), game: gameArb });
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;
const endArb = fc.record({
  kind: fc.constantFrom("none", "forfeit", "direct"),
  side: fc.constantFrom(1 as const, 2 as const),
  loser: fc.nat({ max: 8 }),
  bad: fc.nat({ max: 1000 }),
  game: gameArb,
});

/** What a step should do: succeed leaving these games, or be refused so. */
type Expect = { ok: true; games: G[] } | { ok: false; status: number; code: string | string[]; fields?: string[] };

async function runSeries(bestOf: number, ops: Op[], end: typeof endArb extends fc.Arbitrary<infer T> ? T : never) {
  const ev = await started({ format_options: { best_of: bestOf } }, 2);
  const { call } = ev;
  let state = await results(call, ev.id);
  expect(state.matches).toHaveLength(1);
  const matchId = state.matches[0].id;
  const teams: [string, string] = [state.matches[0].team1_id!, state.matches[0].team2_id!];
  expect(state.matches[0].best_of).toBe(bestOf);
  let model: G[] = [];
  const log: string[] = [];
  const ctx = () => `best_of ${bestOf}, steps so far:\n${log.slice(-12).join("\n")}`;

  /** Standings of the 2-team bracket: both places once the final is decided, else none. */
  const expectStandings = (r: Results, winner: string | null) => {
    const places = r.standings.map((s) => [s.position, s.team_id]);
    expect(places, ctx()).toEqual(winner === null ? [] : [[1, winner], [2, teams[winner === teams[0] ? 1 : 0]]]);
  };

  /** Sends one request; checks the response against `want`, then the stored state after it. */
  let tag = "";
  const step = async (label: string, send: () => Promise<ApiResponse>, want: Expect, isPut: boolean) => {
    const res = await send();
    log.push(`${label} -> ${res.status} ${res.body?.error?.code ?? ""}`);
    note(`series ${tag} -> ${res.status} ${res.body?.error?.code ?? ""}`);
    const after = await results(call, ev.id);
    if (want.ok) {
      expectStatus(res, 200);
      model = want.games;
      const m = after.matches[0];
      expectSeries(m, model, bestOf, teams, ctx());
      // PUT "answers 200 with the match as results show it".
      if (isPut) expect(res.body.data, ctx()).toEqual(m);
      const [w1, w2] = wins(model);
      expectStandings(after, Math.max(w1, w2) === need(bestOf) ? teams[w1 > w2 ? 0 : 1] : null);
    } else {
      expect(res.status, `${ctx()}\n${res.text}`).toBe(want.status);
      expect(res.body?.success, res.text).toBe(false);
      const codes = Array.isArray(want.code) ? want.code : [want.code];
      expect(codes, `${ctx()}\n${res.text}`).toContain(res.body?.error?.code);
      if (want.fields) expectError(res, want.status, res.body.error.code, want.fields);
      // Refused: nothing changed (the match, its games, the standings, the version).
      expect(after, `${ctx()}\nrefused request changed the results`).toEqual(state);
    }
    state = after;
  };

  const put = (n: number, body: Record<string, unknown>) => () => call("PUT", gamePath(ev, matchId, n), { body });
  const del = (n: number) => () => call("DELETE", gamePath(ev, matchId, n));

  for (const op of ops) {
    const len = model.length;
    const decided = decidedAt(model, bestOf) !== -1;
    let kind = kindOf(op.kind);
    if (kind === "correct" && len === 0) kind = "next";
    if (kind === "deleteLast" && len === 0) kind = "deleteMissing";
    if (kind === "deleteNotLast" && len < 2) kind = len === 0 ? "deleteMissing" : "deleteLast";
    if (kind === "deleteMissing" && len === bestOf) kind = "deleteLast";
    if (kind === "gap" && len + 2 > bestOf) kind = "pastBestOf";
    tag = `${kind}${decided ? " (decided series)" : ""}`;
    const g = op.game;
    switch (kind) {
      case "next": {
        const n = len + 1;
        const want: Expect = n > bestOf
          ? { ok: false, status: 400, code: "validation_error", fields: ["number"] }
          : decided
          ? { ok: false, status: 409, code: "series_decided" }
          : { ok: true, games: [...model, g] };
        await step(`PUT games/${n} ${JSON.stringify(gameBody(g))}`, put(n, gameBody(g)), want, true);
        break;
      }
      case "correct": {
        const n = 1 + (op.k % len);
        const games = model.map((x, i) => (i === n - 1 ? g : x));
        const want: Expect = allowed(games, bestOf) ? { ok: true, games } : { ok: false, status: 409, code: "series_decided" };
        const before = decidedAt(model, bestOf) !== -1;
        const afterDecided = decidedAt(games, bestOf) !== -1;
        tag += !want.ok
          ? " leaving a game after the decision"
          : before && !afterDecided
          ? " undoing the decision"
          : !before && afterDecided
          ? " deciding"
          : before && sideOf(g) !== sideOf(model[n - 1])
          ? " flipping the winner"
          : "";
        await step(`PUT games/${n} (correction) ${JSON.stringify(gameBody(g))}`, put(n, gameBody(g)), want, true);
        break;
      }
      case "deleteLast":
        await step(`DELETE games/${len}`, del(len), { ok: true, games: model.slice(0, -1) }, false);
        break;
      case "gap": {
        const n = len + 2 + (op.k % (bestOf - len - 1));
        await step(
          `PUT games/${n} (gap)`,
          put(n, gameBody(g)),
          { ok: false, status: 400, code: "validation_error", fields: ["number"] },
          true,
        );
        break;
      }
      case "pastBestOf": {
        const n = bestOf + 1 + (op.k % 3);
        await step(`PUT games/${n} (past best_of)`, put(n, gameBody(g)), {
          ok: false,
          status: 400,
          code: "validation_error",
          fields: ["number"],
        }, true);
        break;
      }
      case "deleteNotLast": {
        const n = 1 + (op.k % (len - 1));
        await step(`DELETE games/${n} (not the last of ${len})`, del(n), { ok: false, status: 409, code: CONFLICT_CODES }, false);
        break;
      }
      case "deleteMissing": {
        // A game that does not exist (within 1..best_of): refused. Section 13 says "only the
        // last: 409 otherwise"; an unknown game reads as 404 not_found as well (section 2).
        const n = len + 1 + (op.k % (bestOf - len));
        const res = await del(n)();
        log.push(`DELETE games/${n} (missing) -> ${res.status} ${res.body?.error?.code ?? ""}`);
        note(`series ${tag} -> ${res.status} ${res.body?.error?.code ?? ""}`);
        expect([404, 409], `${ctx()}\n${res.text}`).toContain(res.status);
        expect(res.body?.success, res.text).toBe(false);
        expect(["not_found", ...CONFLICT_CODES], res.text).toContain(res.body?.error?.code);
        const after = await results(call, ev.id);
        expect(after, `${ctx()}\nrefused request changed the results`).toEqual(state);
        break;
      }
      case "equal": {
        const n = 1 + (op.k % Math.min(len + 1, bestOf));
        const s = g.t1;
        await step(`PUT games/${n} equal ${s}-${s}`, put(n, { team1_score: s, team2_score: s }), {
          ok: false,
          status: 400,
          code: "validation_error",
        }, true);
        break;
      }
      case "zero":
        await step("PUT games/0", put(0, gameBody(g)), { ok: false, status: 400, code: "validation_error", fields: ["number"] }, true);
        break;
      case "longMap": {
        const n = 1 + (op.k % Math.min(len + 1, bestOf));
        await step(`PUT games/${n} map of 101 chars`, put(n, { team1_score: g.t1, team2_score: g.t2, map: "m".repeat(101) }), {
          ok: false,
          status: 400,
          code: "validation_error",
          fields: ["map"],
        }, true);
        break;
      }
      case "badBody": {
        const n = 1 + (op.k % Math.min(len + 1, bestOf));
        const [bad, field] = BAD_BODIES[op.k % BAD_BODIES.length];
        tag += ` ${field}`;
        await step(`PUT games/${n} ${JSON.stringify(bad)}`, put(n, bad), {
          ok: false,
          status: 400,
          code: "validation_error",
          fields: [field],
        }, true);
        break;
      }
      case "bestOf": {
        // A match's best_of may change until it has a game or a result (409 match_locked after).
        const other = [1, 3, 5, 7, 9].filter((b) => b !== bestOf)[op.k % 4];
        const patch = (b: number) => () => call("PATCH", matchPath(ev, matchId), { body: { best_of: b } });
        if (len === 0) {
          const res = await patch(other)();
          log.push(`PATCH best_of ${other} -> ${res.status} ${res.body?.error?.code ?? ""}`);
          note(`series ${tag} -> ${res.status} ${res.body?.error?.code ?? ""}`);
          expectStatus(res, 200);
          const changed = await results(call, ev.id);
          expect(changed.matches[0], ctx()).toEqual({ ...state.matches[0], best_of: other });
          expectStatus(await patch(bestOf)(), 200);
          const back = await results(call, ev.id);
          expect(back.matches[0], ctx()).toEqual(state.matches[0]);
          state = back;
        } else {
          await step(`PATCH best_of ${other} with ${len} games`, patch(other), { ok: false, status: 409, code: "match_locked" }, false);
        }
        break;
      }
    }
  }

  // A gap on a series decided early (e.g. 3-0 in a best of 5): the number rule is an input
  // check (400), and section 2 puts input (400) before state (409 series_decided).
  if (decidedAt(model, bestOf) !== -1 && model.length + 2 <= bestOf) {
    const n = model.length + 2;
    tag = "gap (decided series, probe)";
    await step(`PUT games/${n} (gap on a decided series)`, put(n, gameBody(end.game)), {
      ok: false,
      status: 400,
      code: "validation_error",
      fields: ["number"],
    }, true);
  }

  // Probes on a decided series, whatever the random steps left: the deciding game flipped
  // (the decision undone, or moved to the other side), then flipped back (decided again); and an
  // earlier game of the loser's turned into the winner's, which would decide the series before
  // its last game (409 series_decided).
  const d = decidedAt(model, bestOf);
  if (d !== -1) {
    const last = model[d];
    const flipped: G = { t1: last.t2, t2: last.t1, map: last.map };
    tag = "correct (decided series, probe) the deciding game flipped";
    await step(`PUT games/${d + 1} flipped`, put(d + 1, gameBody(flipped)), { ok: true, games: [...model.slice(0, d), flipped] }, true);
    tag = "correct (probe) the deciding game flipped back";
    await step(`PUT games/${d + 1} flipped back`, put(d + 1, gameBody(last)), { ok: true, games: [...model.slice(0, d), last] }, true);
    const winner = sideOf(last);
    const j = model.findIndex((x, i) => i < d && sideOf(x) !== winner);
    if (j !== -1) {
      const turned: G = { t1: model[j].t2, t2: model[j].t1, map: model[j].map };
      tag = "correct (decided series, probe) leaving a game after the decision";
      await step(`PUT games/${j + 1} turned to the winner`, put(j + 1, gameBody(turned)), {
        ok: false,
        status: 409,
        code: "series_decided",
      }, true);
    }
  }

  // The end: a forfeit (keeps the games) or a series score sent directly (replaces them).
  const sideKey = end.side === 1 ? "team1" : "team2";
  if (end.kind === "forfeit") {
    const res = await call("PATCH", matchPath(ev, matchId), { body: { forfeit: sideKey } });
    log.push(`PATCH forfeit ${sideKey} -> ${res.status} ${res.body?.error?.code ?? ""}`);
    note(`series forfeit${decidedAt(model, bestOf) !== -1 ? " (decided series)" : ""} -> ${res.status}`);
    expectStatus(res, 200);
    const after = await results(call, ev.id);
    const m = after.matches[0];
    const winner = teams[end.side === 1 ? 1 : 0];
    expect({ status: m.status, forfeit: m.forfeit, team1_score: m.team1_score, team2_score: m.team2_score, winner_id: m.winner_id }, ctx())
      .toEqual({ status: "completed", forfeit: sideKey, team1_score: null, team2_score: null, winner_id: winner });
    expect(m.games.map((x) => [x.number, x.team1_score, x.team2_score, x.map]), ctx())
      .toEqual(model.map((x, i) => [i + 1, x.t1, x.t2, x.map]));
    expectStandings(after, winner);
    state = after;
    if (model.length < bestOf) {
      tag = "next game after a forfeit";
      await step(`PUT games/${model.length + 1} after a forfeit`, put(model.length + 1, gameBody(end.game)), {
        ok: false,
        status: 409,
        code: "series_decided",
      }, true);
    }
  } else if (end.kind === "direct") {
    const nd = need(bestOf);
    let score: [number, number];
    if (bestOf === 1) {
      score = [end.game.t1, end.game.t2];
    } else {
      const loser = end.loser % nd;
      score = end.side === 1 ? [nd, loser] : [loser, nd];
      // Not a series score of this best_of: the winner short of or past ceil(best_of / 2), or the loser at it.
      const bad: [number, number][] = [[nd + 1, 0], [nd - 1, 0], [nd, nd], [nd + 1, nd]];
      const [b1, b2] = bad[end.bad % bad.length];
      tag = "direct result that is not a series score";
      const badScore = end.side === 1 ? { team1_score: b1, team2_score: b2 } : { team1_score: b2, team2_score: b1 };
      await step(
        `PATCH ${JSON.stringify(badScore)} (not a series score)`,
        () => call("PATCH", matchPath(ev, matchId), { body: badScore }),
        { ok: false, status: 400, code: "validation_error" },
        false,
      );
    }
    const res = await call("PATCH", matchPath(ev, matchId), { body: { team1_score: score[0], team2_score: score[1] } });
    log.push(`PATCH ${score[0]}-${score[1]} -> ${res.status} ${res.body?.error?.code ?? ""}`);
    note(`series direct result${model.length ? " replacing games" : ""} -> ${res.status}`);
    expectStatus(res, 200);
    const after = await results(call, ev.id);
    const m = after.matches[0];
    const winner = teams[score[0] > score[1] ? 0 : 1];
    expect({
      status: m.status,
      forfeit: m.forfeit,
      team1_score: m.team1_score,
      team2_score: m.team2_score,
      winner_id: m.winner_id,
      games: m.games,
    }, ctx()).toEqual({ status: "completed", forfeit: null, team1_score: score[0], team2_score: score[1], winner_id: winner, games: [] });
    expectStandings(after, winner);
    state = after;
    tag = "game 1 after a direct result";
    await step("PUT games/1 after a direct result", put(1, gameBody(end.game)), { ok: false, status: 409, code: "series_decided" }, true);
  }
}

describe.concurrent("one series under random reports, corrections and deletions (sections 5, 9, 13)", () => {
  for (const bestOf of [1, 3, 5, 7, 9]) {
    it(`best_of ${bestOf}: the match follows the model of its games; refused requests change nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 6 + 3 * bestOf }), endArb, (ops, end) => runSeries(bestOf, ops, end)),
        { numRuns: runs(15), seed: SEED + bestOf, endOnFailure: true },
      );
      ran.add(`series ${bestOf}`);
    }, 120_000);
  }
});

// ============================================================================
// 2. advancement equivalence: game by game against the series score sent directly
// ============================================================================
/** A match's place in its tournament: ids differ between the two tournaments, places do not. */
const placeOf = (m: Match) => `stage ${m.stage} ${m.bracket ?? "-"} group ${m.group ?? "-"} r${m.round} p${m.position}`;

function shuffle<T>(xs: T[], rng: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Reports match `m` game by game until `w` has won it with `l` games for the other side, with
 * detours the contract allows (a wrong game corrected, an extra game deleted, a game deleted and
 * put again, an earlier game flipped and flipped back), each checked against the model.
 */
async function playByGames(ev: Event, m: Match, w: 1 | 2, l: number, rng: () => number, ctx: string): Promise<void> {
  const bo = m.best_of;
  const teams: [string, string] = [m.team1_id!, m.team2_id!];
  const order: (1 | 2)[] = [...shuffle([...Array(need(bo) - 1).fill(w), ...Array(l).fill(3 - w)], rng), w];
  let model: G[] = [];
  const where = () => `${ctx}, ${placeOf(m)} (best_of ${bo}) games ${JSON.stringify(model)}`;
  const put = async (n: number, g: G, what: string) => {
    const games = [...model];
    games[n - 1] = g;
    const res = await ev.call("PUT", gamePath(ev, m.id, n), { body: gameBody(g) });
    note(`games ${what} -> ${res.status} ${res.body?.error?.code ?? ""}`);
    if (allowed(games, bo)) {
      expect(res.status, `${where()}: PUT games/${n} ${JSON.stringify(gameBody(g))}\n${res.text}`).toBe(200);
      model = games;
      expectSeries(res.body.data, model, bo, teams, where());
      return true;
    }
    expect([res.status, res.body?.error?.code], `${where()}: PUT games/${n}\n${res.text}`).toEqual([409, "series_decided"]);
    return false;
  };
  const delLast = async (what: string) => {
    const res = await ev.call("DELETE", gamePath(ev, m.id, model.length));
    note(`games ${what} -> ${res.status} ${res.body?.error?.code ?? ""}`);
    expect(res.status, `${where()}: DELETE games/${model.length}\n${res.text}`).toBe(200);
    model = model.slice(0, -1);
  };
  for (let i = 0; i < order.length; i++) {
    const side = order[i];
    const last = i === order.length - 1;
    const r = rng();
    if (r < 0.15) {
      await put(i + 1, randomGame(rng, side === 1 ? 2 : 1), "detour: the wrong winner, corrected after");
    } else if (r < 0.25 && !last && i + 2 <= bo) {
      await put(i + 1, randomGame(rng, side), "detour: a game");
      await put(i + 2, randomGame(rng, rng() < 0.5 ? 1 : 2), "detour: an extra game, deleted after");
      await delLast("detour: the extra game deleted");
    } else if (r < 0.33) {
      await put(i + 1, randomGame(rng, side), "detour: a game, deleted after");
      await delLast("detour: the game deleted");
    } else if (r < 0.45 && i > 0) {
      const j = Math.floor(rng() * i);
      const orig = model[j];
      const ok = await put(j + 1, randomGame(rng, sideOf(orig) === 1 ? 2 : 1), "detour: an earlier game flipped");
      if (ok) await put(j + 1, orig, "detour: the earlier game flipped back");
    }
    await put(i + 1, randomGame(rng, side), last ? "the deciding game" : "a game");
  }
  // Decided: a correction that keeps every game's winner still goes in; nothing goes past it.
  if (rng() < 0.3) {
    const j = Math.floor(rng() * model.length);
    await put(j + 1, randomGame(rng, sideOf(model[j])), "after the decision: a game corrected, same winner");
  }
  if (model.length < bo && rng() < 0.3) {
    await put(model.length + 1, randomGame(rng, rng() < 0.5 ? 1 : 2), "after the decision: one more game");
  }
}

/** Reports match `m` as the series score directly, sometimes after a game (replaced) or a wrong score (corrected). */
async function playDirect(ev: Event, m: Match, w: 1 | 2, l: number, rng: () => number, ctx: string): Promise<void> {
  const nd = need(m.best_of);
  const patch = async (s: [number, number], what: string) => {
    const res = await ev.call("PATCH", matchPath(ev, m.id), { body: { team1_score: s[0], team2_score: s[1] } });
    note(`direct ${what} -> ${res.status} ${res.body?.error?.code ?? ""}`);
    expect(res.status, `${ctx}, ${placeOf(m)}: PATCH ${s[0]}-${s[1]}\n${res.text}`).toBe(200);
  };
  const r = rng();
  if (r < 0.2) {
    const res = await ev.call("PUT", gamePath(ev, m.id, 1), { body: gameBody(randomGame(rng, rng() < 0.5 ? 1 : 2)) });
    note(`direct: a game first, replaced after -> ${res.status}`);
    expect(res.status, `${ctx}, ${placeOf(m)}: PUT games/1\n${res.text}`).toBe(200);
  } else if (r < 0.35) {
    const wl = Math.floor(rng() * nd);
    await patch(w === 1 ? [wl, nd] : [nd, wl], "the wrong winner first, corrected after");
  }
  await patch(w === 1 ? [nd, l] : [l, nd], "the series score");
}

interface Plan {
  format: string;
  n: number;
  options: Record<string, unknown>;
}
const plans: Record<string, fc.Arbitrary<Plan>> = {
  "single elimination, 3-8 teams, best_of 3, final_best_of 5": fc.record({ n: fc.integer({ min: 3, max: 8 }), third: fc.boolean() })
    .map(({ n, third }) => ({ format: "single_elimination", n, options: { best_of: 3, final_best_of: 5, third_place_match: third } })),
  "double elimination, 4-8 teams, best_of 3": fc.record({
    n: fc.integer({ min: 4, max: 8 }),
    reset: fc.boolean(),
    fbo: fc.constantFrom(3, 5),
  })
    .map(({ n, reset, fbo }) => ({
      format: "double_elimination",
      n,
      options: { best_of: 3, final_best_of: fbo, grand_final: reset ? "reset" : "single" },
    })),
  "swiss, 3-6 teams, best_of 1/3/5": fc.record({
    n: fc.integer({ min: 3, max: 6 }),
    rounds: fc.integer({ min: 1, max: 3 }),
    bo: fc.constantFrom(1, 3, 5),
  })
    .map(({ n, rounds, bo }) => ({ format: "swiss", n, options: { best_of: bo, rounds: Math.min(rounds, n - 1) } })),
  "round robin, 3-6 teams in 1-2 groups, best_of 1/3/5": fc.record({
    n: fc.integer({ min: 3, max: 6 }),
    groups: fc.integer({ min: 1, max: 2 }),
    bo: fc.constantFrom(1, 3, 5),
  })
    .map(({ n, groups, bo }) => ({
      format: "round_robin",
      n,
      options: { best_of: bo, groups: Math.min(groups, Math.floor(n / 2)), points: { win: 3, loss: 0 } },
    })),
};

/** The double elimination runs are the longest (up to 15 matches twice). */
const planRuns: Record<string, number> = { "double elimination, 4-8 teams, best_of 3": 10 };

/** What must agree between the two tournaments, match by match (by place). */
function bracketOf(r: Results) {
  const placeById = new Map(r.matches.map((m) => [m.id, placeOf(m)]));
  const follow = (id: string | null) => (id === null ? null : placeById.get(id) ?? `unknown match ${id}`);
  return Object.fromEntries(r.matches.map((m) => [placeOf(m), {
    stage: m.stage,
    bracket: m.bracket,
    group: m.group,
    round: m.round,
    position: m.position,
    team1_id: m.team1_id,
    team2_id: m.team2_id,
    team1_seed: m.team1_seed,
    team2_seed: m.team2_seed,
    team1_score: m.team1_score,
    team2_score: m.team2_score,
    winner_id: m.winner_id,
    status: m.status,
    forfeit: m.forfeit,
    best_of: m.best_of,
    next: follow(m.next_match_id),
    loser_next: follow(m.loser_next_match_id ?? null),
  }]));
}

describe.concurrent("advancement equivalence: game by game = the series score sent directly (sections 5, 10, 13)", () => {
  let k = 0;
  for (const [name, planArb] of Object.entries(plans)) {
    const salt = ++k;
    it(`${name}: both tournaments end with the same matches and standings`, async () => {
      await fc.assert(
        fc.asyncProperty(planArb, fc.integer(), async (plan, seed) => {
          const rng = mulberry32(seed);
          const ctx = `${plan.format} ${plan.n} teams ${JSON.stringify(plan.options)} rng seed ${seed}`;
          const fields = { format: plan.format, format_options: plan.options };
          const byGames = await started(fields, plan.n);
          const direct = await started(fields, plan.n);
          let rounds = 0;
          for (;;) {
            expect(++rounds, `${ctx}: the event never ends`).toBeLessThan(60);
            const [a, b] = [await results(byGames.call, byGames.id), await results(direct.call, direct.id)];
            // The same matches are playable in both, with the same teams.
            const readyA = a.matches.filter((m) => m.status === "ready");
            const readyB = b.matches.filter((m) => m.status === "ready");
            expect(readyA.map((m) => [placeOf(m), m.team1_id, m.team2_id, m.best_of]).sort(), ctx)
              .toEqual(readyB.map((m) => [placeOf(m), m.team1_id, m.team2_id, m.best_of]).sort());
            if (readyA.length === 0) break;
            for (const mA of readyA) {
              const mB = readyB.find((m) => placeOf(m) === placeOf(mA))!;
              const w: 1 | 2 = rng() < 0.5 ? 1 : 2;
              const l = Math.floor(rng() * need(mA.best_of));
              await playByGames(byGames, mA, w, l, rng, ctx);
              await playDirect(direct, mB, w, l, rng, ctx);
            }
          }
          let [a, b] = [await results(byGames.call, byGames.id), await results(direct.call, direct.id)];
          expect(bracketOf(a), ctx).toEqual(bracketOf(b));
          expect(a.standings, ctx).toEqual(b.standings);
          // Every match decided (or a bye); the games tournament's series scores are its games won,
          // the direct one's games were all replaced.
          for (const m of a.matches) {
            expect(["completed", "bye"], `${ctx}: ${placeOf(m)}`).toContain(m.status);
            if (m.status === "completed") {
              expect(wins(m.games.map((g) => ({ t1: g.team1_score, t2: g.team2_score, map: g.map }))), `${ctx}: ${placeOf(m)}`).toEqual([
                m.team1_score,
                m.team2_score,
              ]);
            }
          }
          for (const m of b.matches) expect(m.games, `${ctx}: ${placeOf(m)}`).toEqual([]);
          // Both complete, and still agree.
          for (const ev of [byGames, direct]) {
            const res = await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } });
            expect(res.status, `${ctx}: completing\n${res.text}`).toBe(200);
          }
          [a, b] = [await results(byGames.call, byGames.id), await results(direct.call, direct.id)];
          expect(a.standings, ctx).toEqual(b.standings);
          note(`equivalence ${plan.format}: ${a.matches.length} matches`);
        }),
        { numRuns: runs(planRuns[name] ?? 12), seed: SEED * 7 + salt, endOnFailure: true },
      );
      ran.add(`equivalence ${name}`);
    }, 240_000);
  }
});

// ============================================================================
// 3. undo symmetry
// ============================================================================
describe.concurrent("undo symmetry: DELETE of the deciding game gives back the bracket as it was (sections 10, 13)", () => {
  const undoArb = fc.record({
    n: fc.integer({ min: 2, max: 8 }),
    third: fc.boolean(),
    fbo: fc.constantFrom(3, 5),
    played: fc.nat({ max: 7 }),
    lock: fc.boolean(),
    seed: fc.integer(),
  });
  const optionsOf: Record<string, (p: { n: number; third: boolean; fbo: number; played: number }) => Record<string, unknown>> = {
    single_elimination: (p) => ({ best_of: 3, final_best_of: p.fbo, third_place_match: p.third }),
    double_elimination: (p) => ({ best_of: 3, final_best_of: p.fbo, grand_final: p.third ? "reset" : "single" }),
    // Swiss: the undone decision is most often a round's last, which had drawn the next round.
    swiss: (p) => ({ best_of: 3, rounds: Math.max(1, Math.min(p.n - 1, 1 + (p.played % 3))) }),
    round_robin: (p) => ({ best_of: 3, groups: p.n >= 4 && p.third ? 2 : 1 }),
  };
  for (const format of Object.keys(optionsOf)) {
    it(`${format} best_of 3: decide a match by a game, delete that game: every match and the standings as before`, async () => {
      await fc.assert(
        fc.asyncProperty(undoArb, async (p) => {
          const rng = mulberry32(p.seed);
          const options = optionsOf[format](p);
          const ctx = `${format} ${p.n} teams ${JSON.stringify(options)} rng seed ${p.seed}`;
          const ev = await started({ format, format_options: options }, p.n);
          // Some matches decided first (games or a direct score), leaving at least one to play.
          for (let k = 0; k < p.played; k++) {
            const r = await results(ev.call, ev.id);
            const ready = r.matches.filter((m) => m.status === "ready");
            // Stop while a decision is still to be made (a grand final may end the event, its reset a bye).
            if (r.matches.filter((m) => m.status === "ready" || m.status === "pending").length <= 1) break;
            if (ready.length === 1 && ready[0].bracket === "grand_final") break;
            const m = ready[Math.floor(rng() * ready.length)];
            const w: 1 | 2 = rng() < 0.5 ? 1 : 2;
            if (rng() < 0.5) await playByGames(ev, m, w, Math.floor(rng() * need(m.best_of)), rng, ctx);
            else await playDirect(ev, m, w, Math.floor(rng() * need(m.best_of)), rng, ctx);
          }
          let before = await results(ev.call, ev.id);
          const ready = before.matches.filter((m) => m.status === "ready");
          expect(ready.length, `${ctx}: a match left to play`).toBeGreaterThan(0);
          // With `lock`, rather a match whose next match already holds its other team (so that
          // the decision makes that match ready and a game can go in it).
          const half = ready.filter((x) => before.matches.some((y) => y.id === x.next_match_id && (y.team1_id ?? y.team2_id)));
          const pickFrom = p.lock && half.length > 0 ? half : ready;
          const m = pickFrom[Math.floor(rng() * pickFrom.length)];
          const teams: [string, string] = [m.team1_id!, m.team2_id!];
          // The series to the brink: one game short of the decision.
          const w: 1 | 2 = rng() < 0.5 ? 1 : 2;
          const l = Math.floor(rng() * need(m.best_of));
          const games: G[] = shuffle([...Array(need(m.best_of) - 1).fill(w), ...Array(l).fill(3 - w)], rng)
            .map((s) => randomGame(rng, s));
          for (let i = 0; i < games.length; i++) {
            expectStatus(await ev.call("PUT", gamePath(ev, m.id, i + 1), { body: gameBody(games[i]) }), 200);
          }
          before = await results(ev.call, ev.id);
          expectSeries(before.matches.find((x) => x.id === m.id)!, games, m.best_of, teams, ctx);
          const deciding = randomGame(rng, w);
          const res = await ev.call("PUT", gamePath(ev, m.id, games.length + 1), { body: gameBody(deciding) });
          expectStatus(res, 200);
          expectSeries(res.body.data, [...games, deciding], m.best_of, teams, ctx);
          const decided = await results(ev.call, ev.id);
          // The decision did something beyond the match itself: a team moved on, or places were decided.
          const others = (r: Results) => ({ matches: r.matches.filter((x) => x.id !== m.id), standings: r.standings });
          expect(others(decided), `${ctx}: ${placeOf(m)} decided changed nothing else`).not.toEqual(others(before));
          note(
            `undo ${format}: ${
              format === "swiss" || format === "round_robin" ? "a match" : m.next_match_id === null ? "a last match" : m.bracket
            }`,
          );

          // What the decision fed, once it has a game, locks the decision (409 match_locked, nothing
          // changed) but not a correction that keeps the winner; its game deleted, the lock goes.
          const fed = decided.matches.filter((x) =>
            x.id !== m.id && x.status === "ready" &&
            before.matches.find((y) => y.id === x.id)?.status !== "ready"
          );
          if (p.lock && fed.length > 0) {
            const f = fed[Math.floor(rng() * fed.length)];
            expectStatus(await ev.call("PUT", gamePath(ev, f.id, 1), { body: gameBody(randomGame(rng, 1)) }), 200);
            const locked = await results(ev.call, ev.id);
            for (
              const [what, send] of [
                ["DELETE of the deciding game", () => ev.call("DELETE", gamePath(ev, m.id, games.length + 1))],
                [
                  "the deciding game corrected to the other side",
                  () => ev.call("PUT", gamePath(ev, m.id, games.length + 1), { body: gameBody(randomGame(rng, w === 1 ? 2 : 1)) }),
                ],
              ] as const
            ) {
              const r = await send();
              note(`undo ${format}: locked, ${what} -> ${r.status} ${r.body?.error?.code ?? ""}`);
              expect([r.status, r.body?.error?.code], `${ctx}: ${what} once ${placeOf(f)} has a game\n${r.text}`)
                .toEqual([409, "match_locked"]);
              expect(await results(ev.call, ev.id), `${ctx}: ${what} refused, yet something changed`).toEqual(locked);
            }
            const same = randomGame(rng, w);
            const r = await ev.call("PUT", gamePath(ev, m.id, games.length + 1), { body: gameBody(same) });
            note(`undo ${format}: locked, the deciding game corrected, same winner -> ${r.status}`);
            expect(r.status, `${ctx}: a correction keeping the winner while ${placeOf(f)} has a game\n${r.text}`).toBe(200);
            expectSeries(r.body.data, [...games, same], m.best_of, teams, ctx);
            expectStatus(await ev.call("DELETE", gamePath(ev, f.id, 1)), 200);
          }
          expectStatus(await ev.call("DELETE", gamePath(ev, m.id, games.length + 1)), 200);
          const after = await results(ev.call, ev.id);
          // The same matches exist (swiss, section 10: "only the current round's matches exist"; the
          // round the decision drew is not the current round once the decision is undone) ...
          expect(after.matches.map((x) => `${placeOf(x)} ${x.id}`), `${ctx}: ${placeOf(m)} decided then undone: the matches that exist`)
            .toEqual(before.matches.map((x) => `${placeOf(x)} ${x.id}`));
          // ... and each reads exactly as before.
          expect(after.matches, `${ctx}: ${placeOf(m)} decided then undone`).toEqual(before.matches);
          expect(after.standings, `${ctx}: ${placeOf(m)} decided then undone`).toEqual(before.standings);
          expect(after.tournament.status).toBe("ongoing");
        }),
        { numRuns: runs(12), seed: SEED * 13 + format.length, endOnFailure: true },
      );
      ran.add(`undo ${format}`);
    }, 240_000);
  }
});

// ============================================================================
// the runs reached what they are meant to test
// ============================================================================
describe("coverage of the runs above", () => {
  it("met decisions, undone decisions, every refusal, detours, forfeits and direct results", () => {
    const count = (part: string) => [...seen].filter(([k]) => k.includes(part)).reduce((n, [, v]) => n + v, 0);
    // Each of these is met many times at the default runs (or made sure of by a probe).
    const groups: [string[], string[]][] = [
      [[1, 3, 5, 7, 9].map((b) => `series ${b}`), [
        "series next -> 200",
        "series next (decided series) -> 409 series_decided",
        "series next (decided series) -> 400",
        "series correct -> 200",
        "series correct (decided series) undoing the decision -> 200",
        "series correct (decided series, probe) the deciding game flipped -> 200",
        "series correct (probe) the deciding game flipped back -> 200",
        "series correct (decided series, probe) leaving a game after the decision -> 409 series_decided",
        "series deleteLast (decided series) -> 200",
        "series deleteLast -> 200",
        "series gap -> 400",
        "series pastBestOf -> 400",
        "series deleteNotLast",
        "series deleteMissing",
        "series equal -> 400",
        "series zero -> 400",
        "series longMap -> 400",
        "series badBody",
        "series bestOf -> 200",
        "series bestOf -> 409",
        "series forfeit (decided series) -> 200",
        "series forfeit -> 200",
        "series direct result replacing games -> 200",
        "series next game after a forfeit -> 409",
        "series game 1 after a direct result -> 409",
        "series direct result that is not a series score -> 400",
      ]],
      [Object.keys(plans).map((name) => `equivalence ${name}`), [
        "games detour: the wrong winner",
        "games detour: an earlier game flipped -> 200",
        "games detour: an extra game",
        "games detour: the game deleted",
        "games after the decision: one more game -> 409",
        "games after the decision: a game corrected, same winner -> 200",
        "direct the wrong winner first",
        "direct: a game first",
        "equivalence single_elimination",
        "equivalence double_elimination",
        "equivalence swiss",
        "equivalence round_robin",
      ]],
      [["undo single_elimination", "undo double_elimination"], [
        "undo single_elimination: ",
        "undo double_elimination: ",
        ": locked, DELETE of the deciding game -> 409",
      ]],
      [["undo swiss"], ["undo swiss: "]],
      [["undo round_robin"], ["undo round_robin: "]],
    ];
    let checked = 0;
    for (const [tests, items] of groups) {
      if (!tests.every((t) => ran.has(t))) continue;
      for (const what of items) {
        expect(count(what), what).toBeGreaterThan(0);
        checked++;
      }
    }
    // Run alone (-t), this checks nothing; with the file it checks every group.
    if (ran.size === 0) return;
    expect(checked).toBeGreaterThan(0);
  });
});

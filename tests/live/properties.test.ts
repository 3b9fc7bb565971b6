// Change tracking (contract section 14, with sections 2, 5, 9, 10, 12 and 13 where they meet
// it), written from the contract alone, over HTTP against the real function:
// 1. deltas are the difference of two full reads: under random sequences of results, corrections,
//    games put and deleted, forfeits, schedules, best_of changes, registration and tournament
//    edits (single and double elimination, round robin, swiss: with a decision of a completed
//    round undone so that the next round is taken away), applying `GET /results?since=a` to the
//    full read at version a (upsert its matches by id, drop its `removed_matches`) gives the full
//    read exactly, with the same standings and tournament; every committed change raises the
//    version, a refused one or one that changes nothing does not;
// 2. version rules step by step (ETag and `version` agree; PATCH with unchanged values, refused
//    writes, an Idempotency-Key replay, GET and 304 leave the version as it was);
// 3. ETag / If-None-Match: 304 without a body, still counted, on every GET that carries an ETag;
//    lists, `*` and weak tags;
// 4. If-Match on every write that takes it: a stale version is 412 precondition_failed and
//    changes nothing, `*` and the current version pass; the lost-update race has one winner;
// 5. CORS for the conditional headers; 6. `since` that is not a non-negative integer is 400.
//
// Shrinking is off (endOnFailure): every step is HTTP, and the failure message carries the steps
// that led to it. Runs are seeded (LIVE_PROPS_SEED, printed below) so a failure replays.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiResponse,
  apiUrl,
  type Call,
  caller,
  createTeams,
  expectError,
  expectStatus,
  type Match,
  mulberry32,
  rateHits,
  request,
  runSeed,
  startedTournament,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

const SEED = runSeed("LIVE_PROPS_SEED");
/** Scales every numRuns below (LIVE_PROPS_RUNS=4 for a longer hunt). */
const RUNS = Number(process.env.LIVE_PROPS_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * RUNS));
console.log(`live-properties: fast-check seed ${SEED} (LIVE_PROPS_SEED=<n> replays another), runs x${RUNS}`);

/** What the runs met, counted; printed at the end. */
const seen = new Map<string, number>();
const note = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
const count = (part: string) => [...seen].filter(([k]) => k.includes(part)).reduce((n, [, v]) => n + v, 0);
afterAll(() => {
  console.log("live-properties coverage:\n" + [...seen].sort().map(([k, v]) => `  ${String(v).padStart(5)}  ${k}`).join("\n"));
});

/** Platform teams shared by the tests here: pool[s - 1] is seed s of every tournament. */
let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(8, `LiveProp${Date.now().toString(36)}`);
});

interface Results {
  tournament: { id: string; format: string; status: string; version: number; stage?: number };
  matches: Match[];
  standings: Record<string, unknown>[];
  removed_matches?: string[];
}

const tag = (v: number) => `"${v}"`;
const need = (bestOf: number) => Math.ceil(bestOf / 2);

/** A tournament of `n` teams (seed i + 1 = pool[i]) with these fields, started. */
async function started(fields: Record<string, unknown>, n: number) {
  const { call, id, t } = await startedTournament(fields, pool.slice(0, n));
  return { call, id, t };
}

/** GET /tournaments/{id}: its `version` (an integer ≥ 1), checked against the ETag. */
async function versionOf(call: Call, id: string, ctx = ""): Promise<number> {
  const res = await call("GET", `/tournaments/${id}`);
  expectStatus(res, 200);
  const v = res.body.data.version;
  expect(Number.isInteger(v) && v >= 1, `${ctx}: version ${v}\n${res.text}`).toBe(true);
  expect(res.headers.get("etag"), `${ctx}: the ETag of GET tournament`).toBe(tag(v));
  return v;
}

/** GET /results (full), its ETag checked against `tournament.version`. */
async function full(call: Call, id: string, ctx = ""): Promise<Results> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  const data: Results = res.body.data;
  expect(Number.isInteger(data.tournament.version), `${ctx}\n${res.text}`).toBe(true);
  expect(res.headers.get("etag"), `${ctx}: the ETag of GET results`).toBe(tag(data.tournament.version));
  return data;
}

/** GET /results?since=v: the delta, with `removed_matches` an array of ids. */
async function delta(call: Call, id: string, since: number, ctx = ""): Promise<Results & { removed_matches: string[] }> {
  const res = await call("GET", `/tournaments/${id}/results?since=${since}`);
  expectStatus(res, 200);
  const data = res.body.data;
  expect(Array.isArray(data.removed_matches), `${ctx}: removed_matches in the delta since ${since}\n${res.text}`).toBe(true);
  expect(res.headers.get("etag"), `${ctx}: the ETag of GET results?since`).toBe(tag(data.tournament.version));
  const ids = data.matches.map((m: Match) => m.id);
  expect(new Set(ids).size, `${ctx}: a match twice in the delta since ${since}`).toBe(ids.length);
  return data;
}

/**
 * The delta since `a`'s version applied to `a`'s matches (upsert by id, removed ids dropped) is `b`'s
 * matches exactly; its standings and tournament are `b`'s.
 */
function expectDeltaApplies(a: Results, d: Results & { removed_matches: string[] }, b: Results, ctx: string): void {
  const merged = new Map(a.matches.map((m) => [m.id, m]));
  for (const m of d.matches) merged.set(m.id, m);
  for (const id of d.removed_matches) merged.delete(id);
  const have = [...merged.keys()].sort();
  const want = b.matches.map((m) => m.id).sort();
  expect(have, `${ctx}: the match ids after applying the delta since ${a.tournament.version}`).toEqual(want);
  expect(b.matches.map((m) => merged.get(m.id)), `${ctx}: the matches after applying the delta since ${a.tournament.version}`)
    .toEqual(b.matches);
  expect(d.standings, `${ctx}: the delta's standings`).toEqual(b.standings);
  expect(d.tournament, `${ctx}: the delta's tournament`).toEqual(b.tournament);
}

// ============================================================================
// 1. deltas are the difference of two full reads
// ============================================================================
interface Plan {
  format: string;
  n: number;
  options: Record<string, unknown>;
}
const plans: Record<string, fc.Arbitrary<Plan>> = {
  single_elimination: fc.record({ n: fc.integer({ min: 3, max: 8 }), third: fc.boolean(), fbo: fc.constantFrom(3, 5) })
    .map(({ n, third, fbo }) => ({
      format: "single_elimination",
      n,
      options: { best_of: 3, final_best_of: fbo, third_place_match: third },
    })),
  double_elimination: fc.record({ n: fc.integer({ min: 3, max: 6 }), reset: fc.boolean() })
    .map(({ n, reset }) => ({ format: "double_elimination", n, options: { best_of: 3, grand_final: reset ? "reset" : "single" } })),
  round_robin: fc.record({ n: fc.integer({ min: 3, max: 6 }), groups: fc.integer({ min: 1, max: 2 }) })
    .map(({ n, groups }) => ({ format: "round_robin", n, options: { best_of: 3, groups: Math.min(groups, Math.floor(n / 2)) } })),
  swiss: fc.record({ n: fc.integer({ min: 3, max: 6 }), rounds: fc.integer({ min: 2, max: 3 }) })
    .map(({ n, rounds }) => ({ format: "swiss", n, options: { best_of: 3, rounds: Math.min(rounds, n - 1) } })),
};

type OpKind =
  | "game"
  | "report"
  | "correct"
  | "deleteGame"
  | "forfeit"
  | "schedule"
  | "bestOf"
  | "payment"
  | "describe"
  | "noop"
  | "complete"
  | "swissUndo";
/** Weights per kind; swiss leans on games so that rounds are decided by games and can be undone. */
const weights = (format: string): [OpKind, number][] => [
  ["game", format === "swiss" ? 40 : 30],
  ["report", format === "swiss" ? 6 : 16],
  ["correct", 9],
  ["deleteGame", 12],
  ["forfeit", format === "swiss" ? 2 : 5],
  ["schedule", 4],
  ["bestOf", 4],
  ["payment", 4],
  ["describe", 3],
  ["noop", 4],
  ["complete", 3],
  ["swissUndo", format === "swiss" ? 30 : 0],
];
function pickKind(rng: () => number, format: string): OpKind {
  const w = weights(format);
  let r = rng() * w.reduce((s, [, x]) => s + x, 0);
  for (const [k, x] of w) if ((r -= x) < 0) return k;
  return "game";
}
const pick = <T>(xs: T[], rng: () => number): T => xs[Math.floor(rng() * xs.length)];

interface Op {
  label: string;
  kind: OpKind;
  send: () => Promise<ApiResponse>;
  /** Changes nothing when it succeeds. */
  noop?: boolean;
  /** Can change matches when it succeeds. */
  matches: boolean;
  /** Swiss: the round this undo must take away. */
  takesAwayRound?: number;
}

interface Reg {
  id: string;
  payment_status: string;
}

/** One step the run may take from state `cur`; null when the kind has no target there. */
function makeOp(
  kind: OpKind,
  cur: Results,
  ev: { call: Call; id: string },
  regs: Reg[],
  rng: () => number,
  k: number,
  description: { value: string },
): Op | null {
  const base = `/tournaments/${ev.id}`;
  const mp = (m: Match) => `${base}/matches/${m.id}`;
  const gp = (m: Match, n: number) => `${base}/matches/${m.id}/games/${n}`;
  const where = (m: Match) => `r${m.round}p${m.position}${m.bracket ? ` ${m.bracket}` : ""}${m.group ? ` g${m.group}` : ""}`;
  const ready = cur.matches.filter((m) => m.status === "ready");
  const completed = cur.matches.filter((m) => m.status === "completed");
  const withGames = cur.matches.filter((m) => m.games.length > 0);
  const game = (side: 1 | 2) => {
    const hi = 1 + Math.floor(rng() * 30);
    const lo = Math.floor(rng() * hi);
    return side === 1 ? { team1_score: hi, team2_score: lo } : { team1_score: lo, team2_score: hi };
  };
  switch (kind) {
    case "game": {
      const pending = cur.matches.filter((m) => m.status === "pending");
      const targets = rng() < 0.1 && pending.length ? pending : [...ready, ...withGames];
      if (!targets.length) return null;
      const m = pick(targets, rng);
      const n = m.games.length + 1;
      const body = game(rng() < 0.5 ? 1 : 2);
      return {
        kind,
        label: `PUT ${where(m)} games/${n} ${JSON.stringify(body)}`,
        matches: true,
        send: () => ev.call("PUT", gp(m, n), { body }),
      };
    }
    case "report": {
      if (!ready.length) return null;
      const m = pick(ready, rng);
      const nd = need(m.best_of);
      const l = Math.floor(rng() * nd);
      const s = rng() < 0.5 ? [nd, l] : [l, nd];
      return {
        kind,
        label: `PATCH ${where(m)} ${s[0]}-${s[1]}`,
        matches: true,
        send: () => ev.call("PATCH", mp(m), { body: { team1_score: s[0], team2_score: s[1] } }),
      };
    }
    case "correct": {
      if (!completed.length) return null;
      const m = pick(completed, rng);
      const nd = need(m.best_of);
      const l = Math.floor(rng() * nd);
      // The other side wins: a real change.
      const s = m.winner_id === m.team1_id ? [l, nd] : [nd, l];
      return {
        kind,
        label: `PATCH ${where(m)} ${s[0]}-${s[1]} (correction)`,
        matches: true,
        send: () => ev.call("PATCH", mp(m), { body: { team1_score: s[0], team2_score: s[1] } }),
      };
    }
    case "deleteGame": {
      if (!withGames.length) return null;
      const m = pick(withGames, rng);
      return {
        kind,
        label: `DELETE ${where(m)} games/${m.games.length}`,
        matches: true,
        send: () => ev.call("DELETE", gp(m, m.games.length)),
      };
    }
    case "forfeit": {
      if (!ready.length) return null;
      const m = pick(ready, rng);
      const side = rng() < 0.5 ? "team1" : "team2";
      return {
        kind,
        label: `PATCH ${where(m)} forfeit ${side}`,
        matches: true,
        send: () => ev.call("PATCH", mp(m), { body: { forfeit: side } }),
      };
    }
    case "schedule": {
      const m = pick(cur.matches, rng);
      const at = new Date(Date.UTC(2031, 0, 1) + k * 3_600_000 + Math.floor(rng() * 1000) * 60_000).toISOString();
      return {
        kind,
        label: `PATCH ${where(m)} scheduled_at ${at}`,
        matches: true,
        send: () => ev.call("PATCH", mp(m), { body: { scheduled_at: at } }),
      };
    }
    case "bestOf": {
      const open = ready.filter((m) => m.games.length === 0 && m.team1_score === null);
      if (!open.length) return null;
      const m = pick(open, rng);
      const bo = pick([1, 3, 5].filter((x) => x !== m.best_of), rng);
      return {
        kind,
        label: `PATCH ${where(m)} best_of ${bo}`,
        matches: true,
        send: () => ev.call("PATCH", mp(m), { body: { best_of: bo } }),
      };
    }
    case "payment": {
      const r = pick(regs, rng);
      const to = pick(["pending", "complete", "refunded"].filter((x) => x !== r.payment_status), rng);
      return {
        kind,
        label: `PATCH registration ${r.id.slice(0, 8)} payment_status ${to}`,
        matches: false,
        send: async () => {
          const res = await ev.call("PATCH", `${base}/registrations/${r.id}`, { body: { payment_status: to } });
          if (res.status === 200) r.payment_status = to;
          return res;
        },
      };
    }
    case "describe": {
      const to = `step ${k} ${Math.floor(rng() * 1e9)}`;
      return {
        kind,
        label: `PATCH tournament description "${to}"`,
        matches: false,
        send: async () => {
          const res = await ev.call("PATCH", base, { body: { description: to } });
          if (res.status === 200) description.value = to;
          return res;
        },
      };
    }
    case "noop": {
      if (rng() < 0.5) {
        const r = pick(regs, rng);
        return {
          kind,
          label: `PATCH registration ${r.id.slice(0, 8)} payment_status ${r.payment_status} (unchanged)`,
          matches: false,
          noop: true,
          send: () => ev.call("PATCH", `${base}/registrations/${r.id}`, { body: { payment_status: r.payment_status } }),
        };
      }
      return {
        kind,
        label: `PATCH tournament description "${description.value}" (unchanged)`,
        matches: false,
        noop: true,
        send: () => ev.call("PATCH", base, { body: { description: description.value } }),
      };
    }
    case "complete": {
      // Setting the current status again is a no-op (section 3).
      const again = cur.tournament.status === "completed";
      return {
        kind,
        label: `PATCH tournament status completed${again ? " (again)" : ""}`,
        matches: false,
        noop: again,
        send: () => ev.call("PATCH", base, { body: { status: "completed" } }),
      };
    }
    case "swissUndo": {
      // The last round drawn, with no result yet, and a match of the round before it decided by games.
      const last = Math.max(...cur.matches.map((m) => m.round));
      if (last < 2) return null;
      const lastRound = cur.matches.filter((m) => m.round === last);
      if (lastRound.some((m) => m.status === "completed" || m.games.length > 0)) return null;
      const undoable = cur.matches.filter((m) =>
        m.round === last - 1 && m.status === "completed" && m.forfeit === null &&
        m.games.length > 0
      );
      if (!undoable.length) return null;
      const m = pick(undoable, rng);
      return {
        kind,
        label: `DELETE ${where(m)} games/${m.games.length} (undoes round ${last - 1})`,
        matches: true,
        takesAwayRound: last,
        send: () => ev.call("DELETE", gp(m, m.games.length)),
      };
    }
  }
}

async function runDeltas(plan: Plan, seed: number, epochs: number): Promise<void> {
  const rng = mulberry32(seed);
  const ev = await started({ format: plan.format, format_options: plan.options }, plan.n);
  const log: string[] = [];
  const ctx = () => `${plan.format} ${plan.n} teams ${JSON.stringify(plan.options)} rng seed ${seed}, steps:\n${log.slice(-14).join("\n")}`;
  const regsRes = await ev.call("GET", `/tournaments/${ev.id}/registrations`);
  expectStatus(regsRes, 200);
  const regs: Reg[] = regsRes.body.data.map((r: Reg) => ({ id: r.id, payment_status: r.payment_status }));
  const description = { value: "" };

  let cur = await full(ev.call, ev.id, ctx());
  // Every match was made after version 0.
  const fromZero = await delta(ev.call, ev.id, 0, ctx());
  expect(fromZero.matches.map((m) => m.id).sort(), `${ctx()}: the delta since 0`).toEqual(cur.matches.map((m) => m.id).sort());
  expectDeltaApplies({ ...cur, matches: [] }, fromZero, cur, `${ctx()} (since 0)`);
  const history: Results[] = [cur];

  for (let e = 0; e < epochs; e++) {
    const a = cur;
    let matchChanges = 0;
    const removed: string[] = [];
    const steps = 1 + Math.floor(rng() * 4);
    for (let s = 0; s < steps; s++) {
      // Swiss: whenever a round can be taken away, often do it.
      let op: Op | null = plan.format === "swiss" && rng() < 0.5 ? makeOp("swissUndo", cur, ev, regs, rng, e * 10 + s, description) : null;
      for (let tries = 0; !op && tries < 10; tries++) op = makeOp(pickKind(rng, plan.format), cur, ev, regs, rng, e * 10 + s, description);
      if (!op) continue;
      const before = cur;
      const res = await op.send();
      log.push(`v${before.tournament.version} ${op.label} -> ${res.status} ${res.body?.error?.code ?? ""}`);
      note(`${plan.format} ${op.kind}${op.noop ? " (nothing to change)" : ""} -> ${res.status} ${res.body?.error?.code ?? ""}`);
      expect([200, 400, 409], `${ctx()}\n${res.text}`).toContain(res.status);
      const after = await full(ev.call, ev.id, ctx());
      if (res.status === 200 && !op.noop) {
        expect(after.tournament.version, `${ctx()}: a committed change did not raise the version`)
          .toBeGreaterThan(before.tournament.version);
        if (op.matches) matchChanges++;
      } else {
        expect(
          after.tournament.version,
          `${ctx()}: ${res.status === 200 ? "a request that changed nothing" : "a refused request"} moved the version`,
        )
          .toBe(before.tournament.version);
        expect(after, `${ctx()}: ${res.status === 200 ? "a request that changed nothing" : "a refused request"} changed the results`)
          .toEqual(before);
      }
      if (op.takesAwayRound !== undefined && res.status === 200) {
        // Sections 10/13: undoing a decision of a completed round takes the next round away.
        const gone = before.matches.filter((m) => m.round === op.takesAwayRound).map((m) => m.id);
        expect(
          after.matches.filter((m) => m.round >= op.takesAwayRound!).map((m) => m.id),
          `${ctx()}: round ${op.takesAwayRound} still there after the decision it was drawn from was undone`,
        ).toEqual([]);
        removed.push(...gone);
        note(`swiss round taken away (${gone.length} matches)`);
      }
      cur = after;
    }
    const d = await delta(ev.call, ev.id, a.tournament.version, ctx());
    expectDeltaApplies(a, d, cur, ctx());
    const stillGone = removed.filter((id) => !cur.matches.some((m) => m.id === id));
    expect(d.removed_matches, `${ctx()}: the taken-away matches in removed_matches`).toEqual(expect.arrayContaining(stillGone));
    if (stillGone.length) note(`${plan.format} delta with removed_matches`);
    if (matchChanges === 0) {
      // Only the matches changed after that version: none when no match changed.
      expect({ matches: d.matches, removed: d.removed_matches }, `${ctx()}: no match changed, yet the delta holds some`)
        .toEqual({ matches: [], removed: [] });
    } else {
      expect(d.matches.length + d.removed_matches.length, `${ctx()}: matches changed, yet the delta is empty`).toBeGreaterThan(0);
    }
    // Nothing after the current version.
    const none = await delta(ev.call, ev.id, cur.tournament.version, ctx());
    expect({ matches: none.matches, removed: none.removed_matches }, `${ctx()}: the delta since the current version`)
      .toEqual({ matches: [], removed: [] });
    expectDeltaApplies(cur, none, cur, `${ctx()} (since the current version)`);
    expect(await versionOf(ev.call, ev.id, ctx()), `${ctx()}: GET tournament's version against the results'`).toBe(cur.tournament.version);
    history.push(cur);
  }
  // Deltas over several steps at once, from earlier reads.
  for (let i = 0; i < 2; i++) {
    const a = pick(history, rng);
    expectDeltaApplies(a, await delta(ev.call, ev.id, a.tournament.version, ctx()), cur, `${ctx()} (since an earlier read)`);
  }
  note(`${plan.format} run: ${cur.matches.length} matches at the end, version ${cur.tournament.version}`);
}

describe.concurrent("deltas: applying ?since=a to the full read at a gives the full read now (sections 5, 10, 13, 14)", () => {
  let salt = 0;
  for (const [format, planArb] of Object.entries(plans)) {
    const s = ++salt;
    it(`${format}: random reports, corrections, games, forfeits${format === "swiss" ? ", rounds undone" : ""}`, async () => {
      await fc.assert(fc.asyncProperty(planArb, fc.integer(), (plan, seed) => runDeltas(plan, seed, format === "swiss" ? 10 : 8)), {
        numRuns: runs(format === "swiss" ? 10 : 8),
        seed: SEED * 3 + s,
        endOnFailure: true,
      });
      // The runs did what they are meant to: changed matches, and refused some requests.
      expect(count(`${format} game -> 200`), `${format}: no game went in`).toBeGreaterThan(0);
      expect(count(`${format} deleteGame -> 200`) + count(`${format} correct -> 200`), `${format}: nothing undone`).toBeGreaterThan(0);
      expect(count(`${format} noop (nothing to change) -> 200`), `${format}: no request that changes nothing`).toBeGreaterThan(0);
      if (format === "swiss") expect(count("swiss delta with removed_matches"), "swiss: no round taken away").toBeGreaterThan(0);
    }, 120_000);
  }

  it("swiss: undoing round 1's last decision takes round 2 away; the delta names its matches in removed_matches", async () => {
    const ev = await started({ format: "swiss", format_options: { best_of: 3, rounds: 2 } }, 4);
    let r = await full(ev.call, ev.id);
    expect(r.matches.map((m) => m.round)).toEqual([1, 1]);
    for (const m of r.matches) {
      for (const n of [1, 2]) {
        expectStatus(
          await ev.call("PUT", `/tournaments/${ev.id}/matches/${m.id}/games/${n}`, { body: { team1_score: 13, team2_score: 5 } }),
          200,
        );
      }
    }
    const a = await full(ev.call, ev.id);
    const round2 = a.matches.filter((m) => m.round === 2).map((m) => m.id);
    expect(round2, JSON.stringify(a.matches)).toHaveLength(2);
    const undo = await ev.call("DELETE", `/tournaments/${ev.id}/matches/${a.matches[0].id}/games/2`);
    expectStatus(undo, 200);
    const b = await full(ev.call, ev.id);
    expect(b.matches.map((m) => m.round), "round 2 taken away").toEqual([1, 1]);
    expect(b.tournament.version).toBeGreaterThan(a.tournament.version);
    const d = await delta(ev.call, ev.id, a.tournament.version);
    expect([...d.removed_matches].sort()).toEqual([...round2].sort());
    expect(d.matches.map((m) => m.id)).toEqual([a.matches[0].id]);
    expectDeltaApplies(a, d, b, "swiss undo");
    // From before the round was drawn, the removed matches never reached the reader: applying still works.
    r = await full(ev.call, ev.id);
    expectDeltaApplies(a, await delta(ev.call, ev.id, a.tournament.version), r, "swiss undo, read again");
  });
});

// ============================================================================
// 2. version rules
// ============================================================================
describe("version: raised by every committed change, by nothing else (section 14)", () => {
  it("every change raises it; unchanged PATCHes, refused writes, replays, GETs and 304s leave it", async () => {
    const t = await tenant();
    const call = caller(t);
    const teams = await createTeams(4, `LiveVer${Date.now().toString(36)}`);
    const created = await call("POST", "/tournaments", {
      body: tournamentBody({ max_teams: 4, entry_fee: 5, format_options: { best_of: 3 } }),
    });
    expectStatus(created, 201);
    const id = created.body.data.id;
    const base = `/tournaments/${id}`;
    expect(Number.isInteger(created.body.data.version) && created.body.data.version >= 1, created.text).toBe(true);
    let v = await versionOf(call, id);
    expect(v).toBe(created.body.data.version);
    const other = await call("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(other, 201);
    const otherV = await versionOf(call, other.body.data.id);

    const log: string[] = [];
    /** Sends a request and checks the version after it: raised, or as it was. */
    const step = async (what: string, send: () => Promise<ApiResponse>, status: number, raises: boolean) => {
      const res = await send();
      log.push(`${what} -> ${res.status}`);
      expect(res.status, `${what}\n${res.text}`).toBe(status);
      const now = await versionOf(call, id, what);
      if (raises) expect(now, `${what}: the version after it`).toBeGreaterThan(v);
      else expect(now, `${what}: changed nothing, yet the version moved`).toBe(v);
      v = now;
      return res;
    };
    const name = created.body.data.name;
    await step("GET tournament", () => call("GET", base), 200, false);
    await step("PATCH with the name it has", () => call("PATCH", base, { body: { name } }), 200, false);
    await step(
      "PATCH with every value as it is",
      () =>
        call("PATCH", base, {
          body: { name, description: created.body.data.description, max_teams: 4, entry_fee: 5, starts_at: created.body.data.starts_at },
        }),
      200,
      false,
    );
    await step("PATCH status registration (current)", () => call("PATCH", base, { body: { status: "registration" } }), 200, false);
    await step("PATCH refused: 400", () => call("PATCH", base, { body: { max_teams: 0 } }), 400, false);
    await step("PATCH refused: 409", () => call("PATCH", base, { body: { status: "completed" } }), 409, false);
    await step(
      "POST registration refused: 404 team",
      () => call("POST", `${base}/registrations`, { body: { team_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b" } }),
      404,
      false,
    );
    await step("PATCH name", () => call("PATCH", base, { body: { name: "Renamed Cup" } }), 200, true);
    const first = await step(
      "POST registration (Idempotency-Key)",
      () => call("POST", `${base}/registrations`, { body: { team_id: teams[0] }, headers: { "idempotency-key": "live-1" } }),
      201,
      true,
    );
    const replay = await step(
      "the same POST replayed",
      () => call("POST", `${base}/registrations`, { body: { team_id: teams[0] }, headers: { "idempotency-key": "live-1" } }),
      201,
      false,
    );
    expect(replay.body.data).toEqual(first.body.data);
    await step(
      "POST registration refused: 409 already_registered",
      () => call("POST", `${base}/registrations`, { body: { team_id: teams[0] } }),
      409,
      false,
    );
    const regId = first.body.data.id;
    await step(
      "PATCH registration payment as it is",
      () => call("PATCH", `${base}/registrations/${regId}`, { body: { payment_status: first.body.data.payment_status } }),
      200,
      false,
    );
    await step(
      "PATCH registration payment",
      () => call("PATCH", `${base}/registrations/${regId}`, { body: { payment_status: "complete" } }),
      200,
      true,
    );
    await step("PATCH registration seed", () => call("PATCH", `${base}/registrations/${regId}`, { body: { seed: 1 } }), 200, true);
    await step("DELETE registration", () => call("DELETE", `${base}/registrations/${regId}`), 200, true);
    await step("DELETE registration again: 404", () => call("DELETE", `${base}/registrations/${regId}`), 404, false);
    for (const team of teams.slice(0, 3)) {
      await step("POST registration", () => call("POST", `${base}/registrations`, { body: { team_id: team } }), 201, true);
    }
    await step("GET registrations", () => call("GET", `${base}/registrations`), 200, false);
    await step("GET with If-None-Match: 304", () => call("GET", base, { headers: { "if-none-match": tag(v) } }), 304, false);
    await step("PATCH status ongoing (start)", () => call("PATCH", base, { body: { status: "ongoing" } }), 200, true);
    await step("PATCH status ongoing again (no-op)", () => call("PATCH", base, { body: { status: "ongoing" } }), 200, false);
    await step("PATCH stages/1 ongoing (no-op)", () => call("PATCH", `${base}/stages/1`, { body: { status: "ongoing" } }), 200, false);
    await step("PATCH entry_fee while ongoing: 409 tournament_locked", () => call("PATCH", base, { body: { entry_fee: 9 } }), 409, false);
    const r = await full(call, id);
    expect(r.tournament.version).toBe(v);
    const ready = r.matches.find((m) => m.status === "ready")!;
    const pending = r.matches.find((m) => m.status === "pending")!;
    const mp = (m: Match) => `${base}/matches/${m.id}`;
    await step(
      "PATCH pending match: 409 match_not_ready",
      () => call("PATCH", mp(pending), { body: { team1_score: 2, team2_score: 0 } }),
      409,
      false,
    );
    await step(
      "PATCH match with equal scores: 400",
      () => call("PATCH", mp(ready), { body: { team1_score: 1, team2_score: 1 } }),
      400,
      false,
    );
    await step("PUT game 1", () => call("PUT", `${mp(ready)}/games/1`, { body: { team1_score: 13, team2_score: 4 } }), 200, true);
    await step(
      "PUT game 3 (a gap): 400",
      () => call("PUT", `${mp(ready)}/games/3`, { body: { team1_score: 13, team2_score: 4 } }),
      400,
      false,
    );
    await step("PUT game 2", () => call("PUT", `${mp(ready)}/games/2`, { body: { team1_score: 3, team2_score: 13 } }), 200, true);
    await step("DELETE game 1 (not the last): 409", () => call("DELETE", `${mp(ready)}/games/1`), 409, false);
    await step("DELETE game 2", () => call("DELETE", `${mp(ready)}/games/2`), 200, true);
    await step("PATCH match series score", () => call("PATCH", mp(ready), { body: { team1_score: 2, team2_score: 1 } }), 200, true);
    await step("PATCH match scheduled_at", () => call("PATCH", mp(pending), { body: { scheduled_at: "2031-05-01T18:00:00Z" } }), 200, true);
    await step("PATCH tournament description while ongoing", () => call("PATCH", base, { body: { description: "live" } }), 200, true);
    for (const path of [`${base}/stages`, `${base}/stages/1`, `${base}/registrations`, `${base}/results`]) {
      const res = await step(`GET ${path.slice(base.length)}`, () => call("GET", path), 200, false);
      expect(res.headers.get("etag"), `GET ${path}`).toBe(tag(v));
    }
    // None of this touched the other tournament.
    expect(await versionOf(call, other.body.data.id)).toBe(otherV);
    note(`version rules: ${log.length} steps`);
  });
});

// ============================================================================
// 3. ETag / If-None-Match
// ============================================================================
describe("If-None-Match: 304 without a body, still counted (sections 6, 14)", () => {
  /** A started tournament (4 teams) with a registration id, and one more tournament version after it. */
  async function event() {
    const ev = await started({ format_options: { best_of: 3 } }, 4);
    const regs = await ev.call("GET", `/tournaments/${ev.id}/registrations`);
    expectStatus(regs, 200);
    return { ...ev, regId: regs.body.data[0].id as string };
  }
  const routes = (id: string, regId: string) => ({
    "GET tournament": `/tournaments/${id}`,
    "GET stages": `/tournaments/${id}/stages`,
    "GET stage": `/tournaments/${id}/stages/1`,
    "GET registrations": `/tournaments/${id}/registrations`,
    "GET registration": `/tournaments/${id}/registrations/${regId}`,
    "GET results": `/tournaments/${id}/results`,
  });

  it.concurrent.each(["GET tournament", "GET stages", "GET stage", "GET registrations", "GET registration", "GET results"])(
    "%s: ETag is the version; If-None-Match naming it (alone, in a list, *, weak) is 304, counted; another is 200",
    async (route) => {
      const ev = await event();
      const path = routes(ev.id, ev.regId)[route as keyof ReturnType<typeof routes>];
      const { id: keyId, key } = await ev.t.newKey();
      const get = (inm?: string) => request("GET", path, { key, headers: inm === undefined ? {} : { "if-none-match": inm } });
      const first = await get();
      expectStatus(first, 200);
      const v = await versionOf(ev.call, ev.id);
      expect(first.headers.get("etag"), route).toBe(tag(v));
      let remaining = Number(first.headers.get("ratelimit-remaining"));
      expect(remaining, route).toBe(99);
      let sent = 1;
      for (
        const [inm, want] of [
          [tag(v), 304],
          [`"0", ${tag(v)}`, 304],
          [`${tag(v + 5)},${tag(v)}`, 304],
          ["*", 304],
          [`W/${tag(v)}`, 304],
          [`W/"1", W/${tag(v)}`, 304],
          [tag(v - 1), 200],
          [`${tag(v + 1)}, ${tag(v + 2)}`, 200],
          [`W/${tag(v + 1)}`, 200],
        ] as const
      ) {
        const res = await get(inm);
        sent++;
        const what = `${route} If-None-Match: ${inm} (version ${v})`;
        expect(res.status, `${what}\n${res.text}`).toBe(want);
        expect(res.headers.get("etag"), what).toBe(tag(v));
        // Still counted: the remaining count goes down by one on every answer, 304 or not.
        expect(Number(res.headers.get("ratelimit-remaining")), `${what}: RateLimit-Remaining`).toBe(remaining - 1);
        remaining--;
        expect(res.headers.get("ratelimit-limit"), what).toBe("100");
        expect(res.headers.get("ratelimit-policy"), what).toBeTruthy();
        if (want === 304) {
          expect(res.text, `${what}: a 304 has no body`).toBe("");
          note(`304 ${route}`);
        } else {
          expect(res.body?.success, `${what}\n${res.text}`).toBe(true);
          expect(res.body.data, what).toEqual(first.body.data);
        }
      }
      expect(await rateHits(keyId), `${route}: every request counted, the 304s too`).toBe(sent);
      // After a change the old tag no longer matches: 200 with the new ETag.
      expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { description: `changed ${route}` } }), 200);
      const after = await get(tag(v));
      expectStatus(after, 200);
      const v2 = await versionOf(ev.call, ev.id);
      expect(v2).toBeGreaterThan(v);
      expect(after.headers.get("etag"), route).toBe(tag(v2));
      expectStatus(await get(tag(v2)), 304);
    },
  );

  it("If-None-Match is 304 exactly when its list names the current version (strong or weak) or is *", async () => {
    const ev = await event();
    const v = await versionOf(ev.call, ev.id);
    // GET registration is left to the test above (one defect, one failing test).
    const paths = Object.entries(routes(ev.id, ev.regId)).filter(([k]) => k !== "GET registration").map(([, p]) => p);
    const entry = fc.record({ d: fc.integer({ min: -3, max: 3 }), weak: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(", ", ",", " , "),
        fc.nat({ max: paths.length - 1 }),
        async (tags, sep, p) => {
          const list = tags.map(({ d, weak }) => `${weak ? "W/" : ""}${tag(Math.max(0, v + d))}`);
          const inm = list.join(sep);
          const res = await ev.call("GET", paths[p], { headers: { "if-none-match": inm } });
          const want = tags.some(({ d }) => v + d === v) ? 304 : 200;
          expect(res.status, `${paths[p]} If-None-Match: ${inm} (version ${v})\n${res.text}`).toBe(want);
          expect(res.headers.get("etag")).toBe(tag(v));
          if (want === 304) {
            expect(res.text).toBe("");
          }
        },
      ),
      { numRuns: runs(40), seed: SEED + 31, endOnFailure: true },
    );
  });
});

// ============================================================================
// 4. If-Match
// ============================================================================
interface Target {
  /** Sends the write with this If-Match (none when undefined). */
  send: (ifMatch?: string) => Promise<ApiResponse>;
  call: Call;
  id: string;
  /** The write deletes the tournament (nothing left to read back after it). */
  deletesTournament?: boolean;
}

const targets: Record<string, () => Promise<Target>> = {
  "PATCH tournament": async () => {
    const t = await tenant();
    const call = caller(t);
    const created = await call("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(created, 201);
    const id = created.body.data.id;
    let k = 0;
    return {
      call,
      id,
      send: (h) => call("PATCH", `/tournaments/${id}`, { body: { description: `d${++k}` }, headers: h ? { "if-match": h } : {} }),
    };
  },
  "DELETE tournament": async () => {
    const t = await tenant();
    const call = caller(t);
    const created = await call("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(created, 201);
    const id = created.body.data.id;
    return {
      call,
      id,
      deletesTournament: true,
      send: (h) => call("DELETE", `/tournaments/${id}`, { headers: h ? { "if-match": h } : {} }),
    };
  },
  "PATCH registration": async () => {
    const t = await tenant();
    const call = caller(t);
    const created = await call("POST", "/tournaments", { body: tournamentBody({ entry_fee: 10 }) });
    expectStatus(created, 201);
    const id = created.body.data.id;
    const reg = await call("POST", `/tournaments/${id}/registrations`, { body: { team_id: pool[0] } });
    expectStatus(reg, 201);
    const states = ["complete", "refunded", "pending"];
    let k = 0;
    return {
      call,
      id,
      send: async (h) => {
        const res = await call("PATCH", `/tournaments/${id}/registrations/${reg.body.data.id}`, {
          body: { payment_status: states[k % 3] },
          headers: h ? { "if-match": h } : {},
        });
        if (res.status === 200) k++;
        return res;
      },
    };
  },
  "DELETE registration": async () => {
    const t = await tenant();
    const call = caller(t);
    const created = await call("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(created, 201);
    const id = created.body.data.id;
    const reg = await call("POST", `/tournaments/${id}/registrations`, { body: { team_id: pool[1] } });
    expectStatus(reg, 201);
    return {
      call,
      id,
      send: (h) => call("DELETE", `/tournaments/${id}/registrations/${reg.body.data.id}`, { headers: h ? { "if-match": h } : {} }),
    };
  },
  "PATCH match": async () => {
    const ev = await started({}, 4);
    const r = await full(ev.call, ev.id);
    const m = r.matches.find((x) => x.status === "ready")!;
    let k = 0;
    return {
      call: ev.call,
      id: ev.id,
      send: async (h) => {
        const res = await ev.call("PATCH", `/tournaments/${ev.id}/matches/${m.id}`, {
          body: { team1_score: k + 1, team2_score: 0 },
          headers: h ? { "if-match": h } : {},
        });
        if (res.status === 200) k++;
        return res;
      },
    };
  },
  "PATCH stage": async () => {
    const se = { format: "single_elimination" };
    const { call, id } = await started({ stages: [{ ...se, advance: { top: 2 } }, se] }, 4);
    // Stage 1 played to its end: the semi-finals, then the final.
    for (let i = 0; i < 2; i++) {
      const r = await full(call, id);
      for (const m of r.matches.filter((x) => x.status === "ready")) {
        expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 2, team2_score: 1 } }), 200);
      }
    }
    const stages = await call("GET", `/tournaments/${id}/stages`);
    expect(stages.body.data.map((s: { status: string }) => s.status), stages.text).toEqual(["completed", "pending"]);
    return {
      call,
      id,
      send: (h) => call("PATCH", `/tournaments/${id}/stages/2`, { body: { status: "ongoing" }, headers: h ? { "if-match": h } : {} }),
    };
  },
  "PUT game": async () => {
    const ev = await started({ format_options: { best_of: 5 } }, 2);
    const r = await full(ev.call, ev.id);
    const m = r.matches[0];
    let k = 0;
    return {
      call: ev.call,
      id: ev.id,
      send: async (h) => {
        const res = await ev.call("PUT", `/tournaments/${ev.id}/matches/${m.id}/games/1`, {
          body: { team1_score: 10 + k, team2_score: 3 },
          headers: h ? { "if-match": h } : {},
        });
        if (res.status === 200) k++;
        return res;
      },
    };
  },
  "DELETE game": async () => {
    const ev = await started({ format_options: { best_of: 7 } }, 2);
    const r = await full(ev.call, ev.id);
    const m = r.matches[0];
    const g = (n: number) => `/tournaments/${ev.id}/matches/${m.id}/games/${n}`;
    for (const [n, s1, s2] of [[1, 13, 2], [2, 4, 13], [3, 13, 11]]) {
      expectStatus(await ev.call("PUT", g(n), { body: { team1_score: s1, team2_score: s2 } }), 200);
    }
    let last = 3;
    return {
      call: ev.call,
      id: ev.id,
      send: async (h) => {
        const res = await ev.call("DELETE", g(last), { headers: h ? { "if-match": h } : {} });
        if (res.status === 200) last--;
        return res;
      },
    };
  },
};

/** Everything a write may touch, as the API shows it. */
async function snapshot(call: Call, id: string) {
  const get = async (path: string) => {
    const res = await call("GET", path);
    return { status: res.status, data: res.body?.data };
  };
  return {
    tournament: await get(`/tournaments/${id}`),
    registrations: await get(`/tournaments/${id}/registrations`),
    stages: await get(`/tournaments/${id}/stages`),
    results: await get(`/tournaments/${id}/results`),
  };
}

describe.concurrent("If-Match: a stale version is 412 and changes nothing; * and the current version pass (section 14)", () => {
  for (const [name, setup] of Object.entries(targets)) {
    for (const variant of ["current", "*"] as const) {
      it(`${name}: stale If-Match → 412 precondition_failed, nothing changed; If-Match ${variant === "*" ? "*" : "with the current version"} passes`, async () => {
        const target = await setup();
        const { call, id } = target;
        const v0 = await versionOf(call, id);
        // A change in between makes v0 stale.
        expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { name: `Bumped ${name}` } }), 200);
        const v1 = await versionOf(call, id);
        expect(v1).toBeGreaterThan(v0);
        const before = await snapshot(call, id);
        for (const stale of [tag(v0), tag(v1 + 1), tag(v1 + 1000)]) {
          const res = await target.send(stale);
          expectError(res, 412, "precondition_failed");
          note(`412 ${name}`);
          expect(await snapshot(call, id), `${name} with If-Match ${stale} (version ${v1}) refused, yet something changed`).toEqual(before);
        }
        const res = await target.send(variant === "*" ? "*" : tag(v1));
        expect(res.status, `${name} If-Match ${variant}\n${res.text}`).toBe(200);
        if (target.deletesTournament) {
          expectError(await call("GET", `/tournaments/${id}`), 404, "not_found");
          return;
        }
        const v2 = await versionOf(call, id);
        expect(v2, `${name}: the change it made`).toBeGreaterThan(v1);
        expect(await snapshot(call, id)).not.toEqual(before);
      });
    }
  }

  it("PATCH tournament: If-Match with any version but the current is 412 and changes nothing", async () => {
    const target = await targets["PATCH tournament"]();
    const v = await versionOf(target.call, target.id);
    const before = await snapshot(target.call, target.id);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000_000 }).filter((x) => x !== v), async (x) => {
        const res = await target.send(tag(x));
        expectError(res, 412, "precondition_failed");
      }),
      { numRuns: runs(15), seed: SEED + 41, endOnFailure: true },
    );
    expect(await snapshot(target.call, target.id)).toEqual(before);
    // Without the header it goes through as it always did.
    expectStatus(await target.send(), 200);
    expect(await versionOf(target.call, target.id)).toBeGreaterThan(v);
  });

  it("lost update: two PATCHes of a tournament with the same If-Match in parallel: one 200, one 412", async () => {
    const t = await tenant();
    const call = caller(t);
    const created = await call("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(created, 201);
    const id = created.body.data.id;
    for (let round = 0; round < 8; round++) {
      const v = await versionOf(call, id);
      const [k1, k2] = [await t.newKey(), await t.newKey()];
      const names = [`Alpha ${round}`, `Bravo ${round}`];
      const res = await Promise.all(
        names.map((n, i) =>
          request("PATCH", `/tournaments/${id}`, { key: [k1, k2][i].key, body: { name: n }, headers: { "if-match": tag(v) } })
        ),
      );
      expect(res.map((r) => r.status).sort(), `round ${round}: ${res.map((r) => r.text).join("\n")}`).toEqual([200, 412]);
      const lost = res.find((r) => r.status === 412)!;
      expectError(lost, 412, "precondition_failed");
      const won = names[res.findIndex((r) => r.status === 200)];
      const now = await call("GET", `/tournaments/${id}`);
      expect(now.body.data.name, `round ${round}`).toBe(won);
      expect(now.body.data.version).toBeGreaterThan(v);
    }
  });

  it("lost update: two corrections of a match with the same If-Match in parallel: one 200, one 412", async () => {
    const ev = await started({}, 2);
    const m = (await full(ev.call, ev.id)).matches[0];
    for (let round = 0; round < 6; round++) {
      const v = await versionOf(ev.call, ev.id);
      const [k1, k2] = [await ev.t.newKey(), await ev.t.newKey()];
      const bodies = [{ team1_score: round + 2, team2_score: 0 }, { team1_score: 0, team2_score: round + 2 }];
      const res = await Promise.all(
        bodies.map((body, i) =>
          request("PATCH", `/tournaments/${ev.id}/matches/${m.id}`, { key: [k1, k2][i].key, body, headers: { "if-match": tag(v) } })
        ),
      );
      expect(res.map((r) => r.status).sort(), `round ${round}: ${res.map((r) => r.text).join("\n")}`).toEqual([200, 412]);
      const won = bodies[res.findIndex((r) => r.status === 200)];
      const after = (await full(ev.call, ev.id)).matches[0];
      expect([after.team1_score, after.team2_score], `round ${round}`).toEqual([won.team1_score, won.team2_score]);
    }
  });
});

// ============================================================================
// 5. CORS
// ============================================================================
describe("CORS for change tracking (section 14)", () => {
  it("the preflight allows If-Match, If-None-Match and Last-Event-ID", async () => {
    const res = await fetch(`${apiUrl()}/tournaments/6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b`, {
      method: "OPTIONS",
      headers: {
        origin: "https://overlay.example.com",
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization, if-match, if-none-match, last-event-id",
      },
    });
    expect([200, 204]).toContain(res.status);
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/\s*,\s*/);
    for (const h of ["if-match", "if-none-match", "last-event-id"]) {
      expect(allowed, `Access-Control-Allow-Headers: ${allowed}`).toContain(h);
    }
  });

  it("responses expose ETag, the 304s too", async () => {
    const t = await tenant();
    const created = await t.request("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(created, 201);
    const path = `/tournaments/${created.body.data.id}`;
    const ok = await t.request("GET", path, { headers: { origin: "https://overlay.example.com" } });
    expectStatus(ok, 200);
    const notModified = await t.request("GET", path, {
      headers: { origin: "https://overlay.example.com", "if-none-match": ok.headers.get("etag")! },
    });
    expectStatus(notModified, 304);
    for (const res of [ok, notModified]) {
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(/\s*,\s*/);
      expect(exposed, `Access-Control-Expose-Headers on a ${res.status}`).toContain("etag");
    }
  });
});

// ============================================================================
// 6. since
// ============================================================================
describe("since: not a non-negative integer is 400 naming since (section 14)", () => {
  it("refuses -1, 1.5, abc, empty and the like; accepts 0 and the current version", async () => {
    const ev = await started({}, 3);
    const base = `/tournaments/${ev.id}/results`;
    for (const bad of ["-1", "1.5", "abc", "", "-0.5", "1a", "NaN", "Infinity", "true"]) {
      const res = await ev.call("GET", `${base}?since=${encodeURIComponent(bad)}`);
      expectError(res, 400, "validation_error", ["since"]);
    }
    const nonInteger = fc.oneof(
      fc.integer({ min: -1_000_000, max: -1 }).map(String),
      fc.tuple(fc.nat({ max: 100_000 }), fc.integer({ min: 1, max: 999 })).map(([i, f]) => `${i}.${String(f).padStart(3, "0")}`),
      fc.stringMatching(/^[a-zA-Z_-]{1,8}$/),
      fc.tuple(fc.nat({ max: 1000 }), fc.stringMatching(/^[a-zA-Z]{1,3}$/)).map(([i, s]) => `${i}${s}`),
    );
    await fc.assert(
      fc.asyncProperty(nonInteger, async (bad) => {
        const res = await ev.call("GET", `${base}?since=${encodeURIComponent(bad)}`);
        expect(res.status, `since=${bad}\n${res.text}`).toBe(400);
        expectError(res, 400, "validation_error", ["since"]);
      }),
      { numRuns: runs(30), seed: SEED + 51, endOnFailure: true },
    );
    const v = await versionOf(ev.call, ev.id);
    expectStatus(await ev.call("GET", `${base}?since=0`), 200);
    expectStatus(await ev.call("GET", `${base}?since=${v}`), 200);
  });
});

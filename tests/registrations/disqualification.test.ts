// Disqualification (contract section 17): PATCH .../registrations/{id} {disqualified: true} on an
// ongoing tournament. The team forfeits its ready match and every later match it reaches or is
// placed in, in the transaction that makes that match ready (section 9's forfeit: the other team
// wins, no scores, games kept); the standings mark it and place it last among the teams placed
// alongside it; it cannot be undone.
//
// The properties play random events of every format (single elimination with and without a
// third-place match, double elimination with and without the grand final's reset, round robin
// with groups, swiss, and groups into playoffs) with random results and one or two
// disqualifications at random moments, and check after every step, against an oracle written
// here from the contract (on top of tests/support/stages-oracle.ts's standings), that no ready
// match holds a disqualified team, that every match completed in the step is the one reported
// or a forfeit of a disqualified side, that decided matches never change, and at the end that
// the event completes and the standings flag and place the disqualified teams. The events run
// as SQL through the operations api.call runs, one transaction each (rolled back), as in
// tests/stages/properties.test.ts. A new fast-check seed every run (printed); DQ_SEED=<n>
// replays one.
import fc from "fast-check";
import type pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import {
  asOwnerRole,
  type Call,
  caller,
  createTeams,
  expectError,
  expectStatus,
  type Match,
  mulberry32,
  sql,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";
import {
  doubleEliminationPlaces,
  type Format,
  type Place,
  seedsOf,
  singleEliminationPlaces,
  snakeGroup,
  swissPlaces,
} from "../support/stages-oracle.ts";

const SEED = process.env.DQ_SEED !== undefined ? Number(process.env.DQ_SEED) : Math.floor(Math.random() * 2 ** 31);
console.log(`disqualification: fast-check seed ${SEED} (DQ_SEED=<n> replays)`);

let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(16, `Dq${Date.now().toString(36)}`);
});

interface Standing {
  position: number;
  team_id: string;
  disqualified: boolean;
  group?: number;
  group_position?: number;
}

// ============================================================================
// HTTP helpers
// ============================================================================
async function startedEvent(fields: Record<string, unknown>, n: number) {
  const t = await tenant();
  const call = caller(t);
  const created = await call("POST", "/tournaments", { body: tournamentBody({ max_teams: Math.max(n, 2), ...fields }) });
  expectStatus(created, 201);
  const id: string = created.body.data.id;
  const teams = pool.slice(0, n);
  await sql(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
    [id, t.accountId, teams],
  );
  const regs = await sql<{ id: string; team_id: string }>("select id, team_id from app.registrations where tournament_id = $1", [id]);
  const reg = new Map(regs.map((r) => [r.team_id, r.id]));
  return { t, call, id, teams, reg };
}

const start = async (call: Call, id: string) =>
  expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "ongoing" } }), 200);

async function results(call: Call, id: string, stage?: number): Promise<{ matches: Match[]; standings: Standing[] }> {
  const res = await call("GET", `/tournaments/${id}/results${stage ? `?stage=${stage}` : ""}`);
  expectStatus(res, 200);
  return res.body.data;
}

const disqualify = (call: Call, id: string, regId: string, value = true) =>
  call("PATCH", `/tournaments/${id}/registrations/${regId}`, { body: { disqualified: value } });

async function report(call: Call, id: string, m: Match, winner: 1 | 2) {
  const body = winner === 1 ? { team1_score: 2, team2_score: 1 } : { team1_score: 1, team2_score: 2 };
  expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body }), 200);
}

const holding = (ms: Match[], team: string) => ms.filter((m) => m.team1_id === team || m.team2_id === team);
const sideOf = (m: Match, team: string) => (m.team1_id === team ? "team1" : "team2");
const otherOf = (m: Match, team: string) => (m.team1_id === team ? m.team2_id : m.team1_id);

/** No ready match holds a disqualified team. */
function noReadyHolds(ms: Match[], out: Set<string>, label = "") {
  const bad = ms.filter((m) => m.status === "ready" && (out.has(m.team1_id!) || out.has(m.team2_id!)));
  expect(bad.map((m) => `${m.bracket ?? ""} r${m.round} p${m.position}`), `${label}: ready matches holding a disqualified team`)
    .toEqual([]);
}

/** The match is a forfeit by `team`: the other side won, no scores. */
function forfeitedBy(m: Match, team: string) {
  expect(m.status).toBe("completed");
  expect(m.forfeit).toBe(sideOf(m, team));
  expect(m.winner_id).toBe(otherOf(m, team));
  expect([m.team1_score, m.team2_score]).toEqual([null, null]);
}

// ============================================================================
// the route
// ============================================================================
describe("PATCH .../registrations/{id} {disqualified}", () => {
  it("forfeits the team's ready match at once (games kept), sets disqualified_at, marks the standings; true again is a no-op, false is 409", async () => {
    const { call, id, teams, reg } = await startedEvent({ format_options: { best_of: 3 } }, 4);
    await start(call, id);
    let { matches } = await results(call, id);
    // seeds 1 v 4 and 2 v 3; seed 4 (teams[3]) wins a game before it is disqualified
    const semi = holding(matches, teams[3])[0];
    expectStatus(
      await call("PUT", `/tournaments/${id}/matches/${semi.id}/games/1`, {
        body: semi.team1_id === teams[3] ? { team1_score: 13, team2_score: 7 } : { team1_score: 7, team2_score: 13 },
      }),
      200,
    );
    const res = await disqualify(call, id, reg.get(teams[3])!);
    expectStatus(res, 200);
    expect(res.body.data.disqualified_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const got = await call("GET", `/tournaments/${id}/registrations/${reg.get(teams[3])}`);
    expect(got.body.data.disqualified_at).toBe(res.body.data.disqualified_at);

    ({ matches } = await results(call, id));
    const after = matches.find((m) => m.id === semi.id)!;
    forfeitedBy(after, teams[3]);
    expect(after.games).toHaveLength(1);
    // its opponent went on to the final
    expect(holding(matches, teams[0]).some((m) => m.round === 2)).toBe(true);

    // Not reversible; true again changes nothing.
    expectError(await disqualify(call, id, reg.get(teams[3])!, false), 409, "invalid_status_transition");
    const again = await disqualify(call, id, reg.get(teams[3])!);
    expectStatus(again, 200);
    expect(again.body.data.disqualified_at).toBe(res.body.data.disqualified_at);
    // false on a team that is not disqualified changes nothing either
    expectStatus(await disqualify(call, id, reg.get(teams[1])!, false), 200);

    const { standings } = await results(call, id);
    expect(standings).toEqual([
      expect.objectContaining({ position: 3, team_id: teams[3], disqualified: true }),
    ]);
    expect(Object.keys(standings[0]).sort()).toEqual(["disqualified", "position", "team_id", "team_name", "team_tag"]);
  });

  it("409 invalid_status_transition while in registration and once completed", async () => {
    const { call, id, teams, reg } = await startedEvent({}, 2);
    expectError(await disqualify(call, id, reg.get(teams[0])!), 409, "invalid_status_transition");
    await start(call, id);
    const { matches } = await results(call, id);
    await report(call, id, matches[0], 1);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
    expectError(await disqualify(call, id, reg.get(teams[1])!), 409, "invalid_status_transition");
    const [{ n }] = await sql<{ n: number }>(
      "select count(*)::int as n from app.registrations where tournament_id = $1 and disqualified_at is not null",
      [id],
    );
    expect(n).toBe(0);
  });

  it("the last match forfeited: the stage completes and the tournament can be completed", async () => {
    const { call, id, teams, reg } = await startedEvent({}, 2);
    await start(call, id);
    expectStatus(await disqualify(call, id, reg.get(teams[0])!), 200);
    const stages = await call("GET", `/tournaments/${id}/stages`);
    expect(stages.body.data[0].status).toBe("completed");
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
    const { standings } = await results(call, id);
    expect(standings.map((s) => [s.position, s.team_id, s.disqualified])).toEqual([[1, teams[1], false], [2, teams[0], true]]);
  });

  it("one registration.updated and a match.completed per forfeit; the version goes up once", async () => {
    const { t, call, id, teams, reg } = await startedEvent({ format: "round_robin" }, 4);
    expectStatus(await call("POST", "/webhooks", { body: { url: "http://127.0.0.1:9/dq", events: ["*"] } }), 201);
    await start(call, id);
    const v0 = (await call("GET", `/tournaments/${id}`)).body.data.version;
    const before = await sql<{ n: number }>("select count(*)::int as n from app.webhook_events where tournament_id = $1", [id]);
    expectStatus(await disqualify(call, id, reg.get(teams[2])!), 200);
    expect((await call("GET", `/tournaments/${id}`)).body.data.version).toBe(v0 + 1);
    const rows = await sql<{ type: string; payload: string }>(
      `select e.type, e.payload from app.webhook_events e join app.webhook_deliveries d on d.event_id = e.id
        where e.account_id = $1 and e.tournament_id = $2 order by d.seq offset $3`,
      [t.accountId, id, before[0].n],
    );
    const types = rows.map((r) => r.type).sort();
    // a round robin of 4: the team's three matches, all ready, all forfeited
    expect(types).toEqual(["match.completed", "match.completed", "match.completed", "registration.updated"]);
    for (const r of rows.filter((x) => x.type === "match.completed")) {
      const m = JSON.parse(r.payload).data as Match;
      forfeitedBy(m, teams[2]);
    }
    const upd = JSON.parse(rows.find((r) => r.type === "registration.updated")!.payload);
    expect(upd.data.disqualified_at).not.toBeNull();
    expect(upd.actor).toMatchObject({ type: "key" });
  });

  it("single elimination with a third-place match: the semi-final forfeited, then the third-place match the moment it is ready", async () => {
    const { call, id, teams, reg } = await startedEvent({ format_options: { third_place_match: true } }, 4);
    await start(call, id);
    expectStatus(await disqualify(call, id, reg.get(teams[1])!), 200); // seed 2, in the semi 2 v 3
    let { matches } = await results(call, id);
    forfeitedBy(matches.find((m) => m.round === 1 && holding([m], teams[1]).length)!, teams[1]);
    const third = () => matches.find((m) => m.bracket === "third_place")!;
    expect(third().status).toBe("pending");
    await report(call, id, matches.find((m) => m.round === 1 && m.status === "ready")!, 1); // seed 1 beats 4
    ({ matches } = await results(call, id));
    forfeitedBy(third(), teams[1]);
    expect(third().winner_id).toBe(teams[3]);
    await report(call, id, matches.find((m) => m.bracket === "winners" && m.round === 2)!, 2); // seed 3 wins the final
    const { standings } = await results(call, id);
    expect(standings.map((s) => [s.position, s.team_id, s.disqualified])).toEqual([
      [1, teams[2], false],
      [2, teams[0], false],
      [3, teams[3], false],
      [4, teams[1], true],
    ]);
  });

  it("single elimination: the disqualified team comes after the others out in its round (5, 5, 5, 8)", async () => {
    const { call, id, teams, reg } = await startedEvent({}, 8);
    await start(call, id);
    let { matches } = await results(call, id);
    for (const m of matches.filter((x) => x.round === 1 && x.status === "ready")) {
      if (holding([m], teams[4]).length === 0) await report(call, id, m, 1);
    }
    expectStatus(await disqualify(call, id, reg.get(teams[4])!), 200); // seed 5, in the quarter-final 4 v 5
    ({ matches } = await results(call, id));
    const { standings } = await results(call, id);
    expect(standings.map((s) => [s.position, s.disqualified])).toEqual([[5, false], [5, false], [5, false], [8, true]]);
    expect(standings[3].team_id).toBe(teams[4]);
    noReadyHolds(matches, new Set([teams[4]]));
  });

  it("double elimination: disqualified in the grand final, it forfeits the grand final and then its reset", async () => {
    const { call, id, teams, reg } = await startedEvent({ format: "double_elimination", format_options: { grand_final: "reset" } }, 4);
    await start(call, id);
    // the better seed wins everything until the grand final
    for (;;) {
      const { matches } = await results(call, id);
      const ready = matches.filter((m) => m.status === "ready" && m.bracket !== "grand_final");
      if (!ready.length) break;
      for (const m of ready) await report(call, id, m, m.team1_seed! < m.team2_seed! ? 1 : 2);
    }
    let { matches } = await results(call, id);
    const [gf1, gf2] = matches.filter((m) => m.bracket === "grand_final").sort((a, b) => a.round - b.round);
    expect([gf1.status, gf1.team1_id, gf1.team2_id]).toEqual(["ready", teams[0], teams[1]]);
    expectStatus(await disqualify(call, id, reg.get(teams[0])!), 200); // the winners' champion
    ({ matches } = await results(call, id));
    forfeitedBy(matches.find((m) => m.id === gf1.id)!, teams[0]);
    forfeitedBy(matches.find((m) => m.id === gf2.id)!, teams[0]);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
    const { standings } = await results(call, id);
    expect(standings.slice(0, 2).map((s) => [s.position, s.team_id, s.disqualified])).toEqual([[1, teams[1], false], [2, teams[0], true]]);
  });

  it("double elimination: disqualified after winning the grand final's first match, it forfeits the reset", async () => {
    const { call, id, teams, reg } = await startedEvent({ format: "double_elimination", format_options: { grand_final: "reset" } }, 4);
    await start(call, id);
    for (;;) {
      const { matches } = await results(call, id);
      const ready = matches.filter((m) => m.status === "ready" && m.bracket !== "grand_final");
      if (!ready.length) break;
      for (const m of ready) await report(call, id, m, m.team1_seed! < m.team2_seed! ? 1 : 2);
    }
    let { matches } = await results(call, id);
    const [gf1, gf2] = matches.filter((m) => m.bracket === "grand_final").sort((a, b) => a.round - b.round);
    await report(call, id, gf1, 2); // the losers' champion (seed 2) wins: a reset
    expectStatus(await disqualify(call, id, reg.get(teams[1])!), 200);
    ({ matches } = await results(call, id));
    expect(matches.find((m) => m.id === gf1.id)!.forfeit).toBeNull();
    forfeitedBy(matches.find((m) => m.id === gf2.id)!, teams[1]);
    const { standings } = await results(call, id);
    expect(standings.slice(0, 2).map((s) => [s.position, s.team_id])).toEqual([[1, teams[0]], [2, teams[1]]]);
  });

  it("a correction of a forfeit keeps working: the disqualified team sent on forfeits the next match when it is ready", async () => {
    const { call, id, teams, reg } = await startedEvent({}, 4);
    await start(call, id);
    expectStatus(await disqualify(call, id, reg.get(teams[3])!), 200);
    let { matches } = await results(call, id);
    const semi = holding(matches, teams[3])[0];
    // The organiser corrects the forfeit: the disqualified team won after all.
    const win = semi.team1_id === teams[3] ? { team1_score: 2, team2_score: 0 } : { team1_score: 0, team2_score: 2 };
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${semi.id}`, { body: win }), 200);
    ({ matches } = await results(call, id));
    expect(matches.find((m) => m.id === semi.id)!.winner_id).toBe(teams[3]);
    await report(call, id, matches.find((m) => m.round === 1 && m.status === "ready")!, 1);
    ({ matches } = await results(call, id));
    const final = matches.find((m) => m.round === 2)!;
    forfeitedBy(final, teams[3]);
    // The semi-final can no longer change: the final it feeds is completed.
    expectError(
      await call("PATCH", `/tournaments/${id}/matches/${semi.id}`, { body: { forfeit: sideOf(semi, teams[3]) } }),
      409,
      "match_locked",
    );
  });

  it("disqualified between the stages: last in its group, and placed in the playoffs all the same, it forfeits as they start", async () => {
    const { call, id, teams, reg } = await startedEvent({
      stages: [
        { format: "round_robin", format_options: { groups: 1 }, advance: { per_group: 3 } },
        { format: "single_elimination" },
      ],
    }, 3);
    await start(call, id);
    let { matches } = await results(call, id, 1);
    for (const m of matches) await report(call, id, m, 1); // the better seed wins every match
    // The group's winner is disqualified once the groups are over: last in the group, third qualifier.
    expectStatus(await disqualify(call, id, reg.get(teams[0])!), 200);
    const stage1 = async () => (await results(call, id, 1)).standings.map((s) => [s.group_position, s.team_id, s.disqualified]);
    const dropped = [[1, teams[1], false], [2, teams[2], false], [3, teams[0], true]];
    expect(await stage1()).toEqual(dropped);
    const qualifiers = (await call("GET", `/tournaments/${id}/stages/2`)).body.data.qualifiers;
    expect(qualifiers.map((q: { team_id: string }) => q.team_id)).toEqual([teams[1], teams[2], teams[0]]);
    expectStatus(await call("PATCH", `/tournaments/${id}/stages/2`, { body: { status: "ongoing" } }), 200);
    ({ matches } = await results(call, id, 2));
    noReadyHolds(matches, new Set([teams[0]]));
    // seed 3 (the disqualified team) met seed 2 in round 1: forfeited; the final is ready
    forfeitedBy(holding(matches, teams[0])[0], teams[0]);
    expect(matches.find((m) => m.round === 2)!.status).toBe("ready");
    // The groups' standings keep the disqualification's order after the playoffs start.
    expect(await stage1()).toEqual(dropped);
  });
});

// ============================================================================
// racing the organiser
// ============================================================================
describe("concurrency", () => {
  it("a disqualification racing an organiser's PATCH of the same match: no 500, a consistent end", async () => {
    const events = await Promise.all(Array.from({ length: 6 }, () => startedEvent({}, 4)));
    await Promise.all(events.map((e) => start(e.call, e.id)));
    const outcomes = await Promise.all(events.map(async ({ call, id, teams, reg }, i) => {
      const { matches } = await results(call, id);
      const semi = holding(matches, teams[3])[0];
      const body = i % 2 === 0 ? { team1_score: 2, team2_score: 1 } : { forfeit: i % 4 === 1 ? "team1" : "team2" };
      const [dq, patch] = await Promise.all([
        disqualify(call, id, reg.get(teams[3])!),
        call("PATCH", `/tournaments/${id}/matches/${semi.id}`, { body }),
      ]);
      return { dq, patch, call, id, teams, semi };
    }));
    for (const { dq, patch, call, id, teams, semi } of outcomes) {
      expectStatus(dq, 200);
      // Either order: the match reported first, or the forfeit first and the PATCH a correction of it.
      expectStatus(patch, 200);
      let { matches } = await results(call, id);
      const m = matches.find((x) => x.id === semi.id)!;
      expect(m.status).toBe("completed");
      expect([m.team1_id, m.team2_id]).toContain(m.winner_id);
      noReadyHolds(matches, new Set([teams[3]]));
      // play on: the event completes
      for (;;) {
        const ready = matches.filter((x) => x.status === "ready");
        if (!ready.length) break;
        for (const r of ready) await report(call, id, r, 1);
        ({ matches } = await results(call, id));
        noReadyHolds(matches, new Set([teams[3]]));
      }
      expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
      const final = matches.find((x) => x.round === 2)!;
      if (holding([final], teams[3]).length) forfeitedBy(final, teams[3]);
    }
  });
});

// ============================================================================
// the properties
// ============================================================================
// deno-lint-ignore no-explicit-any
type Outcome = { ok: true; data: any } | { ok: false; code: string; message: string };

/** The operations, called as api.call calls them, each in a savepoint. */
function operations(c: pg.PoolClient, tournamentId: string) {
  let n = 0;
  const run = async (fn: string, args: Record<string, unknown>): Promise<Outcome> => {
    const sp = `s${++n}`;
    await c.query(`savepoint ${sp}`);
    try {
      const { rows } = await c.query(`select app.${fn}($1::jsonb) as r`, [JSON.stringify({ tournament_id: tournamentId, ...args })]);
      await c.query(`release savepoint ${sp}`);
      return { ok: true, data: rows[0].r };
    } catch (err) {
      await c.query(`rollback to savepoint ${sp}`);
      const e = err as { hint?: string; message: string };
      return { ok: false, code: e.hint ?? "?", message: e.message };
    }
  };
  const ok = async (fn: string, args: Record<string, unknown>) => {
    const r = await run(fn, args);
    if (!r.ok) throw new Error(`${fn} ${JSON.stringify(args)} failed: ${r.code} ${r.message}`);
    return r.data;
  };
  return {
    setStatus: (status: string) => run("update_tournament", { id: tournamentId, body: { status } }),
    results: (stage?: number) => ok("tournament_results", { query: stage === undefined ? {} : { stage } }),
    startStage: (k: number) => ok("update_stage", { number: String(k), body: { status: "ongoing" } }),
    report: (m: Match, body: Record<string, unknown>) => ok("report_match", { match_id: m.id, body }),
    disqualify: (regId: string) => ok("update_registration", { registration_id: regId, body: { disqualified: true } }),
  };
}

interface StageDef {
  format: Format;
  format_options: Record<string, unknown>;
  advance?: Record<string, number>;
}

const eventArb = fc.record({
  n: fc.integer({ min: 2, max: 16 }),
  option: fc.nat({ max: 1000 }),
  groups: fc.integer({ min: 1, max: 3 }),
  perGroup: fc.integer({ min: 1, max: 2 }),
  bestNext: fc.nat({ max: 3 }),
  // when (a fraction of the event's reports) and whom to disqualify; a second one now and then
  dqs: fc.array(fc.record({ at: fc.double({ min: 0, max: 1.05, noNaN: true }), pick: fc.nat(), alive: fc.boolean() }), {
    minLength: 1,
    maxLength: 2,
  }),
  seed: fc.integer(),
});
type EventArb = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;
type Kind = "single_elimination" | "double_elimination" | "round_robin" | "swiss" | "groups_playoffs";

/** The event's stages and team count for a kind, from the random numbers (always valid). */
function eventOf(kind: Kind, e: EventArb): { n: number; stages: StageDef[]; reports: number } {
  switch (kind) {
    case "single_elimination": {
      const n = e.n;
      const third = e.option % 2 === 0;
      return { n, stages: [{ format: kind, format_options: { third_place_match: third } }], reports: n - 1 + (third && n >= 4 ? 1 : 0) };
    }
    case "double_elimination": {
      const n = Math.min(e.n, 12);
      return {
        n,
        stages: [{ format: kind, format_options: { grand_final: e.option % 3 === 0 ? "single" : "reset" } }],
        reports: 2 * n - 1,
      };
    }
    case "round_robin": {
      const g = e.groups;
      const n = Math.max(2 * g, Math.min(e.n, 5 * g, 12));
      const sizes = groupSizes(n, g);
      return {
        n,
        stages: [{ format: kind, format_options: { groups: g, points: { win: 3, loss: e.option % 4 === 0 ? 1 : 0 } } }],
        reports: sizes.reduce((s, k) => s + (k * (k - 1)) / 2, 0),
      };
    }
    case "swiss": {
      const n = Math.max(3, Math.min(e.n, 12));
      const rounds = 1 + (e.option % Math.min(n - 1, 4));
      return { n, stages: [{ format: kind, format_options: { rounds } }], reports: rounds * Math.floor(n / 2) };
    }
    case "groups_playoffs": {
      // 2 or 3 groups of 3 or 4, the top 1 or 2 of each and now and then best_next
      const g = e.groups === 3 ? 3 : 2;
      const n = Math.max(3 * g, Math.min(e.n, 4 * g));
      const sizes = groupSizes(n, g);
      const per = Math.min(e.perGroup, Math.min(...sizes) - 1);
      const best = e.bestNext % (g + 1);
      const next: Format = e.option % 2 === 0 ? "single_elimination" : "double_elimination";
      const k = per * g + best;
      return {
        n,
        stages: [
          {
            format: "round_robin",
            format_options: { groups: g, points: { win: 3, loss: 0 } },
            advance: { per_group: per, best_next: best },
          },
          {
            format: next,
            format_options: next === "single_elimination" ? { third_place_match: e.option % 4 === 0 } : { grand_final: "reset" },
          },
        ],
        reports: sizes.reduce((s, x) => s + (x * (x - 1)) / 2, 0) + (next === "single_elimination" ? k : 2 * k),
      };
    }
  }
}

function groupSizes(n: number, g: number): number[] {
  const sizes = Array(g).fill(0);
  for (let s = 1; s <= n; s++) sizes[snakeGroup(s, g) - 1]++;
  return sizes;
}

/** A random result: a forfeit now and then, else scores with a winner. */
function randomResult(random: () => number): Record<string, unknown> {
  if (random() < 0.1) return { forfeit: random() < 0.5 ? "team1" : "team2" };
  const loser = Math.floor(random() * 3);
  const winner = loser + 1 + Math.floor(random() * 3);
  return random() < 0.5 ? { team1_score: winner, team2_score: loser } : { team1_score: loser, team2_score: winner };
}

// ---------------------------------------------------------------------------------------------
// the oracle: the contract's standings with disqualified teams placed last alongside
// ---------------------------------------------------------------------------------------------
/**
 * Elimination: the teams sharing a position keep it, a disqualified one among them takes the
 * position after them (1 + the number of teams strictly better, the others of its group
 * counting as better).
 */
function eliminationWithDq(places: Place[], out: Set<string>): Map<string, number> {
  const result = new Map<string, number>();
  for (const p of places) {
    const ahead = out.has(p.team) ? places.filter((o) => o.position === p.position && !out.has(o.team)).length : 0;
    result.set(p.team, p.position + ahead);
  }
  return result;
}

/** Swiss: wins, Buchholz, seed (stages-oracle.ts), the disqualified teams after every other one. */
function swissWithDq(places: Place[], out: Set<string>): Map<string, number> {
  const order = [...places.filter((p) => !out.has(p.team)), ...places.filter((p) => out.has(p.team))];
  return new Map(order.map((p, i) => [p.team, i + 1]));
}

/**
 * Round robin (section 10) with disqualified teams after every other team, overall and in the
 * group: not disqualified first, then points, head-to-head points among the teams level on
 * points (and alike in being disqualified or not), score difference, score for, seed.
 */
function roundRobinWithDq(matches: Match[], out: Set<string>, win: number, loss: number): Place[] {
  const seeds = seedsOf(matches);
  type Row = Place & { h2h: number; dq: boolean };
  const rows = new Map<string, Row>();
  const row = (team: string, group: number) => {
    if (!rows.has(team)) {
      rows.set(team, {
        team,
        seed: seeds.get(team)!,
        position: 0,
        group,
        played: 0,
        wins: 0,
        losses: 0,
        points: 0,
        diff: 0,
        scoreFor: 0,
        h2h: 0,
        dq: out.has(team),
      });
    }
    return rows.get(team)!;
  };
  for (const m of matches) {
    const a = row(m.team1_id!, m.group!);
    const b = row(m.team2_id!, m.group!);
    if (m.status !== "completed") continue;
    const [w, l] = m.winner_id === m.team1_id ? [a, b] : [b, a];
    w.wins!++;
    l.losses!++;
    a.played!++;
    b.played!++;
    a.scoreFor! += m.team1_score ?? 0;
    b.scoreFor! += m.team2_score ?? 0;
    a.diff! += (m.team1_score ?? 0) - (m.team2_score ?? 0);
    b.diff! += (m.team2_score ?? 0) - (m.team1_score ?? 0);
  }
  for (const r of rows.values()) r.points = r.wins! * win + r.losses! * loss;
  for (const m of matches) {
    if (m.status !== "completed") continue;
    const a = rows.get(m.team1_id!)!;
    const b = rows.get(m.team2_id!)!;
    if (a.points !== b.points || a.dq !== b.dq) continue;
    a.h2h += m.winner_id === m.team1_id ? win : loss;
    b.h2h += m.winner_id === m.team2_id ? win : loss;
  }
  const cmp = (x: Row, y: Row) =>
    Number(x.dq) - Number(y.dq) || y.points! - x.points! || y.h2h - x.h2h || y.diff! - x.diff! || y.scoreFor! - x.scoreFor! ||
    x.seed - y.seed;
  const sorted = [...rows.values()].sort(cmp);
  return sorted.map((r, i) => ({ ...r, position: i + 1, groupPlace: sorted.filter((x) => x.group === r.group).indexOf(r) + 1 }));
}

/** A stage's standings by the oracle: team -> position (and group place for round robin). */
function stagePlaces(def: StageDef, matches: Match[], out: Set<string>): { positions: Map<string, number>; places: Place[] } {
  const seeds = seedsOf(matches);
  switch (def.format) {
    case "round_robin": {
      const points = def.format_options.points as { win: number; loss: number };
      const places = roundRobinWithDq(matches, out, points.win, points.loss);
      return { positions: new Map(places.map((p) => [p.team, p.position])), places };
    }
    case "swiss": {
      const places = swissPlaces(matches, seeds);
      return { positions: swissWithDq(places, out), places };
    }
    case "single_elimination": {
      const places = singleEliminationPlaces(matches, seeds);
      return { positions: eliminationWithDq(places, out), places };
    }
    case "double_elimination": {
      const places = doubleEliminationPlaces(matches, seeds);
      return { positions: eliminationWithDq(places, out), places };
    }
  }
}

/** Round robin's qualifiers (section 12): every group's top per_group, then the best_next best placed per_group + 1 (disqualified last). */
function rrQualifiers(places: Place[], advance: Record<string, number>, out: Set<string>): Set<string> {
  const per = advance.per_group;
  const ratio = (p: Place, v: number) => v / Math.max(p.played!, 1);
  const next = places.filter((p) => p.groupPlace === per + 1).sort((a, b) =>
    Number(out.has(a.team)) - Number(out.has(b.team)) || ratio(b, b.points!) - ratio(a, a.points!) ||
    ratio(b, b.diff!) - ratio(a, a.diff!) || ratio(b, b.scoreFor!) - ratio(a, a.scoreFor!) || a.seed - b.seed
  );
  return new Set([...places.filter((p) => p.groupPlace! <= per), ...next.slice(0, advance.best_next ?? 0)].map((p) => p.team));
}

/** What the runs reached (printed, and asserted where a case must have been reached). */
const seen = {
  runs: 0,
  dqs: 0,
  alive: 0,
  cascades: 0,
  bothOut: 0,
  inNextStage: 0,
  resets: 0,
  thirdPlace: 0,
  afterLastMatch: 0,
  kinds: new Map<string, number>(),
};

async function playEvent(t: Tenant, call: Call, kind: Kind, e: EventArb) {
  const event = eventOf(kind, e);
  const random = mulberry32(e.seed);
  const created = await call("POST", "/tournaments", { body: tournamentBody({ max_teams: Math.max(event.n, 2), stages: event.stages }) });
  expectStatus(created, 201);
  const id: string = created.body.data.id;
  const teams = pool.slice(0, event.n);
  await sql(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
    [id, t.accountId, teams],
  );
  const regs = await sql<{ id: string; team_id: string }>("select id, team_id from app.registrations where tournament_id = $1", [id]);
  const reg = new Map(regs.map((r) => [r.team_id, r.id]));
  const label = `${kind} ${JSON.stringify(event.stages.map((s) => [s.format_options, s.advance ?? null]))} n=${event.n} ${
    JSON.stringify(e)
  }`;

  await asOwnerRole(t.accountId, async (c) => {
    const api = operations(c, id);
    const started = await api.setStatus("ongoing");
    expect(started.ok, `${label}: ${JSON.stringify(started)}`).toBe(true);

    const out = new Set<string>();
    /** The matches decided before each disqualification, and the stage it came in. */
    const decidedAtDq = new Map<string, Set<string>>();
    const dqStage = new Map<string, number>();
    const due = e.dqs.map((d) => ({ ...d, step: Math.floor(d.at * event.reports) })).sort((a, b) => a.step - b.step);
    let prev: Match[] = (await api.results()).matches;
    let stage = 1;
    let qualifiersAtStart: { expected: Set<string>; out: Set<string> } | null = null;

    /** The step's checks: what completed in it, what stayed, no ready match holding a disqualified team. */
    const check = (now: Match[], step: string, reported: Match | null) => {
      const where = `${label}: after ${step}`;
      noReadyHolds(now, out, where);
      const before = new Map(prev.map((m) => [m.id, m]));
      let others = 0;
      for (const m of now) {
        const was = before.get(m.id);
        if (was?.status === "completed") {
          // decided matches never change (no correction here)
          expect([m.status, m.team1_id, m.team2_id, m.winner_id, m.team1_score, m.team2_score, m.forfeit], `${where}: match ${m.id}`)
            .toEqual([was.status, was.team1_id, was.team2_id, was.winner_id, was.team1_score, was.team2_score, was.forfeit]);
          continue;
        }
        if (m.status !== "completed") continue;
        if (reported && m.id === reported.id) continue;
        // completed in this step without being reported: a disqualified side's forfeit (team1's when both are)
        const loser = out.has(m.team1_id!) ? "team1" : out.has(m.team2_id!) ? "team2" : null;
        if (loser === null) {
          others++;
          continue;
        }
        if (out.has(m.team1_id!) && out.has(m.team2_id!)) seen.bothOut++;
        expect([m.forfeit, m.winner_id, m.team1_score, m.team2_score], `${where}: match ${m.id} (${m.bracket} r${m.round})`)
          .toEqual([loser, loser === "team1" ? m.team2_id : m.team1_id, null, null]);
        if (m.bracket === "grand_final" && m.round === 2) seen.resets++;
        if (m.bracket === "third_place") seen.thirdPlace++;
        if (reported || step.startsWith("start")) seen.cascades++;
      }
      expect(others, `${where}: matches completed that no one reported and no disqualified team forfeited`).toBe(0);
      if (reported) expect(now.find((m) => m.id === reported.id)!.status, where).toBe("completed");
      prev = now;
    };

    const disqualifyOne = async (d: { pick: number; alive: boolean }, step: number) => {
      const open = new Set(
        prev.filter((m) => m.stage === stage && (m.status === "ready" || m.status === "pending"))
          .flatMap((m) => [m.team1_id, m.team2_id]).filter((x): x is string => x !== null && !out.has(x)),
      );
      const candidates = (d.alive && open.size ? [...open] : teams.filter((x) => !out.has(x))).sort();
      if (!candidates.length) return;
      const team = candidates[d.pick % candidates.length];
      if (open.has(team)) seen.alive++;
      decidedAtDq.set(team, new Set(prev.filter((m) => m.status === "completed").map((m) => m.id)));
      dqStage.set(team, stage);
      const doc = await api.disqualify(reg.get(team)!);
      expect(doc.disqualified_at, label).not.toBeNull();
      out.add(team);
      seen.dqs++;
      check((await api.results()).matches, `disqualifying ${team} at step ${step}`, null);
    };

    for (let step = 0;; step++) {
      while (due.length && due[0].step <= step) await disqualifyOne(due.shift()!, step);
      const ready = prev.filter((m) => m.stage === stage && m.status === "ready");
      if (ready.length) {
        const m = ready[Math.floor(random() * ready.length)];
        await api.report(m, randomResult(random));
        check((await api.results()).matches, `reporting step ${step}`, m);
        continue;
      }
      if (stage < event.stages.length) {
        // stage 1 (groups) is decided: its qualifiers by the oracle, then the playoffs start
        const def = event.stages[0];
        const s1 = prev.filter((m) => m.stage === 1);
        const dqNow = new Set(out);
        const places = roundRobinWithDq(s1, dqNow, 3, 0);
        qualifiersAtStart = { expected: rrQualifiers(places, def.advance!, dqNow), out: dqNow };
        await api.startStage(2);
        stage = 2;
        check((await api.results()).matches, `start of stage 2 at step ${step}`, null);
        const entries = new Set(prev.filter((m) => m.stage === 2).flatMap((m) => [m.team1_id, m.team2_id]).filter((x) => x !== null));
        expect(entries, `${label}: stage 2's teams`).toEqual(qualifiersAtStart.expected);
        for (const x of out) if (entries.has(x)) seen.inNextStage++;
        continue;
      }
      break;
    }
    // disqualifications due after the last match: still ongoing, so still allowed
    while (due.length) {
      seen.afterLastMatch++;
      await disqualifyOne(due.shift()!, -1);
    }

    // The event completes.
    const end = await api.setStatus("completed");
    expect(end.ok, `${label}: ${JSON.stringify(end)}`).toBe(true);

    // Every match a disqualified team played from its disqualification on is its forfeit
    // (or, when both sides were out, team1's: then a disqualified team2 won it).
    const all: Match[] = (await api.results()).matches;
    for (const [team, decided] of decidedAtDq) {
      for (const m of holding(all, team).filter((x) => !decided.has(x.id) && x.status !== "bye")) {
        expect(m.status, `${label}: ${m.id}`).toBe("completed");
        const loser = m.forfeit === "team1" ? m.team1_id : m.team2_id;
        expect(out.has(loser!), `${label}: match ${m.id} of ${team}: forfeit ${m.forfeit}`).toBe(true);
        if (m.winner_id === team) expect([m.forfeit, out.has(m.team1_id!)], label).toEqual(["team1", true]);
      }
    }

    // Standings: each stage's, then the overall ones.
    const stageTeams = (k: number) =>
      new Set(all.filter((m) => m.stage === k).flatMap((m) => [m.team1_id, m.team2_id]).filter((x): x is string => x !== null));
    const flagged = (s: Standing[]) => new Set(s.filter((x) => x.disqualified).map((x) => x.team_id));
    const stageResults: { positions: Map<string, number>; places: Place[]; def: StageDef }[] = [];
    for (let k = 1; k <= event.stages.length; k++) {
      const def = event.stages[k - 1];
      const matches = all.filter((m) => m.stage === k);
      const inStage = stageTeams(k);
      const later = k < event.stages.length ? stageTeams(k + 1) : new Set<string>();
      // A disqualification places a team last in the stage it came in and every later one, and in
      // the stage that eliminated it; a stage it went on from before keeps its place.
      const stageOut = new Set([...out].filter((x) => inStage.has(x) && (dqStage.get(x)! <= k || !later.has(x))));
      const own: Standing[] = (await api.results(k)).standings;
      const want = stagePlaces(def, matches, stageOut);
      expect(new Map(own.map((s) => [s.team_id, s.position])), `${label}: stage ${k} standings`).toEqual(want.positions);
      expect(flagged(own), `${label}: stage ${k} flags`).toEqual(new Set([...out].filter((x) => inStage.has(x))));
      if (def.format === "round_robin") {
        const groupPlace = new Map(want.places.map((p) => [p.team, p.groupPlace]));
        for (const s of own) expect(s.group_position, `${label}: group place of ${s.team_id}`).toBe(groupPlace.get(s.team_id));
      }
      stageResults.push({ ...want, def });
    }
    const overall: Standing[] = (await api.results()).standings;
    expect(new Set(overall.map((s) => s.team_id)), label).toEqual(new Set(teams));
    expect(flagged(overall), `${label}: overall flags`).toEqual(out);
    if (event.stages.length === 2) {
      // the playoffs' places, then the groups' teams not sent on: one position per group place,
      // the disqualified ones after all the others (section 12 and 17)
      const playoffs = stageResults[1].positions;
      const went = stageTeams(2);
      const block = stageResults[0].places.filter((p) => !went.has(p.team));
      const key = (p: Place) => [Number(out.has(p.team)), p.groupPlace!];
      const lower = (a: number[], b: number[]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
      const want = new Map(playoffs);
      for (const p of block) want.set(p.team, went.size + 1 + block.filter((o) => lower(key(o), key(p))).length);
      expect(new Map(overall.map((s) => [s.team_id, s.position])), `${label}: overall standings`).toEqual(want);
    }
  });
  seen.runs++;
  seen.kinds.set(kind, (seen.kinds.get(kind) ?? 0) + 1);
}

describe("disqualification: properties", () => {
  const kinds: Kind[] = ["single_elimination", "double_elimination", "round_robin", "swiss", "groups_playoffs"];
  for (const [i, kind] of kinds.entries()) {
    it(
      `property (${kind}): random sizes, results and disqualifications; forfeits, completion and standings as the oracle says`,
      async () => {
        const t = await tenant();
        const call = caller(t);
        await fc.assert(fc.asyncProperty(eventArb, (e) => playEvent(t, call, kind, e)), { numRuns: 20, seed: SEED + i });
        console.log(
          `disqualification ${kind}: ${JSON.stringify({ ...seen, kinds: Object.fromEntries(seen.kinds) })}`,
        );
      },
      120_000,
    );
  }
  it("the properties reached the cases that matter", () => {
    expect(seen.runs).toBe(100);
    expect(seen.alive).toBeGreaterThan(20);
    expect(seen.cascades).toBeGreaterThan(5);
    expect(seen.inNextStage + seen.bothOut + seen.resets + seen.thirdPlace).toBeGreaterThan(0);
  });
});

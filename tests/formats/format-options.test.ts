// Formats (contract section 10) over HTTP: format and format_options on create/PATCH (checked
// strictly, defaults filled, locked once ongoing), single elimination's third-place match
// (checked by hand and against brackets-manager), and round robin (snake groups, circle-method
// rounds, points and tie-breaks), including a 64-team round robin made in one request.
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { BracketsManager } from "brackets-manager";
import { InMemoryDatabase } from "brackets-memory-db";
import {
  type ApiResponse,
  type Call,
  caller,
  createTeams,
  expectError,
  expectStatus,
  type GroupStanding as Standing,
  type Match,
  roundRobinOptions,
  sql,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

const SE_DEFAULTS = { third_place_match: false, best_of: 1, final_best_of: 1 };
/** A round robin's options as GET shows them. */
const rr = (groups = 1, win = 3, loss = 0) => roundRobinOptions({ groups, points: { win, loss } });
const RR_DEFAULTS = rr();

/** 64 platform teams shared by every test here; seed s is pool[s - 1] and names sort by seed. */
let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(64, `Fmt${Date.now().toString(36)}`);
});

/** Registers `teams` in this order (seed i + 1 = teams[i]). */
async function register(t: Tenant, tournamentId: string, teams: string[]): Promise<void> {
  await sql(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
    [tournamentId, t.accountId, teams],
  );
}

async function create(call: Call, overrides: Record<string, unknown>) {
  const res = await call("POST", "/tournaments", { body: tournamentBody(overrides) });
  expectStatus(res, 201);
  return res.body.data;
}

/** Creates a tournament of `format` with `options`, registers the first n pool teams and starts it. */
async function started(n: number, format: string, options?: Record<string, unknown>, t?: Tenant) {
  // A tenant passed in gets a fresh key: its other callers keep their own counts.
  const call = t ? caller({ ...t, key: (await t.newKey()).key }) : caller(t = await tenant());
  const tournament = await create(call, {
    max_teams: Math.max(n, 2),
    format,
    ...(options === undefined ? {} : { format_options: options }),
  });
  const teams = pool.slice(0, n);
  await register(t, tournament.id, teams);
  const start = await call("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } });
  expectStatus(start, 200);
  const seedOf = new Map(teams.map((team, i) => [team, i + 1]));
  return { t, call, id: tournament.id as string, teams, seedOf };
}

async function results(call: Call, id: string): Promise<{ matches: Match[]; standings: Standing[]; status: string }> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  return { matches: res.body.data.matches, standings: res.body.data.standings, status: res.body.data.tournament.status };
}

async function report(call: Call, id: string, m: Match, body: Record<string, unknown>): Promise<ApiResponse> {
  return call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body });
}

/** Reports every ready match, the better seed winning 2-1, until none is ready. */
async function playBetterSeedWins(call: Call, id: string): Promise<void> {
  for (;;) {
    const ready = (await results(call, id)).matches.filter((m) => m.status === "ready");
    if (ready.length === 0) return;
    for (const m of ready) {
      const top = m.team1_seed! < m.team2_seed!;
      expectStatus(await report(call, id, m, { team1_score: top ? 2 : 1, team2_score: top ? 1 : 2 }), 200);
    }
  }
}

function seedOrNull(seedOf: Map<string, number>, team: string | null): number | null {
  return team === null ? null : seedOf.get(team)!;
}

// ============================================================================
// format and format_options
// ============================================================================
describe("format and format_options", () => {
  it("fills each format's defaults in on create and keeps the options sent", async () => {
    const t = await tenant();
    const call = caller(t);
    const cases: [Record<string, unknown>, unknown][] = [
      [{}, ["single_elimination", SE_DEFAULTS]],
      [{ format: "single_elimination" }, ["single_elimination", SE_DEFAULTS]],
      [{ format_options: {} }, ["single_elimination", SE_DEFAULTS]],
      [{ format_options: { third_place_match: true, best_of: 1, final_best_of: 1 } }, ["single_elimination", {
        third_place_match: true,
        best_of: 1,
        final_best_of: 1,
      }]],
      [{ format: "round_robin" }, ["round_robin", RR_DEFAULTS]],
      [{ format: "round_robin", format_options: { groups: 4 } }, ["round_robin", rr(4)]],
      [{ format: "round_robin", format_options: { points: { win: 2 } } }, ["round_robin", rr(1, 2, 0)]],
      [{ format: "round_robin", format_options: { points: { loss: -1 } } }, ["round_robin", rr(1, 3, -1)]],
      [{ format: "round_robin", format_options: { groups: 512, points: { win: 100, loss: -10 }, best_of: 1 } }, [
        "round_robin",
        rr(512, 100, -10),
      ]],
    ];
    for (const [overrides, expected] of cases) {
      const res = await call("POST", "/tournaments", { body: tournamentBody(overrides) });
      expectStatus(res, 201);
      expect([res.body.data.format, res.body.data.format_options], JSON.stringify(overrides)).toEqual(expected);
      const got = await call("GET", `/tournaments/${res.body.data.id}`);
      expectStatus(got, 200);
      expect([got.body.data.format, got.body.data.format_options]).toEqual(expected);
    }
  });

  // [format (undefined: not sent), format_options, field named in details]
  const invalid: [string | undefined, unknown, string][] = [
    [undefined, { bogus: 1 }, "format_options.bogus"],
    ["single_elimination", { third_place_match: "yes" }, "format_options.third_place_match"],
    ["single_elimination", { third_place_match: 1 }, "format_options.third_place_match"],
    ["single_elimination", { third_place_match: null }, "format_options.third_place_match"],
    ["single_elimination", { groups: 2 }, "format_options.groups"],
    [undefined, { points: { win: 1 } }, "format_options.points"],
    ["round_robin", { third_place_match: true }, "format_options.third_place_match"],
    ["round_robin", { groups: 0 }, "format_options.groups"],
    ["round_robin", { groups: 513 }, "format_options.groups"],
    ["round_robin", { groups: 1.5 }, "format_options.groups"],
    ["round_robin", { groups: "2" }, "format_options.groups"],
    ["round_robin", { groups: null }, "format_options.groups"],
    ["round_robin", { points: 3 }, "format_options.points"],
    ["round_robin", { points: { tie: 1 } }, "format_options.points.tie"],
    ["round_robin", { points: { win: 101 } }, "format_options.points.win"],
    ["round_robin", { points: { win: "3" } }, "format_options.points.win"],
    ["round_robin", { points: { loss: -11 } }, "format_options.points.loss"],
    ["round_robin", { points: { loss: 0.5 } }, "format_options.points.loss"],
    ["round_robin", { rounds: 3 }, "format_options.rounds"],
    ["round_robin", [], "format_options"],
    ["round_robin", "groups=2", "format_options"],
    ["round_robin", null, "format_options"],
  ];

  it.each(invalid)("create: format %s with options %j is 400 validation_error naming %s", async (format, options, field) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", {
      body: tournamentBody({ ...(format === undefined ? {} : { format }), format_options: options }),
    });
    expectError(res, 400, "validation_error", [field]);
    const list = await t.request("GET", "/tournaments");
    expectStatus(list, 200);
    expect(list.body.pagination.total).toBe(0);
  });

  it.each(invalid)("PATCH: format %s with options %j is 400 validation_error naming %s", async (format, options, field) => {
    const t = await tenant();
    // Without `format` in the body the options are checked against the stored format (here the
    // format the case names, or single elimination).
    const tournament = await create(t.request, { format: format ?? "single_elimination" });
    const body = { ...(format === undefined ? {} : { format }), format_options: options };
    expectError(await t.request("PATCH", `/tournaments/${tournament.id}`, { body }), 400, "validation_error", [field]);
    // The same options without `format` in the body: checked against the stored format.
    if (format !== undefined) {
      expectError(
        await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { format_options: options } }),
        400,
        "validation_error",
        [field],
      );
    }
    const got = await t.request("GET", `/tournaments/${tournament.id}`);
    expect(got.body.data.format_options).toEqual(tournament.format_options);
  });

  it("checks PATCHed options against the stored format when the body names none", async () => {
    const t = await tenant();
    const se = await create(t.request, {});
    const rr = await create(t.request, { format: "round_robin" });
    expectError(await t.request("PATCH", `/tournaments/${se.id}`, { body: { format_options: { groups: 2 } } }), 400, "validation_error", [
      "format_options.groups",
    ]);
    expectError(
      await t.request("PATCH", `/tournaments/${rr.id}`, { body: { format_options: { third_place_match: true } } }),
      400,
      "validation_error",
      ["format_options.third_place_match"],
    );
    expectError(
      await t.request("PATCH", `/tournaments/${rr.id}`, { body: { format_options: { points: { win: 200 } } } }),
      400,
      "validation_error",
      ["format_options.points.win"],
    );
  });

  it.each(["battle_royale", "SINGLE_ELIMINATION", "", 1, null])("returns 400 validation_error for format %j", async (format) => {
    const t = await tenant();
    expectError(await t.request("POST", "/tournaments", { body: tournamentBody({ format }) }), 400, "validation_error", ["format"]);
    const tournament = await create(t.request, {});
    expectError(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { format } }), 400, "validation_error", ["format"]);
  });

  it("PATCH: changes options, and a format change without options resets to the new format's defaults", async () => {
    const t = await tenant();
    const call = caller(t);
    const tournament = await create(call, { format_options: { third_place_match: true, best_of: 1, final_best_of: 1 } });
    const patch = async (body: Record<string, unknown>, expected: unknown) => {
      const res = await call("PATCH", `/tournaments/${tournament.id}`, { body });
      expectStatus(res, 200);
      expect([res.body.data.format, res.body.data.format_options], JSON.stringify(body)).toEqual(expected);
      const got = await call("GET", `/tournaments/${tournament.id}`);
      expect([got.body.data.format, got.body.data.format_options]).toEqual(expected);
    };
    await patch({ name: "Renamed" }, ["single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 }]);
    await patch({ format: "single_elimination" }, ["single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 }]);
    await patch({ format: "round_robin" }, ["round_robin", RR_DEFAULTS]);
    await patch({ format_options: { groups: 2, points: { win: 2, loss: 1 }, best_of: 1 } }, ["round_robin", rr(2, 2, 1)]);
    await patch({ max_teams: 16 }, ["round_robin", rr(2, 2, 1)]);
    await patch({ format: "single_elimination" }, ["single_elimination", SE_DEFAULTS]);
    await patch({ format: "round_robin", format_options: { groups: 3 } }, ["round_robin", rr(3)]);
    await patch({ format: "single_elimination", format_options: { third_place_match: true, best_of: 1, final_best_of: 1 } }, [
      "single_elimination",
      { third_place_match: true, best_of: 1, final_best_of: 1 },
    ]);
  });

  it("a PATCH that changes the format and starts the tournament makes the new format's matches", async () => {
    const t = await tenant();
    const tournament = await create(t.request, { max_teams: 4 });
    await register(t, tournament.id, pool.slice(0, 4));
    const res = await t.request("PATCH", `/tournaments/${tournament.id}`, {
      body: { status: "ongoing", format: "round_robin", format_options: { groups: 2 } },
    });
    expectStatus(res, 200);
    expect([res.body.data.status, res.body.data.format, res.body.data.format_options])
      .toEqual(["ongoing", "round_robin", rr(2)]);
    const { matches } = await results(t.request, tournament.id);
    expect(matches.map((m) => [m.group, m.round, pairsOf([m])[0]])).toEqual([[1, 1, "1-4"], [2, 1, "2-3"]]);
  });

  it("a PATCH that sets third_place_match and starts the tournament makes the third-place match", async () => {
    const t = await tenant();
    const tournament = await create(t.request, { max_teams: 4 });
    await register(t, tournament.id, pool.slice(0, 4));
    const res = await t.request("PATCH", `/tournaments/${tournament.id}`, {
      body: { status: "ongoing", format_options: { third_place_match: true, best_of: 1, final_best_of: 1 } },
    });
    expectStatus(res, 200);
    expect(res.body.data.format_options).toEqual({ third_place_match: true, best_of: 1, final_best_of: 1 });
    const { matches } = await results(t.request, tournament.id);
    expect(matches.map((m) => [m.bracket, m.round, m.position])).toEqual([
      ["winners", 1, 1],
      ["winners", 1, 2],
      ["winners", 2, 1],
      ["third_place", 2, 1],
    ]);
  });

  it("locks format and format_options once ongoing and completed; resending them unchanged is 200", async () => {
    const { call, id } = await started(2, "round_robin", { points: { win: 2 } });
    const url = `/tournaments/${id}`;
    const current = (await call("GET", url)).body.data;
    expect(current.format_options).toEqual(rr(1, 2, 0));
    const check = async () => {
      for (
        const body of [
          { format: "single_elimination" },
          { format_options: { groups: 1, points: { win: 3, loss: 0 }, best_of: 1 } },
          { format: "round_robin", format_options: { groups: 1, points: { win: 2, loss: 1 }, best_of: 1 } },
          { format: "single_elimination", format_options: { third_place_match: false, best_of: 1, final_best_of: 1 } },
        ]
      ) {
        expectError(await call("PATCH", url, { body }), 409, "tournament_locked");
      }
      for (
        const body of [
          { format: "round_robin" },
          { format_options: current.format_options },
          { format: current.format, format_options: current.format_options, name: current.name },
        ]
      ) {
        const res = await call("PATCH", url, { body });
        expectStatus(res, 200);
        expect([res.body.data.format, res.body.data.format_options]).toEqual([current.format, current.format_options]);
      }
    };
    await check();
    const [m] = (await results(call, id)).matches;
    expectStatus(await report(call, id, m, { team1_score: 1, team2_score: 0 }), 200);
    expectStatus(await call("PATCH", url, { body: { status: "completed" } }), 200);
    await check();
  });

  it("locks third_place_match once a single elimination is ongoing", async () => {
    const { call, id } = await started(4, "single_elimination");
    const url = `/tournaments/${id}`;
    expectError(
      await call("PATCH", url, { body: { format_options: { third_place_match: true, best_of: 1, final_best_of: 1 } } }),
      409,
      "tournament_locked",
    );
    expectError(await call("PATCH", url, { body: { format: "round_robin" } }), 409, "tournament_locked");
    const res = await call("PATCH", url, {
      body: { format: "single_elimination", format_options: { third_place_match: false, best_of: 1, final_best_of: 1 } },
    });
    expectStatus(res, 200);
    expect(res.body.data.format_options).toEqual(SE_DEFAULTS);
    expect((await results(call, id)).matches.some((m) => m.bracket === "third_place")).toBe(false);
  });
});

// ============================================================================
// single elimination: third-place match
// ============================================================================
// [bracket, round, position, team1 seed, team2 seed, winner seed, status] once the better seed
// has won every match; byes have a null team2.
type Row = [string | null, number, number, number | null, number | null, number | null, string];
const THIRD_PLACE: Record<number, { rows: Row[]; standings: [number, number][] }> = {
  4: {
    rows: [
      ["winners", 1, 1, 1, 4, 1, "completed"],
      ["winners", 1, 2, 2, 3, 2, "completed"],
      ["winners", 2, 1, 1, 2, 1, "completed"],
      ["third_place", 2, 1, 4, 3, 3, "completed"],
    ],
    standings: [[1, 1], [2, 2], [3, 3], [4, 4]],
  },
  6: {
    rows: [
      ["winners", 1, 1, 1, null, 1, "bye"],
      ["winners", 1, 2, 4, 5, 4, "completed"],
      ["winners", 1, 3, 2, null, 2, "bye"],
      ["winners", 1, 4, 3, 6, 3, "completed"],
      ["winners", 2, 1, 1, 4, 1, "completed"],
      ["winners", 2, 2, 2, 3, 2, "completed"],
      ["winners", 3, 1, 1, 2, 1, "completed"],
      ["third_place", 3, 1, 4, 3, 3, "completed"],
    ],
    standings: [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [5, 6]],
  },
  8: {
    rows: [
      ["winners", 1, 1, 1, 8, 1, "completed"],
      ["winners", 1, 2, 4, 5, 4, "completed"],
      ["winners", 1, 3, 2, 7, 2, "completed"],
      ["winners", 1, 4, 3, 6, 3, "completed"],
      ["winners", 2, 1, 1, 4, 1, "completed"],
      ["winners", 2, 2, 2, 3, 2, "completed"],
      ["winners", 3, 1, 1, 2, 1, "completed"],
      ["third_place", 3, 1, 4, 3, 3, "completed"],
    ],
    standings: [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [5, 6], [5, 7], [5, 8]],
  },
};

function rows(matches: Match[], seedOf: Map<string, number>): Row[] {
  return matches.map((
    m,
  ) => [
    m.bracket,
    m.round,
    m.position,
    seedOrNull(seedOf, m.team1_id),
    seedOrNull(seedOf, m.team2_id),
    seedOrNull(seedOf, m.winner_id),
    m.status,
  ]);
}

function standingSeeds(standings: Standing[], seedOf: Map<string, number>): [number, number][] {
  return standings.map((s) => [s.position, seedOf.get(s.team_id)!]);
}

/**
 * brackets-manager's single elimination with a consolation final, the better seed always
 * winning: its pairings as [bracket, round, position, seed1, seed2] and its final standings as
 * [rank, seed]. Conventions that differ, translated here: brackets-manager puts the
 * consolation final in a group of its own (group 2, round 1) where the API has bracket
 * `third_place` in the final's round; its byes are matches with a null opponent, as the API's
 * `bye` matches have a null team2.
 */
async function bracketsManagerThirdPlace(n: number) {
  const storage = new InMemoryDatabase();
  const manager = new BracketsManager(storage);
  let size = 1;
  while (size < n) size *= 2;
  const seeding = Array.from({ length: size }, (_, i) => (i < n ? `S${i + 1}` : null));
  await manager.create.stage({
    tournamentId: 0,
    name: "Third place",
    type: "single_elimination",
    seeding,
    settings: { consolationFinal: true },
  });
  // deno-lint-ignore no-explicit-any
  const all = async (table: string) => (await storage.select(table as never)) as any[];
  const seedOf = new Map((await all("participant")).map((p) => [p.id, Number(String(p.name).slice(1))]));
  for (;;) {
    const ready = (await all("match")).find((m) => m.opponent1?.id != null && m.opponent2?.id != null && m.opponent1.result === undefined);
    if (!ready) break;
    const top = seedOf.get(ready.opponent1.id)! < seedOf.get(ready.opponent2.id)!;
    await manager.update.match({
      id: ready.id,
      opponent1: { score: top ? 2 : 1, result: top ? "win" : "loss" },
      opponent2: { score: top ? 1 : 2, result: top ? "loss" : "win" },
    });
  }
  const groups = await all("group");
  const rounds = await all("round");
  const finalRound = Math.log2(size);
  const pairings = (await all("match")).map((m) => {
    const group = groups.find((g) => g.id === m.group_id).number;
    const round = rounds.find((r) => r.id === m.round_id).number;
    return [
      group === 1 ? "winners" : "third_place",
      group === 1 ? round : finalRound,
      m.number,
      m.opponent1?.id == null ? null : seedOf.get(m.opponent1.id),
      m.opponent2?.id == null ? null : seedOf.get(m.opponent2.id),
    ];
  });
  const standings = (await manager.get.finalStandings(0)).map((s) => [s.rank, seedOf.get(s.id)!])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { pairings, standings };
}

describe("single elimination with a third-place match", () => {
  it(
    "property: any N 2..64, with or without it, random results always complete; every team plays, none twice in a round; standings as the contract ranks them",
    async () => {
      const t = await tenant();
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 2, max: 64 }),
          fc.boolean(),
          fc.infiniteStream(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 9 }))),
          async (n, third, outcomes) => {
            const { call, id, teams } = await started(n, "single_elimination", { third_place_match: third }, t);
            const draws = outcomes[Symbol.iterator]();
            for (;;) {
              const ready = (await results(call, id)).matches.filter((m) => m.status === "ready");
              if (ready.length === 0) break;
              for (const m of ready) {
                const [a, b, f] = draws.next().value!;
                const body = f === 0
                  ? { forfeit: "team1" }
                  : f === 1
                  ? { forfeit: "team2" }
                  : { team1_score: a, team2_score: a === b ? b + 1 : b };
                expectStatus(await report(call, id, m, body), 200);
              }
            }
            const { matches, standings } = await results(call, id);
            // Every team plays; no team twice in a round of a bracket.
            const seen = new Set(matches.flatMap((m) => [m.team1_id, m.team2_id]).filter((x) => x !== null));
            expect(seen).toEqual(new Set(teams));
            for (const key of new Set(matches.map((m) => `${m.bracket}:${m.round}`))) {
              const inRound = matches.filter((m) => `${m.bracket}:${m.round}` === key)
                .flatMap((m) => [m.team1_id, m.team2_id]).filter((x) => x !== null);
              expect(new Set(inRound).size, key).toBe(inRound.length);
            }
            // Standings, computed here: a loser in round r of R takes 2^(R-r) + 1; the champion 1;
            // with a third-place match (4+ teams) its winner 3 and loser 4, instead of 3, 3.
            const rounds = Math.max(...matches.filter((m) => m.bracket === "winners").map((m) => m.round));
            const thirdMatch = matches.find((m) => m.bracket === "third_place");
            expect(Boolean(thirdMatch)).toBe(third && n >= 4);
            const loser = (m: Match) => (m.winner_id === m.team1_id ? m.team2_id : m.team1_id)!;
            const expected = new Map<string, number>();
            for (const m of matches.filter((x) => x.bracket === "winners" && x.status === "completed")) {
              if (thirdMatch && m.round === rounds - 1) continue;
              expected.set(loser(m), 2 ** (rounds - m.round) + 1);
              if (m.round === rounds) expected.set(m.winner_id!, 1);
            }
            if (thirdMatch) {
              expected.set(thirdMatch.winner_id!, 3);
              expected.set(loser(thirdMatch), 4);
            }
            expect(new Map(standings.map((s) => [s.team_id, s.position]))).toEqual(expected);
            expect(expected.size).toBe(n);
            expect(standings.map((s) => s.position)).toEqual([...standings.map((s) => s.position)].sort((x, y) => x - y));
            const done = await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } });
            expectStatus(done, 200);
            runs++;
          },
        ),
        { numRuns: 12 },
      );
      expect(runs).toBeGreaterThanOrEqual(12);
    },
    240_000,
  );

  it.each([4, 6, 8])("N = %i: the semi-final losers play for 3rd; standings 1, 2, 3, 4, then 5", async (n) => {
    const { call, id, seedOf } = await started(n, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    const before = await results(call, id);
    const final = before.matches.find((m) => m.bracket === "winners" && m.next_match_id === null)!;
    const third = before.matches.filter((m) => m.bracket === "third_place");
    expect(third).toHaveLength(1);
    expect([
      third[0].round,
      third[0].position,
      third[0].status,
      third[0].team1_id,
      third[0].team2_id,
      third[0].next_match_id,
      third[0].loser_next_match_id,
      third[0].group,
    ]).toEqual([final.round, 1, "pending", null, null, null, null, null]);
    // Only the semi-finals send their loser on, to the third-place match.
    for (const m of before.matches) {
      const semi = m.bracket === "winners" && m.next_match_id === final.id;
      expect(m.loser_next_match_id, `${m.round}/${m.position}`).toBe(semi ? third[0].id : null);
    }
    // Order: bracket (winners before third_place), then round, then position.
    expect(before.matches.at(-1)!.bracket).toBe("third_place");

    await playBetterSeedWins(call, id);
    const after = await results(call, id);
    expect(rows(after.matches, seedOf)).toEqual(THIRD_PLACE[n].rows);
    expect(standingSeeds(after.standings, seedOf)).toEqual(THIRD_PLACE[n].standings);
    expect(Object.keys(after.standings[0]).sort()).toEqual(["disqualified", "position", "team_id", "team_name", "team_tag"]);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
  });

  it.each([4, 5, 6, 8])("N = %i: same pairings and final standings as brackets-manager's consolation final", async (n) => {
    const { call, id, seedOf } = await started(n, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    await playBetterSeedWins(call, id);
    const { matches, standings } = await results(call, id);
    const reference = await bracketsManagerThirdPlace(n);
    const ours = matches.map((m) => [m.bracket, m.round, m.position, m.team1_seed, m.team2_seed]);
    const key = (r: unknown[]) => JSON.stringify(r.slice(0, 3));
    expect([...ours].sort((a, b) => key(a).localeCompare(key(b))))
      .toEqual([...reference.pairings].sort((a, b) => key(a).localeCompare(key(b))));
    expect(standingSeeds(standings, seedOf).sort((a, b) => a[0] - b[0] || a[1] - b[1])).toEqual(reference.standings);
  });

  it("without the option the semi-final losers share 3rd (N = 4: standings 1, 2, 3, 3)", async () => {
    const { call, id, seedOf } = await started(4, "single_elimination");
    await playBetterSeedWins(call, id);
    const { matches, standings } = await results(call, id);
    expect(matches.some((m) => m.bracket === "third_place" || m.loser_next_match_id !== null)).toBe(false);
    expect(standingSeeds(standings, seedOf)).toEqual([[1, 1], [2, 2], [3, 3], [3, 4]]);
  });

  // Documented rule: a third-place match needs semi-finals of two teams, so 4+ participants.
  // (brackets-manager differs for N = 3: it makes a consolation final of one team and a BYE.)
  it.each([2, 3])("N = %i: no third-place match even with the option", async (n) => {
    const { call, id, seedOf } = await started(n, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    const before = await results(call, id);
    expect(before.matches.some((m) => m.bracket === "third_place" || m.loser_next_match_id !== null)).toBe(false);
    expect(before.matches).toHaveLength(n === 2 ? 1 : 3);
    await playBetterSeedWins(call, id);
    const { standings } = await results(call, id);
    expect(standingSeeds(standings, seedOf)).toEqual(n === 2 ? [[1, 1], [2, 2]] : [[1, 1], [2, 2], [3, 3]]);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
  });

  it("places the semi-final losers only once the third-place match is decided", async () => {
    const { call, id, seedOf } = await started(4, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    const { matches } = await results(call, id);
    const [semi1, semi2, final] = matches;
    expectStatus(await report(call, id, semi1, { team1_score: 2, team2_score: 0 }), 200);
    expectStatus(await report(call, id, semi2, { team1_score: 2, team2_score: 0 }), 200);
    expect((await results(call, id)).standings).toEqual([]);
    expectStatus(await report(call, id, final, { team1_score: 2, team2_score: 0 }), 200);
    expect(standingSeeds((await results(call, id)).standings, seedOf)).toEqual([[1, 1], [2, 2]]);
  });

  it("a semi-final correction moves the new loser into the third-place match; 409 match_locked once it is completed", async () => {
    const { call, id, seedOf } = await started(4, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    const [semi1, semi2] = (await results(call, id)).matches;
    expectStatus(await report(call, id, semi1, { team1_score: 2, team2_score: 1 }), 200);
    expectStatus(await report(call, id, semi2, { team1_score: 2, team2_score: 1 }), 200);
    let now = await results(call, id);
    expect(rows(now.matches, seedOf).slice(2)).toEqual([
      ["winners", 2, 1, 1, 2, null, "ready"],
      ["third_place", 2, 1, 4, 3, null, "ready"],
    ]);

    // Seed 4 wins semi-final 1 after all: it goes to the final, seed 1 to the third-place match.
    const corrected = await report(call, id, semi1, { team1_score: 0, team2_score: 3 });
    expectStatus(corrected, 200);
    expect(seedOf.get(corrected.body.data.winner_id)).toBe(4);
    now = await results(call, id);
    expect(rows(now.matches, seedOf).slice(2)).toEqual([
      ["winners", 2, 1, 4, 2, null, "ready"],
      ["third_place", 2, 1, 1, 3, null, "ready"],
    ]);

    const third = now.matches[3];
    expectStatus(await report(call, id, third, { team1_score: 2, team2_score: 0 }), 200);
    for (const semi of [semi1, semi2]) {
      expectError(await report(call, id, semi, { team1_score: 2, team2_score: 1 }), 409, "match_locked");
      expectError(await report(call, id, semi, { forfeit: "team1" }), 409, "match_locked");
    }
    now = await results(call, id);
    expect(rows(now.matches, seedOf)).toEqual([
      ["winners", 1, 1, 1, 4, 4, "completed"],
      ["winners", 1, 2, 2, 3, 2, "completed"],
      ["winners", 2, 1, 4, 2, null, "ready"],
      ["third_place", 2, 1, 1, 3, 1, "completed"],
    ]);
    // The third-place match itself may still be corrected (it feeds nothing).
    expectStatus(await report(call, id, third, { team1_score: 0, team2_score: 2 }), 200);
    expectStatus(await report(call, id, now.matches[2], { team1_score: 2, team2_score: 1 }), 200);
    expect(standingSeeds((await results(call, id)).standings, seedOf)).toEqual([[1, 4], [2, 2], [3, 3], [4, 1]]);
  });

  it("completion needs the third-place match decided too (409 invalid_status_transition before)", async () => {
    const { call, id, seedOf } = await started(4, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    const url = `/tournaments/${id}`;
    const [semi1, semi2, final] = (await results(call, id)).matches;
    expectStatus(await report(call, id, semi1, { team1_score: 2, team2_score: 0 }), 200);
    expectStatus(await report(call, id, semi2, { team1_score: 2, team2_score: 0 }), 200);
    expectStatus(await report(call, id, final, { team1_score: 2, team2_score: 0 }), 200);
    expectError(await call("PATCH", url, { body: { status: "completed" } }), 409, "invalid_status_transition");
    expect((await call("GET", url)).body.data.status).toBe("ongoing");
    const third = (await results(call, id)).matches[3];
    expectStatus(await report(call, id, third, { forfeit: "team1" }), 200);
    const done = await call("PATCH", url, { body: { status: "completed" } });
    expectStatus(done, 200);
    expect(done.body.data.status).toBe("completed");
    expect(standingSeeds((await results(call, id)).standings, seedOf)).toEqual([[1, 1], [2, 2], [3, 3], [4, 4]]);
    expectError(await report(call, id, third, { team1_score: 2, team2_score: 0 }), 409, "match_locked");
  });

  it("deletes an ongoing tournament with a third-place match, its matches with it", async () => {
    const { call, id } = await started(8, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    const [first] = (await results(call, id)).matches;
    expectStatus(await report(call, id, first, { team1_score: 2, team2_score: 0 }), 200);
    const res = await call("DELETE", `/tournaments/${id}`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ message: "Tournament deleted" });
    expectError(await call("GET", `/tournaments/${id}/results`), 404, "not_found");
    const [{ count }] = await sql<{ count: number }>(
      "select count(*)::int as count from app.matches where tournament_id = $1",
      [id],
    );
    expect(count).toBe(0);
  });

  it("completion needs the final too when the third-place match is decided first", async () => {
    const { call, id } = await started(4, "single_elimination", { third_place_match: true, best_of: 1, final_best_of: 1 });
    const [semi1, semi2] = (await results(call, id)).matches;
    expectStatus(await report(call, id, semi1, { team1_score: 2, team2_score: 0 }), 200);
    expectStatus(await report(call, id, semi2, { team1_score: 2, team2_score: 0 }), 200);
    expectStatus(await report(call, id, (await results(call, id)).matches[3], { team1_score: 2, team2_score: 0 }), 200);
    expectError(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 409, "invalid_status_transition");
  });
});

// ============================================================================
// round robin
// ============================================================================
/** Snake order: seeds 1..G to groups 1..G, G+1..2G to groups G..1, and so on. */
function snakeGroup(seed: number, groups: number): number {
  const row = Math.floor((seed - 1) / groups);
  const col = (seed - 1) % groups;
  return row % 2 === 0 ? col + 1 : groups - col;
}

/** Checks a freshly made round robin of n teams (seeds 1..n) in g groups. */
function checkRoundRobin(matches: Match[], n: number, g: number): void {
  const groupOf = new Map<number, number>();
  for (let s = 1; s <= n; s++) groupOf.set(s, snakeGroup(s, g));
  const sizes = Array.from({ length: g }, (_, i) => [...groupOf.values()].filter((x) => x === i + 1).length);
  expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  expect(Math.min(...sizes)).toBeGreaterThanOrEqual(2);

  const expectedCount = sizes.reduce((a, k) => a + (k * (k - 1)) / 2, 0);
  expect(matches).toHaveLength(expectedCount);
  // Ordered by group, round, position; positions 1..k within a group's round.
  const order = matches.map((m) => [m.group!, m.round, m.position]);
  expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]));
  const seen = new Set<string>();
  const inRound = new Map<string, Set<number>>();
  const positions = new Map<string, number[]>();
  for (const m of matches) {
    expect([m.bracket, m.next_match_id, m.loser_next_match_id, m.status, m.winner_id]).toEqual([null, null, null, "ready", null]);
    const [a, b] = [m.team1_seed!, m.team2_seed!];
    expect(a).not.toBe(b);
    expect(groupOf.get(a)).toBe(m.group);
    expect(groupOf.get(b)).toBe(m.group);
    const pair = `${Math.min(a, b)}-${Math.max(a, b)}`;
    expect(seen.has(pair), `pair ${pair} twice`).toBe(false);
    seen.add(pair);
    const rk = `${m.group}:${m.round}`;
    const busy = inRound.get(rk) ?? new Set<number>();
    expect(busy.has(a) || busy.has(b), `a team twice in group ${m.group} round ${m.round}`).toBe(false);
    busy.add(a).add(b);
    inRound.set(rk, busy);
    positions.set(rk, [...(positions.get(rk) ?? []), m.position]);
  }
  for (let grp = 1; grp <= g; grp++) {
    const k = sizes[grp - 1];
    const rounds = [...inRound.keys()].filter((x) => x.startsWith(`${grp}:`)).map((x) => Number(x.split(":")[1]));
    const expectedRounds = k % 2 === 0 ? k - 1 : k;
    expect(rounds.sort((x, y) => x - y)).toEqual(Array.from({ length: expectedRounds }, (_, i) => i + 1));
    for (const r of rounds) {
      expect(positions.get(`${grp}:${r}`)).toEqual(Array.from({ length: Math.floor(k / 2) }, (_, i) => i + 1));
    }
  }
}

/**
 * The standings computed here from the matches: points, head-to-head points against the teams
 * level on points, score difference, score for, seed; overall and within the group.
 */
function referenceStandings(matches: Match[], seedOf: Map<string, number>, win: number, loss: number) {
  interface Row {
    team: string;
    seed: number;
    group: number;
    wins: number;
    losses: number;
    sf: number;
    sa: number;
    points: number;
    h2h: number;
  }
  const rowsBy = new Map<string, Row>();
  const row = (team: string, group: number) => {
    if (!rowsBy.has(team)) rowsBy.set(team, { team, seed: seedOf.get(team)!, group, wins: 0, losses: 0, sf: 0, sa: 0, points: 0, h2h: 0 });
    return rowsBy.get(team)!;
  };
  for (const m of matches) {
    const [r1, r2] = [row(m.team1_id!, m.group!), row(m.team2_id!, m.group!)];
    if (m.status !== "completed") continue;
    const [w, l] = m.winner_id === m.team1_id ? [r1, r2] : [r2, r1];
    w.wins++;
    l.losses++;
    r1.sf += m.team1_score ?? 0;
    r1.sa += m.team2_score ?? 0;
    r2.sf += m.team2_score ?? 0;
    r2.sa += m.team1_score ?? 0;
  }
  for (const r of rowsBy.values()) r.points = r.wins * win + r.losses * loss;
  for (const m of matches) {
    if (m.status !== "completed") continue;
    const [r1, r2] = [rowsBy.get(m.team1_id!)!, rowsBy.get(m.team2_id!)!];
    if (r1.points !== r2.points) continue;
    r1.h2h += m.winner_id === m.team1_id ? win : loss;
    r2.h2h += m.winner_id === m.team2_id ? win : loss;
  }
  const cmp = (a: Row, b: Row) => b.points - a.points || b.h2h - a.h2h || (b.sf - b.sa) - (a.sf - a.sa) || b.sf - a.sf || a.seed - b.seed;
  const overall = [...rowsBy.values()].sort(cmp);
  return overall.map((r, i) => ({
    position: i + 1,
    group: r.group,
    group_position: overall.filter((x) => x.group === r.group).indexOf(r) + 1,
    team_id: r.team,
    wins: r.wins,
    losses: r.losses,
    points: r.points,
  }));
}

function summary(standings: Standing[]) {
  return standings.map((s) => ({
    position: s.position,
    group: s.group,
    group_position: s.group_position,
    team_id: s.team_id,
    wins: s.wins,
    losses: s.losses,
    points: s.points,
  }));
}

function pairsOf(matches: Match[]): string[] {
  return matches.map((m) => [m.team1_seed!, m.team2_seed!].sort((a, b) => a - b).join("-")).sort();
}

/** The match between two seeds. */
function between(matches: Match[], a: number, b: number): Match {
  return matches.find((m) => (m.team1_seed === a && m.team2_seed === b) || (m.team1_seed === b && m.team2_seed === a))!;
}

/** Reports that seed `w` beat seed `l` `ws`-`ls`. */
async function beat(call: Call, id: string, matches: Match[], w: number, l: number, ws = 1, ls = 0) {
  const m = between(matches, w, l);
  const body = m.team1_seed === w ? { team1_score: ws, team2_score: ls } : { team1_score: ls, team2_score: ws };
  const res = await report(call, id, m, body);
  expectStatus(res, 200);
  expect(res.body.data.team1_seed === w ? res.body.data.winner_id === m.team1_id : res.body.data.winner_id === m.team2_id).toBe(true);
}

describe("round robin", () => {
  it("N = 4, one group: every pair once, 3 rounds of 2 matches", async () => {
    const { call, id } = await started(4, "round_robin");
    const { matches, standings } = await results(call, id);
    expect(pairsOf(matches)).toEqual(["1-2", "1-3", "1-4", "2-3", "2-4", "3-4"]);
    expect(matches.map((m) => [m.group, m.round, m.position])).toEqual([
      [1, 1, 1],
      [1, 1, 2],
      [1, 2, 1],
      [1, 2, 2],
      [1, 3, 1],
      [1, 3, 2],
    ]);
    checkRoundRobin(matches, 4, 1);
    // Every team is listed from the start, with no results yet.
    expect(standings.map((s) => [s.position, s.wins, s.losses, s.points, s.group])).toEqual([
      [1, 0, 0, 0, 1],
      [2, 0, 0, 0, 1],
      [3, 0, 0, 0, 1],
      [4, 0, 0, 0, 1],
    ]);
  });

  it("N = 6, one group: every pair once, 5 rounds of 3 matches", async () => {
    const { call, id } = await started(6, "round_robin");
    const { matches } = await results(call, id);
    expect(pairsOf(matches)).toEqual([
      "1-2",
      "1-3",
      "1-4",
      "1-5",
      "1-6",
      "2-3",
      "2-4",
      "2-5",
      "2-6",
      "3-4",
      "3-5",
      "3-6",
      "4-5",
      "4-6",
      "5-6",
    ]);
    checkRoundRobin(matches, 6, 1);
  });

  it("N = 8, two groups: snake groups 1, 4, 5, 8 and 2, 3, 6, 7, every pair of a group once", async () => {
    const { call, id, seedOf } = await started(8, "round_robin", { groups: 2 });
    const { matches } = await results(call, id);
    const groupSeeds = (g: number) =>
      [
        ...new Set(
          matches.filter((m) => m.group === g)
            .flatMap((m) => [m.team1_seed!, m.team2_seed!]),
        ),
      ].sort((a, b) => a - b);
    expect(groupSeeds(1)).toEqual([1, 4, 5, 8]);
    expect(groupSeeds(2)).toEqual([2, 3, 6, 7]);
    expect(pairsOf(matches.filter((m) => m.group === 1))).toEqual(["1-4", "1-5", "1-8", "4-5", "4-8", "5-8"]);
    expect(pairsOf(matches.filter((m) => m.group === 2))).toEqual(["2-3", "2-6", "2-7", "3-6", "3-7", "6-7"]);
    expect(matches.map((m) => m.group)).toEqual([1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    checkRoundRobin(matches, 8, 2);
    for (const m of matches) expect([seedOf.get(m.team1_id!), seedOf.get(m.team2_id!)]).toEqual([m.team1_seed, m.team2_seed]);

    // The better seed wins every match 2-1: group and overall places, wins, losses, points.
    await playBetterSeedWins(call, id);
    const { standings } = await results(call, id);
    expect(standings.map((s) => [s.position, seedOf.get(s.team_id), s.group, s.group_position, s.wins, s.losses, s.points])).toEqual([
      [1, 1, 1, 1, 3, 0, 9],
      [2, 2, 2, 1, 3, 0, 9],
      [3, 3, 2, 2, 2, 1, 6],
      [4, 4, 1, 2, 2, 1, 6],
      [5, 5, 1, 3, 1, 2, 3],
      [6, 6, 2, 3, 1, 2, 3],
      [7, 7, 2, 4, 0, 3, 0],
      [8, 8, 1, 4, 0, 3, 0],
    ]);
    expect(Object.keys(standings[0]).sort()).toEqual(
      [
        "disqualified",
        "draws",
        "group",
        "group_position",
        "losses",
        "points",
        "position",
        "separated_by",
        "team_id",
        "team_name",
        "team_tag",
        "wins",
      ],
    );
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
  });

  it("property: any N 2..64 and groups 1..N/2 make every pair of a group once, in circle-method rounds", async () => {
    const t = await tenant();
    const call = caller(t);
    const made: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 64 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: Math.floor(n / 2) }))),
        async ([n, g]) => {
          const tournament = await create(call, { max_teams: n, format: "round_robin", format_options: { groups: g } });
          await register(t, tournament.id, pool.slice(0, n));
          expectStatus(await call("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
          const { matches } = await results(call, tournament.id);
          checkRoundRobin(matches, n, g);
          made.push(`${n}/${g}`);
        },
      ),
      { numRuns: 30, examples: [[[2, 1]], [[3, 1]], [[5, 2]], [[64, 32]], [[63, 31]], [[64, 1]], [[63, 1]], [[17, 4]]] },
    );
    expect(made.length).toBeGreaterThanOrEqual(30);
  }, 180_000);

  it("property: random scores and forfeits for every match let it complete; standings follow the rules", async () => {
    const t = await tenant();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 7 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: Math.floor(n / 2) }))),
        fc.record({ win: fc.integer({ min: -5, max: 5 }), loss: fc.integer({ min: -5, max: 5 }) }),
        fc.infiniteStream(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 9 }))),
        async ([n, g], points, outcomes) => {
          const { call, id, seedOf } = await started(n, "round_robin", { groups: g, points }, t);
          const url = `/tournaments/${id}`;
          const { matches } = await results(call, id);
          const draws = outcomes[Symbol.iterator]();
          for (const [i, m] of matches.entries()) {
            if (i === matches.length - 1) {
              expectError(await call("PATCH", url, { body: { status: "completed" } }), 409, "invalid_status_transition");
            }
            const [a, b, f] = draws.next().value!;
            const body = f === 0
              ? { forfeit: "team1" }
              : f === 1
              ? { forfeit: "team2" }
              : { team1_score: a, team2_score: a === b ? b + 1 : b };
            expectStatus(await report(call, id, m, body), 200);
          }
          const after = await results(call, id);
          expect(summary(after.standings)).toEqual(referenceStandings(after.matches, seedOf, points.win, points.loss));
          for (const s of after.standings) {
            const size = after.standings.filter((x) => x.group === s.group).length;
            expect(s.wins! + s.losses!).toBe(size - 1);
          }
          const done = await call("PATCH", url, { body: { status: "completed" } });
          expectStatus(done, 200);
          expect(done.body.data.status).toBe("completed");
        },
      ),
      { numRuns: 6 },
    );
  }, 180_000);

  it("counts custom points: points = wins × win + losses × loss", async () => {
    const { call, id, seedOf } = await started(4, "round_robin", { points: { win: 2, loss: -1 }, best_of: 1 });
    await playBetterSeedWins(call, id);
    const { standings } = await results(call, id);
    expect(standings.map((s) => [s.position, seedOf.get(s.team_id), s.wins, s.losses, s.points])).toEqual([
      [1, 1, 3, 0, 6],
      [2, 2, 2, 1, 3],
      [3, 3, 1, 2, 0],
      [4, 4, 0, 3, -3],
    ]);
  });

  // Hand-made ties; each case: [description, n, results as [winner, loser, winner score, loser score], expected seeds in order].
  const ties: [string, number, [number, number, number, number][], number[]][] = [
    // Seeds 1, 2, 3 on 6 points; head-to-head 3 > 2 > 1 decides although seed 1 has the best score difference.
    ["head-to-head among the three level on points", 5, [
      [3, 2, 1, 0],
      [3, 1, 1, 0],
      [2, 1, 1, 0],
      [1, 4, 10, 0],
      [1, 5, 10, 0],
      [2, 4, 1, 0],
      [5, 2, 1, 0],
      [4, 3, 9, 0],
      [5, 3, 9, 0],
      [5, 4, 1, 0],
    ], [5, 3, 2, 1, 4]],
    // A cycle 1 > 2 > 3 > 1 (head-to-head level): score difference 3 (+4) > 2 (+2) > 1 (-3).
    [
      "score difference when head-to-head is level",
      4,
      [[1, 2, 1, 0], [2, 3, 2, 0], [3, 1, 5, 0], [1, 4, 1, 0], [2, 4, 1, 0], [3, 4, 1, 0]],
      [3, 2, 1, 4],
    ],
    // The same cycle with equal differences (+1 each): score for 3 (7) > 1 (6) > 2 (5).
    ["score for when the difference is level", 4, [[1, 2, 2, 1], [2, 3, 3, 2], [3, 1, 4, 3], [1, 4, 1, 0], [2, 4, 1, 0], [3, 4, 1, 0]], [
      3,
      1,
      2,
      4,
    ]],
    // Everything level but the seed.
    ["seed when all else is level", 4, [[1, 2, 1, 0], [2, 3, 1, 0], [3, 1, 1, 0], [1, 4, 1, 0], [2, 4, 1, 0], [3, 4, 1, 0]], [1, 2, 3, 4]],
  ];

  it.each(ties)("breaks a three-way tie on points by %s", async (_, n, played, order) => {
    const { call, id, seedOf } = await started(n, "round_robin");
    const { matches } = await results(call, id);
    expect(played).toHaveLength(matches.length);
    for (const [w, l, ws, ls] of played) await beat(call, id, matches, w, l, ws, ls);
    const after = await results(call, id);
    expect(after.standings.map((s) => seedOf.get(s.team_id))).toEqual(order);
    expect(after.standings.map((s) => s.position)).toEqual(order.map((_, i) => i + 1));
    expect(summary(after.standings)).toEqual(referenceStandings(after.matches, seedOf, 3, 0));
  });

  it("returns 409 invalid_status_transition when there are more groups than N / 2", async () => {
    const t = await tenant();
    const tournament = await create(t.request, { max_teams: 8, format: "round_robin", format_options: { groups: 3 } });
    await register(t, tournament.id, pool.slice(0, 5));
    expectError(
      await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }),
      409,
      "invalid_status_transition",
    );
    expect((await t.request("GET", `/tournaments/${tournament.id}`)).body.data.status).toBe("registration");
    expect((await results(t.request, tournament.id)).matches).toEqual([]);
    // Exactly N / 2 groups is fine: pairs.
    await register(t, tournament.id, pool.slice(5, 6));
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
    checkRoundRobin((await results(t.request, tournament.id)).matches, 6, 3);
  });

  it("counts a forfeit as a win and a loss with no score", async () => {
    const { call, id, seedOf } = await started(3, "round_robin");
    const { matches } = await results(call, id);
    const m12 = between(matches, 1, 2);
    const res = await report(call, id, m12, { forfeit: m12.team1_seed === 1 ? "team1" : "team2" });
    expectStatus(res, 200);
    expect([res.body.data.team1_score, res.body.data.team2_score, res.body.data.status, seedOf.get(res.body.data.winner_id)])
      .toEqual([null, null, "completed", 2]);
    await beat(call, id, matches, 3, 1, 1, 0);
    await beat(call, id, matches, 3, 2, 1, 0);
    const after = await results(call, id);
    expect(after.standings.map((s) => [s.position, seedOf.get(s.team_id), s.wins, s.losses, s.points])).toEqual([
      [1, 3, 2, 0, 6],
      [2, 2, 1, 1, 3],
      [3, 1, 0, 2, 0],
    ]);
    expect(summary(after.standings)).toEqual(referenceStandings(after.matches, seedOf, 3, 0));
  });

  it("allows corrections at any time while ongoing, and none once completed", async () => {
    const { call, id, seedOf } = await started(4, "round_robin");
    await playBetterSeedWins(call, id);
    const { matches } = await results(call, id);
    const first = matches[0];
    // Every match is completed; the first round's result may still change.
    const flipped = await report(call, id, first, { team1_score: 0, team2_score: 5 });
    expectStatus(flipped, 200);
    expect(flipped.body.data.winner_id).toBe(first.team2_id);
    const forfeit = await report(call, id, matches[1], { forfeit: "team1" });
    expectStatus(forfeit, 200);
    const after = await results(call, id);
    expect(summary(after.standings)).toEqual(referenceStandings(after.matches, seedOf, 3, 0));
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
    expectError(await report(call, id, first, { team1_score: 5, team2_score: 0 }), 409, "match_locked");
  });

  it("makes a 64-team round robin (2,016 matches) in one request", async () => {
    const t = await tenant();
    const tournament = await create(t.request, { max_teams: 64, format: "round_robin" });
    await register(t, tournament.id, pool);
    const started = performance.now();
    const res = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } });
    const ms = performance.now() - started;
    expectStatus(res, 200);
    console.log(`64-team round robin: 2,016 matches made in ${ms.toFixed(0)} ms (one PATCH)`);
    const { matches, standings } = await results(t.request, tournament.id);
    expect(matches).toHaveLength(2016);
    expect(standings).toHaveLength(64);
    checkRoundRobin(matches, 64, 1);
  }, 60_000);
});

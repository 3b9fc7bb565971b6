// Swiss (contract section 10) over HTTP: hand-checked draws for N = 4, 5, 6, 8; a fast-check
// property over N 2..64 (no team twice in a round, no rematch while a rematch-free draw
// exists, byes at most once a team and to the lowest-placed team without one, completion only
// after the last round, standings ranking exactly the participants); corrections (redraw
// before the next round's first result, 409 match_locked after it); and a race of the last two
// reports of a round, which must draw the next round once.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  type ApiResponse,
  createKey,
  createTeams,
  expectError,
  expectStatus,
  type Match,
  request,
  sql,
  swissOptions,
  type SwissStanding as Standing,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

interface Results {
  tournament: { id: string; format: string; status: string };
  matches: Match[];
  standings: Standing[];
}

/** Hands out the tenant's keys, a fresh one every 90 requests (the rate limit is 100 a minute per key). */
class Keys {
  private keys: string[];
  private uses = 0;
  constructor(private t: Tenant) {
    this.keys = [t.key];
  }
  async next(): Promise<string> {
    if (++this.uses % 90 === 0) this.keys.push((await createKey(this.t.accountId)).key);
    return this.keys[this.keys.length - 1];
  }
  /** `n` distinct fresh keys, for parallel requests (each key's requests queue behind its row). */
  async fresh(n: number): Promise<string[]> {
    return (await Promise.all(Array.from({ length: n }, () => createKey(this.t.accountId)))).map((k) => k.key);
  }
}

/** A swiss tournament of `n` teams registered in seed order, started; teams[i] is seed i + 1. */
async function startedSwiss(n: number, rounds: number | null = null) {
  const t = await tenant();
  const keys = new Keys(t);
  const teams = await createTeams(n, `Swiss ${crypto.randomUUID().slice(0, 8)}`);
  const created = await t.request("POST", "/tournaments", {
    body: tournamentBody({ max_teams: Math.max(n, 2), format: "swiss", format_options: { rounds } }),
  });
  expectStatus(created, 201);
  const id: string = created.body.data.id;
  for (const team of teams) {
    expectStatus(await request("POST", `/tournaments/${id}/registrations`, { key: await keys.next(), body: { team_id: team } }), 201);
  }
  const start = await request("PATCH", `/tournaments/${id}`, { key: await keys.next(), body: { status: "ongoing" } });
  return { t, keys, teams, id, start };
}

async function results(keys: Keys, id: string): Promise<Results> {
  const res = await request("GET", `/tournaments/${id}/results`, { key: await keys.next() });
  expectStatus(res, 200);
  return res.body.data;
}

async function report(keys: Keys, id: string, m: Match, team1Wins: boolean, key?: string): Promise<ApiResponse> {
  return request("PATCH", `/tournaments/${id}/matches/${m.id}`, {
    key: key ?? await keys.next(),
    body: team1Wins ? { team1_score: 2, team2_score: 1 } : { team1_score: 0, team2_score: 2 },
  });
}

async function setStatus(keys: Keys, id: string, status: string) {
  return request("PATCH", `/tournaments/${id}`, { key: await keys.next(), body: { status } });
}

/** A round as seed pairs, e.g. ["1v3", "2v4", "5 bye"], by position. */
function draw(matches: Match[], round: number): string[] {
  return matches.filter((m) => m.round === round).sort((a, b) => a.position - b.position)
    .map((m) => m.status === "bye" ? `${m.team1_seed} bye` : `${m.team1_seed}v${m.team2_seed}`);
}

/**
 * Plays a hand-checked run: for each round, the expected draw (by seed, in position order)
 * and the positions where team2 wins (elsewhere team1 wins). Returns the final results.
 */
async function playScript(n: number, script: { draw: string[]; upsets: number[] }[]) {
  const { keys, id, start } = await startedSwiss(n);
  expectStatus(start, 200);
  for (const [i, step] of script.entries()) {
    const round = i + 1;
    const { matches } = await results(keys, id);
    expect(Math.max(...matches.map((m) => m.round)), `only round ${round} is drawn`).toBe(round);
    expect(draw(matches, round), `round ${round}`).toEqual(step.draw);
    for (const m of matches.filter((x) => x.round === round && x.status === "ready")) {
      expectStatus(await report(keys, id, m, !step.upsets.includes(m.position)), 200);
    }
  }
  expectStatus(await setStatus(keys, id, "completed"), 200);
  return results(keys, id);
}

/** Standings as [seed, position, wins, losses, buchholz] rows, in order. */
function table(data: Results): number[][] {
  const seedOf = new Map<string, number>();
  for (const m of data.matches) {
    if (m.team1_id) seedOf.set(m.team1_id, m.team1_seed!);
    if (m.team2_id) seedOf.set(m.team2_id, m.team2_seed!);
  }
  return data.standings.map((s) => [seedOf.get(s.team_id)!, s.position, s.wins, s.losses, s.buchholz]);
}

describe("swiss: hand-checked runs", () => {
  it("N = 4: round 1 is 1v3 2v4; round 2 pairs within win counts", async () => {
    // R1: 3 beats 1, 2 beats 4 → wins 2:1 3:1 1:0 4:0. R2 (by wins, then seed): 2v3, 1v4;
    // 3 beats 2, 1 beats 4. Every Buchholz is 2 (e.g. 3: opponents 1 (1 win) + 2 (1 win)).
    const data = await playScript(4, [
      { draw: ["1v3", "2v4"], upsets: [1] },
      { draw: ["2v3", "1v4"], upsets: [1] },
    ]);
    expect(data.tournament.status).toBe("completed");
    expect(table(data)).toEqual([
      [3, 1, 2, 0, 2],
      [1, 2, 1, 1, 2],
      [2, 3, 1, 1, 2],
      [4, 4, 0, 2, 2],
    ]);
  });

  it("N = 5: the lowest seed has round 1's bye, later byes go to the lowest-placed team without one", async () => {
    // R1: 1v3 2v4, 5 bye; team1 wins → wins 1,2,5: 1; 3,4: 0 (Buchholz 1 each: seed 4 is lower).
    // R2: bye 4; [1,2,5] → 1v2, 5 floats to 3. team1 wins → 1:2 5:2 2:1 4:1 3:0.
    // R3: bye 3 (the only team without a bye below the leaders); 1v5 would leave 2v4, a rematch,
    // so the draw is 1v4 and 5v2. team1 wins → 1:3 5:3 2:1 4:1 3:1.
    // Buchholz: 1 = 3+2+4 → 1+1+1 = 3; 5 = 3 (1) + 2 (1) = 2 (the bye adds nothing);
    // 2 = 4+1+5 → 1+3+3 = 7; 3 = 1+5 → 6; 4 = 2+1 → 4.
    const data = await playScript(5, [
      { draw: ["1v3", "2v4", "5 bye"], upsets: [] },
      { draw: ["1v2", "5v3", "4 bye"], upsets: [] },
      { draw: ["1v4", "5v2", "3 bye"], upsets: [] },
    ]);
    expect(table(data)).toEqual([
      [1, 1, 3, 0, 3],
      [5, 2, 3, 0, 2],
      [2, 3, 1, 2, 7],
      [3, 4, 1, 2, 6],
      [4, 5, 1, 2, 4],
    ]);
    const byes = data.matches.filter((m) => m.status === "bye");
    for (const b of byes) {
      expect([b.team2_id, b.winner_id, b.team1_score, b.team2_score]).toEqual([null, b.team1_id, null, null]);
    }
  });

  it("N = 6: an odd win group floats its last team down; a rematch is drawn around", async () => {
    // R1: 1v4 2v5 3v6; team1 wins. R2: [1,2,3 | 4,5,6] → 1v2, 3 floats to 4, 5v6; team1 wins
    // → 1:2 3:2 2:1 5:1 4:0 6:0. R3: 1v3; 2v5 met in R1, so 2 floats: 2v4 would leave 5v6 (met
    // in R2), so 2v6 and 5v4. team1 wins → 1:3 2:2 3:2 5:2 4:0 6:0.
    // Buchholz: 1 = 4+2+3 → 0+2+2 = 4; 2 = 5+1+6 → 2+3+0 = 5; 3 = 6+4+1 → 3;
    // 5 = 2+6+4 → 2; 4 = 1+3+5 → 7; 6 = 3+5+2 → 6.
    const data = await playScript(6, [
      { draw: ["1v4", "2v5", "3v6"], upsets: [] },
      { draw: ["1v2", "3v4", "5v6"], upsets: [] },
      { draw: ["1v3", "2v6", "5v4"], upsets: [] },
    ]);
    expect(table(data)).toEqual([
      [1, 1, 3, 0, 4],
      [2, 2, 2, 1, 5],
      [3, 3, 2, 1, 3],
      [5, 4, 2, 1, 2],
      [4, 5, 0, 3, 7],
      [6, 6, 0, 3, 6],
    ]);
  });

  it("N = 8: top half against bottom half inside each win group; Buchholz before seed", async () => {
    // R1: 1v5 2v6 3v7 4v8; 5 beats 1 → 2,3,4,5: 1 win. R2: [2,3,4,5] → 2v4 3v5; [1,6,7,8] → 1v7 6v8;
    // 5 beats 3 → 2:2 5:2 1:1 3:1 4:1 6:1 7:0 8:0. R3: 2v5; [1,3,4,6] → 1v4 3v6; 7v8; 5 beats 2,
    // 6 beats 3 → 5:3 2:2 1:2 6:2 3:1 4:1 7:1 8:0.
    // Buchholz: 5 = 1+3+2 → 2+1+2 = 5; 2 = 6+4+5 → 2+1+3 = 6; 1 = 5+7+4 → 3+1+1 = 5;
    // 6 = 2+8+3 → 2+0+1 = 3; 3 = 7+5+6 → 1+3+2 = 6; 4 = 8+2+1 → 0+2+2 = 4; 7 = 3+1+8 → 3;
    // 8 = 4+6+7 → 1+2+1 = 4. Seed 2 (Buchholz 6) places above seed 1 (5).
    const data = await playScript(8, [
      { draw: ["1v5", "2v6", "3v7", "4v8"], upsets: [1] },
      { draw: ["2v4", "3v5", "1v7", "6v8"], upsets: [2] },
      { draw: ["2v5", "1v4", "3v6", "7v8"], upsets: [1, 3] },
    ]);
    expect(table(data)).toEqual([
      [5, 1, 3, 0, 5],
      [2, 2, 2, 1, 6],
      [1, 3, 2, 1, 5],
      [6, 4, 2, 1, 3],
      [3, 5, 1, 2, 6],
      [4, 6, 1, 2, 4],
      [7, 7, 1, 2, 3],
      [8, 8, 0, 3, 4],
    ]);
  });
});

describe("swiss: options and start", () => {
  it("stores rounds null by default and checks rounds strictly (1–1023 or null)", async () => {
    const t = await tenant();
    const ok = await t.request("POST", "/tournaments", { body: tournamentBody({ format: "swiss" }) });
    expectStatus(ok, 201);
    expect(ok.body.data.format_options).toEqual(swissOptions());
    for (const rounds of [0, 1024, 2.5, "3", true]) {
      const res = await t.request("POST", "/tournaments", { body: tournamentBody({ format: "swiss", format_options: { rounds } }) });
      expectError(res, 400, "validation_error", ["format_options.rounds"]);
    }
    const unknown = await t.request("POST", "/tournaments", { body: tournamentBody({ format: "swiss", format_options: { groups: 2 } }) });
    expectError(unknown, 400, "validation_error", ["format_options.groups"]);
  });

  it("returns 409 invalid_status_transition when the rounds exceed N − 1, and starts once they fit", async () => {
    const { keys, id, start } = await startedSwiss(4, 4);
    expectError(start, 409, "invalid_status_transition");
    expect((await results(keys, id)).matches).toEqual([]);
    expectStatus(
      await request("PATCH", `/tournaments/${id}`, { key: await keys.next(), body: { format_options: { rounds: 3, best_of: 1 } } }),
      200,
    );
    expectStatus(await setStatus(keys, id, "ongoing"), 200);
    const data = await results(keys, id);
    expect(draw(data.matches, 1)).toEqual(["1v3", "2v4"]);
    expect(data.standings.map((s) => [s.position, s.wins, s.losses, s.buchholz])).toEqual(
      [[1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0], [4, 0, 0, 0]],
    );
  });

  it("answers 409 match_not_ready for a bye and plays N = 3 over 2 rounds with a bye each", async () => {
    // R1: 1v2, 3 bye; 1 wins. R2: the bye to 2 (no win, no bye yet); 1v3; 1 wins.
    // Buchholz: 1 = 2 (1 win) + 3 (1) = 2; 2 = 1 (2) = 2; 3 = 1 (2) = 2: seed decides 2 and 3.
    const { keys, id, start } = await startedSwiss(3);
    expectStatus(start, 200);
    let { matches } = await results(keys, id);
    expect(draw(matches, 1)).toEqual(["1v2", "3 bye"]);
    expectError(await report(keys, id, matches[1], true), 409, "match_not_ready");
    expectStatus(await report(keys, id, matches[0], true), 200);
    matches = (await results(keys, id)).matches;
    expect(draw(matches, 2)).toEqual(["1v3", "2 bye"]);
    expectStatus(await report(keys, id, matches.find((m) => m.round === 2 && m.status === "ready")!, true), 200);
    expectStatus(await setStatus(keys, id, "completed"), 200);
    expect(table(await results(keys, id))).toEqual([[1, 1, 2, 0, 2], [2, 2, 1, 1, 2], [3, 3, 1, 1, 2]]);
  });

  it("plays a 2-team swiss as one round", async () => {
    const { keys, id, start } = await startedSwiss(2);
    expectStatus(start, 200);
    const { matches } = await results(keys, id);
    expect(draw(matches, 1)).toEqual(["1v2"]);
    expectStatus(await report(keys, id, matches[0], false), 200);
    expectStatus(await setStatus(keys, id, "completed"), 200);
    expect(table(await results(keys, id))).toEqual([[2, 1, 1, 0, 0], [1, 2, 0, 1, 1]]);
  });
});

/** True when `teams` can be paired with no pair in `met` (exhaustive search). */
function rematchFreePairingExists(teams: string[], met: Set<string>): boolean {
  if (teams.length === 0) return true;
  const [a, ...rest] = teams;
  return rest.some((b, i) => !met.has(`${a}|${b}`) && rematchFreePairingExists(rest.filter((_, j) => j !== i), met));
}

describe("swiss: properties", () => {
  it("draws every round legally and always completes, for N from 2 to 64", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 64 }),
        // rounds up to N - 1 (at most 10): small N play nearly every pairing, where rematches
        // become unavoidable and the search must prove it
        fc.option(fc.integer({ min: 1, max: 10 }), { nil: null }),
        fc.infiniteStream(fc.boolean()),
        async (n, roundsOption, coin) => {
          const rounds = roundsOption === null ? Math.ceil(Math.log2(n)) : Math.min(roundsOption, n - 1);
          const { keys, teams, id, start } = await startedSwiss(n, roundsOption === null ? null : rounds);
          expectStatus(start, 200);
          const seedOf = new Map(teams.map((team, i) => [team, i + 1]));
          const met = new Set<string>();
          const wins = new Map(teams.map((team) => [team, 0]));
          const losses = new Map(teams.map((team) => [team, 0]));
          const opponents = new Map<string, string[]>(teams.map((team) => [team, []]));
          const hadBye = new Set<string>();
          const buchholz = (team: string) => opponents.get(team)!.reduce((s, o) => s + wins.get(o)!, 0);
          // lowest-placed first: fewest wins, lowest Buchholz, worst seed
          const lowestFirst = (a: string, b: string) =>
            wins.get(a)! - wins.get(b)! || buchholz(a) - buchholz(b) || seedOf.get(b)! - seedOf.get(a)!;

          for (let round = 1; round <= rounds; round++) {
            const data = await results(keys, id);
            expect(Math.max(...data.matches.map((m) => m.round)), "only the current round is drawn").toBe(round);
            const inRound = data.matches.filter((m) => m.round === round);
            const playing = inRound.flatMap((m) => [m.team1_id, m.team2_id]).filter((x): x is string => x !== null);
            expect([...playing].sort(), "every team exactly once in the round").toEqual([...teams].sort());
            expect(inRound.map((m) => m.position).sort((a, b) => a - b)).toEqual(inRound.map((_, i) => i + 1));

            const byes = inRound.filter((m) => m.status === "bye");
            expect(byes.length).toBe(n % 2);
            for (const bye of byes) {
              expect([bye.team2_id, bye.winner_id]).toEqual([null, bye.team1_id]);
              expect(hadBye.has(bye.team1_id!), "at most one bye a team").toBe(false);
              if (round === 1) {
                expect(seedOf.get(bye.team1_id!)).toBe(n);
              } else {
                const expected = teams.filter((team) => !hadBye.has(team)).sort(lowestFirst)[0];
                expect(bye.team1_id, "the bye goes to the lowest-placed team without one").toBe(expected);
              }
            }
            const games = inRound.filter((m) => m.status === "ready");
            expect(games.length).toBe(Math.floor(n / 2));
            if (round === 1) {
              expect(games.map((m) => [m.team1_seed, m.team2_seed])).toEqual(
                games.map((_, i) => [i + 1, i + 1 + Math.floor(n / 2)]),
              );
            }
            const rematches = games.filter((m) => met.has(`${m.team1_id}|${m.team2_id}`));
            if (rematches.length > 0) {
              const drawn = games.flatMap((m) => [m.team1_id!, m.team2_id!]);
              expect(rematchFreePairingExists(drawn, met), "a rematch only when every draw has one").toBe(false);
            }

            if (round < rounds) expectError(await setStatus(keys, id, "completed"), 409, "invalid_status_transition");
            for (const m of games) {
              const team1Wins = coin.next().value;
              expectStatus(await report(keys, id, m, team1Wins), 200);
              const [w, l] = team1Wins ? [m.team1_id!, m.team2_id!] : [m.team2_id!, m.team1_id!];
              wins.set(w, wins.get(w)! + 1);
              losses.set(l, losses.get(l)! + 1);
              opponents.get(w)!.push(l);
              opponents.get(l)!.push(w);
              met.add(`${w}|${l}`).add(`${l}|${w}`);
            }
            for (const bye of byes) {
              hadBye.add(bye.team1_id!);
              wins.set(bye.team1_id!, wins.get(bye.team1_id!)! + 1);
            }
          }

          expectStatus(await setStatus(keys, id, "completed"), 200);
          const data = await results(keys, id);
          expect(Math.max(...data.matches.map((m) => m.round))).toBe(rounds);
          const expected = [...teams].sort((a, b) => -lowestFirst(a, b))
            .map((team, i) => [team, i + 1, wins.get(team), losses.get(team), buchholz(team)]);
          expect(data.standings.map((s) => [s.team_id, s.position, s.wins, s.losses, s.buchholz])).toEqual(expected);
        },
      ),
      { numRuns: 12 },
    );
  }, 600_000);
});

describe("swiss: the pairing search (SQL)", () => {
  // app.swiss_match(order, wins, met rows, n, rematches allowed, budget) → partner by index.
  it("backtracks around a rematch, returns null when none can be avoided, and with rematches allowed puts them last", async () => {
    // 1 has met 2; 3 and 4 have met: 1v2 and 3v4 are out, so 1v3 (the middle first) and 2v4.
    const [a] = await sql<{ p: number[] }>(
      "select app.swiss_match('{1,2,3,4}', '{1,1,0,0}', '{{2},{1},{4},{3}}', 4, false, 1000) as p",
    );
    expect(a.p).toEqual([3, 4, 1, 2]);
    // 1 has met everyone: no rematch-free pairing, null; with rematches, 1 takes its first choice.
    const met = "'{{2,3,4},{1,0,0},{1,0,0},{1,0,0}}'";
    const [b] = await sql<{ p: number[] | null }>(`select app.swiss_match('{1,2,3,4}', '{2,1,1,0}', ${met}, 4, false, 1000) as p`);
    expect(b.p).toBeNull();
    const [c] = await sql<{ p: number[] }>(`select app.swiss_match('{1,2,3,4}', '{2,1,1,0}', ${met}, 4, true, 1000) as p`);
    expect(c.p).toEqual([2, 1, 4, 3]);
  });
});

describe("swiss: corrections", () => {
  it("redraws the next round when a correction changes it before the next round has a result, then locks", async () => {
    const { keys, id, start } = await startedSwiss(4);
    expectStatus(start, 200);
    let { matches } = await results(keys, id);
    const [m1, m2] = matches;
    expectStatus(await report(keys, id, m1, true), 200);
    expectStatus(await report(keys, id, m2, true), 200);
    matches = (await results(keys, id)).matches;
    expect(draw(matches, 2)).toEqual(["1v2", "3v4"]);
    const before = matches.filter((m) => m.round === 2).map((m) => m.id);

    // Same winner, other score: the draw is the same, so round 2's matches stay as they are.
    const same = await request("PATCH", `/tournaments/${id}/matches/${m1.id}`, {
      key: await keys.next(),
      body: { team1_score: 3, team2_score: 0 },
    });
    expectStatus(same, 200);
    matches = (await results(keys, id)).matches;
    expect(matches.filter((m) => m.round === 2).map((m) => m.id)).toEqual(before);

    // 3 now beats 1: wins 2:1 3:1 1:0 4:0, so round 2 is redrawn as 2v3 and 1v4 (in place:
    // each position keeps its match id).
    expectStatus(await report(keys, id, m1, false), 200);
    matches = (await results(keys, id)).matches;
    expect(draw(matches, 2)).toEqual(["2v3", "1v4"]);
    expect(matches.filter((m) => m.round === 2).map((m) => [m.id, m.status])).toEqual(before.map((x) => [x, "ready"]));

    const round2 = matches.filter((m) => m.round === 2);
    expectStatus(await report(keys, id, round2[0], true), 200);
    const locked = await report(keys, id, m2, false);
    expectError(locked, 409, "match_locked");
    // The other round-2 match is still open, and round 2's result itself may be corrected.
    expectStatus(await report(keys, id, round2[0], false), 200);
    expectStatus(await report(keys, id, round2[1], true), 200);
    expectStatus(await setStatus(keys, id, "completed"), 200);
  });

  it("draws the next round exactly once when the last two results of a round arrive together", async () => {
    for (let attempt = 0; attempt < 4; attempt++) {
      const { keys, id, start } = await startedSwiss(8);
      expectStatus(start, 200);
      const { matches } = await results(keys, id);
      expectStatus(await report(keys, id, matches[0], true), 200);
      expectStatus(await report(keys, id, matches[1], false), 200);
      const [k1, k2] = await keys.fresh(2);
      const [a, b] = await Promise.all([report(keys, id, matches[2], true, k1), report(keys, id, matches[3], true, k2)]);
      expectStatus(a, 200);
      expectStatus(b, 200);
      const after = (await results(keys, id)).matches;
      const round2 = after.filter((m) => m.round === 2);
      expect(round2.length).toBe(4);
      expect(round2.map((m) => m.position)).toEqual([1, 2, 3, 4]);
      expect(new Set(round2.flatMap((m) => [m.team1_id, m.team2_id])).size).toBe(8);
      expect(after.every((m) => m.round <= 2)).toBe(true);
    }
  });
});

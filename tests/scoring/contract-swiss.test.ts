// Swiss under contract section 19 and advancement (section 12) in the same order, from the
// contract alone: points instead of wins (pairing and ranking), a bye scoring as a win, Buchholz
// as the sum of the opponents' points, median_buchholz with two opponents (plain Buchholz) and
// with three (the middle one), the defaults (points, then Buchholz, then the seed), and the
// qualifiers of a next stage picked by the stage's own criteria (per_group after round robin,
// top after swiss). Rows are [team, position, wins, draws, losses, points, buchholz,
// separated_by] with A = seed 1, B = seed 2, …; round 1 pairs seed i with seed i + N/2, later
// rounds the top half of a points group against its bottom half by seed (section 10).
import { describe, expect, it } from "vitest";
import { type Call, expectError, expectStatus, swissOptions } from "../support/helpers.ts";
import { type League, league, order, pairings, play, results, swissRows } from "./contract-support.ts";

const swiss = (format_options: Record<string, unknown> = {}) => ({ format: "swiss", format_options });

async function stageOf(call: Call, id: string, n: number) {
  const res = await call("GET", `/tournaments/${id}/stages/${n}`);
  expectStatus(res, 200);
  return res.body.data;
}

describe("swiss: points", () => {
  it("keeps today's defaults: a point a win, Buchholz the sum of the opponents' points, then the seed", async () => {
    // R1 A–C, B–D: C and B win. R2 (B, C on 1 point; A, D on 0): B–C, A–D: C and A win.
    // C 2, A 1, B 1, D 0; every Buchholz is 2 (C: A 1 + B 1; A: C 2 + D 0; B: D 0 + C 2; D: B 1 + A 1).
    const lg = await league(swiss(), 4);
    const got = await lg.call("GET", `/tournaments/${lg.id}`);
    expect(got.body.data.format_options, got.text).toEqual(swissOptions());
    expect(pairings(lg, (await results(lg)).matches, 1)).toEqual(["A-C", "B-D"]);
    await play(lg, ["C 1-0 A", "B 1-0 D"], 1);
    expect(pairings(lg, (await results(lg)).matches, 2)).toEqual(["A-D", "B-C"]);
    await play(lg, ["C 1-0 B", "A 1-0 D"], 2);
    expectStatus(await lg.call("PATCH", `/tournaments/${lg.id}`, { body: { status: "completed" } }), 200);
    const { standings } = await results(lg);
    expect(swissRows(lg, standings)).toEqual([
      ["C", 1, 2, 0, 0, 2, 2, null],
      ["A", 2, 1, 0, 1, 1, 2, "points"],
      ["B", 3, 1, 0, 1, 1, 2, "seed"],
      ["D", 4, 0, 0, 2, 0, 2, "points"],
    ]);
    expect(Object.keys(standings[0]).sort()).toEqual(
      ["buchholz", "disqualified", "draws", "losses", "points", "position", "separated_by", "team_id", "team_name", "team_tag", "wins"]
        .sort(),
    );
  });

  it("scores a bye as a win and sums the opponents' points into Buchholz (3/1/0 with draws)", async () => {
    // R1: A–B, C has the bye (a win: 3 points). A–B 1–1: 1 point each; C 3 (the bye is no
    // opponent: C's Buchholz is 0). R2 is drawn at once: the bye to B (lowest placed without one,
    // completed as it is made: B 4, its Buchholz A's 1; A's B's 4), A–C: A wins 1–0.
    // A: D W = 4, opponents B 4 + C 3 = 7; B: D + bye = 4, opponent A 4; C: bye L = 3, opponent A 4.
    const lg = await league(swiss({ draws: true }), 3);
    const got = await lg.call("GET", `/tournaments/${lg.id}`);
    expect(got.body.data.format_options.points, got.text).toEqual({ win: 3, draw: 1, loss: 0, forfeit_loss: 0 });
    expect(pairings(lg, (await results(lg)).matches, 1)).toEqual(["A-B", "C bye"]);
    await play(lg, ["A 1-1 B"], 1);
    let data = await results(lg);
    expect(swissRows(lg, data.standings)).toEqual([
      ["B", 1, 1, 1, 0, 4, 1, null],
      ["C", 2, 1, 0, 0, 3, 0, "points"],
      ["A", 3, 0, 1, 0, 1, 4, "points"],
    ]);
    expect(pairings(lg, data.matches, 2)).toEqual(["A-C", "B bye"]);
    await play(lg, ["A 1-0 C"], 2);
    data = await results(lg);
    expect(swissRows(lg, data.standings)).toEqual([
      ["A", 1, 1, 1, 0, 4, 7, null],
      ["B", 2, 1, 1, 0, 4, 4, "buchholz"],
      ["C", 3, 1, 0, 1, 3, 4, "points"],
    ]);
    expectStatus(await lg.call("PATCH", `/tournaments/${lg.id}`, { body: { status: "completed" } }), 200);
  });

  it("pairs the next round within points, not wins", async () => {
    // {win 1, draw 1}: R1 A–E 1–1, B beats F, C beats G, D–H 0–0. On 1 point: A, B, C, D, E, H
    // (only B and C have a win); on 0: F and G. Round 2 pairs teams of equal points only, so
    // F–G is a match (pairing by wins would put B with C and the others together).
    const lg = await league(swiss({ draws: true, points: { win: 1, draw: 1, loss: 0 } }), 8);
    expect(pairings(lg, (await results(lg)).matches, 1)).toEqual(["A-E", "B-F", "C-G", "D-H"]);
    await play(lg, ["A 1-1 E", "B 1-0 F", "C 1-0 G", "D 0-0 H"], 1);
    const data = await results(lg);
    const points = new Map(data.standings.map((s) => [lg.letter(s.team_id), s.points]));
    expect(Object.fromEntries(points)).toEqual({ A: 1, B: 1, C: 1, D: 1, E: 1, F: 0, G: 0, H: 1 });
    const round2 = pairings(lg, data.matches, 2);
    expect(round2).toHaveLength(4);
    expect(round2).toContain("F-G");
    for (const pair of round2) {
      const [x, y] = pair.split("-");
      expect(points.get(x), `round 2 pairs ${pair} on unequal points: ${JSON.stringify(round2)}`).toBe(points.get(y));
    }
    const previous = new Set(pairings(lg, data.matches, 1));
    for (const pair of round2) expect(previous.has(pair), `rematch ${pair}`).toBe(false);
  });
});

describe("swiss: forfeits and byes under configured points", () => {
  it("scores a forfeit loss with forfeit_loss and carries it into the opponent's Buchholz", async () => {
    // {win 3, draw 1, loss 0, forfeit_loss −1}: R1 A forfeits to C, B–D 1–1. Round 2 is drawn but
    // unplayed, so the standings are round 1's: C 3 (opponent A −1), B 1 and D 1 (each other's 1:
    // the seed), A −1 (opponent C 3).
    const lg = await league(swiss({ draws: true, points: { win: 3, draw: 1, loss: 0, forfeit_loss: -1 } }), 4);
    await play(lg, ["A ff C", "B 1-1 D"], 1);
    expect(swissRows(lg, (await results(lg)).standings)).toEqual([
      ["C", 1, 1, 0, 0, 3, -1, null],
      ["B", 2, 0, 1, 0, 1, 1, "points"],
      ["D", 3, 0, 1, 0, 1, 1, "seed"],
      ["A", 4, 0, 0, 1, -1, 3, "points"],
    ]);
  });

  it("gives the next bye to the lowest placed by the configured tie-breakers", async () => {
    // [score_for], five teams: R1 A–C, B–D, E has the bye. A beats C 1–0, B beats D 2–1. C and D
    // on 0 points: D scored 1, C 0, so C is the lowest placed without a bye and has round 2's
    // (by Buchholz, level at 1, the seed would have put D last).
    const lg = await league(swiss({ tie_breakers: ["score_for"] }), 5);
    expect(pairings(lg, (await results(lg)).matches, 1)).toEqual(["A-C", "B-D", "E bye"]);
    await play(lg, ["A 1-0 C", "B 2-1 D"], 1);
    expect(pairings(lg, (await results(lg)).matches, 2)).toContain("C bye");
  });

  it("scores a bye as points.win", async () => {
    // {win 5, loss 0}: R1 A beats B, C has the bye (5). Round 2 is drawn at once with its bye to B
    // (5). A, B, C on 5; Buchholz A = B's 5, B = A's 5, C = 0 (no opponent): A, B (seed), C.
    const lg = await league(swiss({ points: { win: 5, loss: 0 } }), 3);
    await play(lg, ["A 1-0 B"], 1);
    const data = await results(lg);
    expect(pairings(lg, data.matches, 2)).toEqual(["A-C", "B bye"]);
    expect(swissRows(lg, data.standings)).toEqual([
      ["A", 1, 1, 0, 0, 5, 5, null],
      ["B", 2, 1, 0, 1, 5, 5, "seed"],
      ["C", 3, 1, 0, 0, 5, 0, "buchholz"],
    ]);
  });
});

describe("swiss: head_to_head", () => {
  it("places the winner of the match between two teams level on points above the other", async () => {
    // [head_to_head]. R1 A–C, B–D: C and B win. R2 B–C, A–D: B and A win. B 2; C 1, A 1 (C beat
    // A: head-to-head 1 to 0, where the seed would put A first); D 0. Buchholz B D0+C1 = 1,
    // C A1+B2 = 3, A C1+D0 = 1, D B2+A1 = 3.
    const lg = await league(swiss({ tie_breakers: ["head_to_head"] }), 4);
    await play(lg, ["C 1-0 A", "B 1-0 D"], 1);
    expect(pairings(lg, (await results(lg)).matches, 2)).toEqual(["A-D", "B-C"]);
    await play(lg, ["B 1-0 C", "A 1-0 D"], 2);
    expect(swissRows(lg, (await results(lg)).standings)).toEqual([
      ["B", 1, 2, 0, 0, 2, 1, null],
      ["C", 2, 1, 0, 1, 1, 3, "points"],
      ["A", 3, 1, 0, 1, 1, 1, "head_to_head"],
      ["D", 4, 0, 0, 2, 0, 3, "points"],
    ]);
  });
});

describe("swiss: median_buchholz", () => {
  // Eight teams, three rounds, a point a win. R1 A–E, B–F, C–G, D–H: the top seeds win.
  // R2 A–C, B–D, E–G, F–H: A, D, E, F win. After R2: A 2, D 2, B 1, C 1, E 1, F 1, G 0, H 0;
  // Buchholz A E1+C1 = 2, D H0+B1 = 1, B F1+D2 = 3, C G0+A2 = 2, E A2+G0 = 2, F B1+H0 = 1,
  // G C1+E1 = 2, H D2+F1 = 3. With two opponents median Buchholz is plain Buchholz.
  // R3 A–D, B–E, C–F, G–H: A, B, C, G win. Final: A 3, D 2, B 2, C 2, E 1, F 1, G 1, H 0;
  // opponents' points A [E1, C2, D2] = 5 (median 2), D [H0, B2, A3] = 5 (2), B [F1, D2, E1] = 4
  // (1), C [G1, A3, F1] = 5 (1), E [A3, G1, B2] = 6 (2), F [B2, H0, C2] = 4 (2), G [C2, E1, H0]
  // = 3 (1), H [D2, F1, G1] = 4 (1).
  async function run(lg: League) {
    expect(pairings(lg, (await results(lg)).matches, 1)).toEqual(["A-E", "B-F", "C-G", "D-H"]);
    await play(lg, ["A 1-0 E", "B 1-0 F", "C 1-0 G", "D 1-0 H"], 1);
    expect(pairings(lg, (await results(lg)).matches, 2), "round 2: top half against bottom half of each points group").toEqual(
      ["A-C", "B-D", "E-G", "F-H"],
    );
    await play(lg, ["A 1-0 C", "D 1-0 B", "E 1-0 G", "F 1-0 H"], 2);
    const afterTwo = await results(lg);
    expect(pairings(lg, afterTwo.matches, 3), "round 3").toEqual(["A-D", "B-E", "C-F", "G-H"]);
    await play(lg, ["A 1-0 D", "B 1-0 E", "C 1-0 F", "G 1-0 H"], 3);
    return { afterTwo, final: await results(lg) };
  }

  it("is plain Buchholz with two opponents and the middle opponent's points with three", async () => {
    const median = await league(swiss({ rounds: 3, tie_breakers: ["median_buchholz"] }), 8);
    const plain = await league(swiss({ rounds: 3 }), 8);
    const [m, p] = await Promise.all([run(median), run(plain)]);
    // After R2, by median (= Buchholz): 2 points A (2), D (1); 1 point B (3), C (2), E (2), F (1);
    // 0 points H (3), G (2).
    expect(swissRows(median, m.afterTwo.standings)).toEqual([
      ["A", 1, 2, 0, 0, 2, 2, null],
      ["D", 2, 2, 0, 0, 2, 1, "median_buchholz"],
      ["B", 3, 1, 0, 1, 1, 3, "points"],
      ["C", 4, 1, 0, 1, 1, 2, "median_buchholz"],
      ["E", 5, 1, 0, 1, 1, 2, "seed"],
      ["F", 6, 1, 0, 1, 1, 1, "median_buchholz"],
      ["H", 7, 0, 0, 2, 0, 3, "points"],
      ["G", 8, 0, 0, 2, 0, 2, "median_buchholz"],
    ]);
    // Final, by median: 2 points D (2), B (1), C (1); 1 point E (2), F (2), G (1).
    expect(swissRows(median, m.final.standings)).toEqual([
      ["A", 1, 3, 0, 0, 3, 5, null],
      ["D", 2, 2, 0, 1, 2, 5, "points"],
      ["B", 3, 2, 0, 1, 2, 4, "median_buchholz"],
      ["C", 4, 2, 0, 1, 2, 5, "seed"],
      ["E", 5, 1, 0, 2, 1, 6, "points"],
      ["F", 6, 1, 0, 2, 1, 4, "seed"],
      ["G", 7, 1, 0, 2, 1, 3, "median_buchholz"],
      ["H", 8, 0, 0, 3, 0, 4, "points"],
    ]);
    // The same results by the default Buchholz: C (5) and D (5) before B (4); E 6, F 4, G 3.
    expect(swissRows(plain, p.final.standings)).toEqual([
      ["A", 1, 3, 0, 0, 3, 5, null],
      ["C", 2, 2, 0, 1, 2, 5, "points"],
      ["D", 3, 2, 0, 1, 2, 5, "seed"],
      ["B", 4, 2, 0, 1, 2, 4, "buchholz"],
      ["E", 5, 1, 0, 2, 1, 6, "points"],
      ["F", 6, 1, 0, 2, 1, 4, "buchholz"],
      ["G", 7, 1, 0, 2, 1, 3, "buchholz"],
      ["H", 8, 0, 0, 3, 0, 4, "points"],
    ]);
  });
});

describe("advancement follows the same order", () => {
  it("per_group after round robin takes the top of the stage's own order (forfeits)", async () => {
    // A forfeits to B, A beats C 1–0, C beats B 1–0: 3 points each. [forfeits]: B, C (seed), A.
    // (The defaults would take A and C: score difference A +1, C 0, B −1.)
    const lg = await league({
      stages: [
        { format: "round_robin", format_options: { tie_breakers: ["forfeits"] }, advance: { per_group: 2 } },
        { format: "single_elimination" },
      ],
    }, 3);
    await play(lg, ["A ff B", "A 1-0 C", "C 1-0 B"]);
    const one = await stageOf(lg.call, lg.id, 1);
    expect(one.status).toBe("completed");
    expect(one.standings.map((s: { team_id: string; separated_by: string | null }) => [lg.letter(s.team_id), s.separated_by])).toEqual([
      ["B", null],
      ["C", "seed"],
      ["A", "forfeits"],
    ]);
    const two = await stageOf(lg.call, lg.id, 2);
    expect(two.qualifiers.map((q: { team_id: string; seed: number }) => [lg.letter(q.team_id), q.seed])).toEqual([["B", 1], ["C", 2]]);
    expectStatus(await lg.call("PATCH", `/tournaments/${lg.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const final = (await results(lg, "?stage=2")).matches;
    expect(final.map((m) => [lg.letter(m.team1_id!), m.team1_seed, lg.letter(m.team2_id!), m.team2_seed])).toEqual([["B", 1, "C", 2]]);
  });

  it("per_group with groups: each group's winner, seeded by points across the tier", async () => {
    // Groups (snake): 1 = A, D; 2 = B, C. A–D 2–2 (A on the seed, 1 point); C beats B (3 points).
    // Tier 1 = A and C, ordered by the stage's criteria: C (3) seed 1, A (1) seed 2.
    const lg = await league({
      stages: [
        { format: "round_robin", format_options: { groups: 2, draws: true }, advance: { per_group: 1 } },
        { format: "single_elimination" },
      ],
    }, 4);
    await play(lg, ["A 2-2 D", "C 1-0 B"]);
    const two = await stageOf(lg.call, lg.id, 2);
    expect(
      two.qualifiers.map((q: { team_id: string; seed: number; from_group: number; from_position: number }) => [
        lg.letter(q.team_id),
        q.seed,
        q.from_group,
        q.from_position,
      ]),
    ).toEqual([["C", 1, 2, 1], ["A", 2, 1, 1]]);
  });

  it("top after swiss takes the top of the stage's own order (score_for)", async () => {
    // R1 A–C, B–D: A and B win 1–0. R2 A–B, C–D: A wins 1–0, D beats C 9–0.
    // A 2; B 1 (scored 1), D 1 (scored 9); C 0. [score_for]: A, D, B, C; top 2 = A, D.
    // (By the default Buchholz B would go: B's opponents D 1 + A 2 = 3, D's B 1 + C 0 = 1.)
    const lg = await league({
      stages: [
        { format: "swiss", format_options: { tie_breakers: ["score_for"] }, advance: { top: 2 } },
        { format: "single_elimination" },
      ],
    }, 4);
    await play(lg, ["A 1-0 C", "B 1-0 D"], 1);
    expect(pairings(lg, (await results(lg)).matches, 2)).toEqual(["A-B", "C-D"]);
    await play(lg, ["A 1-0 B", "D 9-0 C"], 2);
    const one = await stageOf(lg.call, lg.id, 1);
    expect(one.status).toBe("completed");
    expect(order(lg, one.standings)).toBe("A D B C");
    expect(one.standings.map((s: { separated_by: string | null }) => s.separated_by)).toEqual([null, "points", "score_for", "points"]);
    const two = await stageOf(lg.call, lg.id, 2);
    expect(two.qualifiers.map((q: { team_id: string; seed: number }) => [lg.letter(q.team_id), q.seed])).toEqual([["A", 1], ["D", 2]]);
    expectStatus(await lg.call("PATCH", `/tournaments/${lg.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const final = (await results(lg, "?stage=2")).matches;
    expect(final.map((m) => [lg.letter(m.team1_id!), lg.letter(m.team2_id!)])).toEqual([["A", "D"]]);
  });

  it("orders a tier across groups by the stage's own tie-breakers (score_for)", async () => {
    // Groups (snake): 1 = A, D; 2 = B, C. A beats D 5–4 (difference +1, scored 5); C beats B 2–0
    // (+2, scored 2). Both winners on 3 points; [score_for]: A seed 1, C seed 2 (the default
    // score difference would have put C first).
    const lg = await league({
      stages: [
        { format: "round_robin", format_options: { groups: 2, tie_breakers: ["score_for"] }, advance: { per_group: 1 } },
        { format: "single_elimination" },
      ],
    }, 4);
    await play(lg, ["A 5-4 D", "C 2-0 B"]);
    const two = await stageOf(lg.call, lg.id, 2);
    expect(two.qualifiers.map((q: { team_id: string; seed: number }) => [lg.letter(q.team_id), q.seed])).toEqual([["A", 1], ["C", 2]]);
  });

  it("a tie at the cut broken only by the seed is no stage_tie: the start needs no `advancing`", async () => {
    // Three 1–1 draws: everyone level on everything; the seed takes A and B through.
    const lg = await league({
      stages: [
        { format: "round_robin", format_options: { draws: true }, advance: { per_group: 2 } },
        { format: "single_elimination" },
      ],
    }, 3);
    await play(lg, ["A 1-1 B", "A 1-1 C", "B 1-1 C"]);
    const two = await stageOf(lg.call, lg.id, 2);
    expect(two.qualifiers.map((q: { team_id: string; seed: number }) => [lg.letter(q.team_id), q.seed])).toEqual([["A", 1], ["B", 2]]);
    const start = await lg.call("PATCH", `/tournaments/${lg.id}/stages/2`, { body: { status: "ongoing" } });
    expectStatus(start, 200);
  });
});

describe("swiss: draws", () => {
  it("refuses equal scores without draws and draws the next round when the last match of a round is drawn", async () => {
    const plain = await league(swiss(), 4);
    const m = (await results(plain)).matches[0];
    expectError(
      await plain.call("PATCH", `/tournaments/${plain.id}/matches/${m.id}`, { body: { team1_score: 1, team2_score: 1 } }),
      400,
      "validation_error",
    );

    const lg = await league(swiss({ draws: true }), 4);
    await play(lg, ["A 1-1 C", "B 0-0 D"], 1);
    const data = await results(lg);
    for (const r1 of data.matches.filter((x) => x.round === 1)) {
      expect({ status: r1.status, winner_id: r1.winner_id, draw: r1.draw }).toEqual({ status: "completed", winner_id: null, draw: true });
    }
    const round2 = pairings(lg, data.matches, 2);
    expect(round2).toHaveLength(2);
    expect(round2.join("-").split("-").sort()).toEqual(["A", "B", "C", "D"]);
    expect(data.standings.map((s) => [s.points, s.draws])).toEqual([[1, 1], [1, 1], [1, 1], [1, 1]]);
  });

  it("draws the next round again by points when a drawn match of the round before is corrected to a win", async () => {
    // R1 A–C 1–1, B beats D: round 2 is drawn. A–C corrected to A 1–0 before round 2 has a
    // result: A and B on 3, C and D on 0, so round 2 becomes A–B, C–D.
    const lg = await league(swiss({ draws: true }), 4);
    await play(lg, ["A 1-1 C", "B 1-0 D"], 1);
    expect(pairings(lg, (await results(lg)).matches, 2)).toHaveLength(2);
    await play(lg, ["A 1-0 C"], 1);
    const data = await results(lg);
    expect(pairings(lg, data.matches, 2)).toEqual(["A-B", "C-D"]);
    expect(data.standings.map((s) => [lg.letter(s.team_id), s.points])).toEqual([["A", 3], ["B", 3], ["C", 0], ["D", 0]]);
  });
});

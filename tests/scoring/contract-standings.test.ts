// Round robin standings under contract section 19, from the contract alone: points {win, draw,
// loss, forfeit_loss}, each tie-breaker made decisive by a league where it alone separates two
// teams (the lower seed placed above the higher, so the seed cannot be what placed them),
// head_to_head computed once among the teams tied on every criterion before it, Sonneborn-Berger's
// halves, the seed ending the order with separated_by "seed", and groups. Every expected table is
// worked out by hand in the comment above it; rows are [team, position, wins, draws, losses,
// points, separated_by] with A = seed 1, B = seed 2, …
import { describe, expect, it } from "vitest";
import { expectStatus } from "../support/helpers.ts";
import { league, play, results, rrRows } from "./contract-support.ts";

const rr = (format_options: Record<string, unknown> = {}) => ({ format: "round_robin", format_options });

describe("round robin: points and draws", () => {
  it("gives 3/1/0 by default with draws and shows every standing field", async () => {
    // A–B 1–1, A–C 2–0, D beats A 1–0, B–C 3–3, B beats D 2–0, C beats D 1–0.
    // B: D D W = 5; A: D W L = 4; C: L D W = 4; D: W L L = 3. A and C tie on 4: A beat C.
    const lg = await league(rr({ draws: true }), 4);
    await play(lg, ["A 1-1 B", "A 2-0 C", "A 0-1 D", "B 3-3 C", "B 2-0 D", "C 1-0 D"]);
    const { standings } = await results(lg);
    expect(rrRows(lg, standings)).toEqual([
      ["B", 1, 1, 2, 0, 5, null],
      ["A", 2, 1, 1, 1, 4, "points"],
      ["C", 3, 1, 1, 1, 4, "head_to_head"],
      ["D", 4, 1, 0, 2, 3, "points"],
    ]);
    const first = standings[0];
    expect(Object.keys(first).sort()).toEqual(
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
      ].sort(),
    );
    for (const s of standings) {
      expect({ group: s.group, group_position: s.group_position, disqualified: s.disqualified }).toEqual({
        group: 1,
        group_position: s.position,
        disqualified: false,
      });
    }
  });

  it("scores win, draw, loss and forfeit_loss as configured, negative points included", async () => {
    // {win 5, draw 2, loss 1, forfeit_loss −3}. A forfeits to B; A–C 1–1; C beats B 2–0.
    // A: −3 + 2 = −1 (0-1-1); B: 5 + 1 = 6 (1-0-1); C: 2 + 5 = 7 (1-1-0).
    const lg = await league(rr({ draws: true, points: { win: 5, draw: 2, loss: 1, forfeit_loss: -3 } }), 3);
    await play(lg, ["A ff B", "A 1-1 C", "C 2-0 B"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["C", 1, 1, 1, 0, 7, null],
      ["B", 2, 1, 0, 1, 6, "points"],
      ["A", 3, 0, 1, 1, -1, "points"],
    ]);
  });

  it("scores a forfeit loss as a loss when forfeit_loss is not given (section 10's {win, loss})", async () => {
    // {win 3, loss 1} → draw 1, forfeit_loss 1. A forfeits to B; B beats C 2–0; C beats A 1–0.
    // B: 3 + 3 = 6; C: 1 + 3 = 4; A: 1 (forfeit) + 1 = 2 (with a forfeit loss of 0 it would be 1).
    const lg = await league(rr({ points: { win: 3, loss: 1 } }), 3);
    const got = await lg.call("GET", `/tournaments/${lg.id}`);
    expect(got.body.data.format_options.points, got.text).toEqual({ win: 3, draw: 1, loss: 1, forfeit_loss: 1 });
    await play(lg, ["A ff B", "B 2-0 C", "C 1-0 A"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["B", 1, 2, 0, 0, 6, null],
      ["C", 2, 1, 0, 1, 4, "points"],
      ["A", 3, 0, 0, 2, 2, "points"],
    ]);
  });
});

describe("round robin: each tie-breaker decides on its own", () => {
  it("wins: the team with more wins places above a team level on points with draws", async () => {
    // {win 2, draw 1}. A draws all three (3 points, no win). B beats C, D beats B, C beats D:
    // B, C, D have 1 + 2 + 0 = 3 and one win each. All on 3: B, C, D (seed among them), then A.
    const lg = await league(rr({ draws: true, points: { win: 2, draw: 1, loss: 0 }, tie_breakers: ["wins"] }), 4);
    await play(lg, ["A 0-0 B", "A 0-0 C", "A 0-0 D", "B 1-0 C", "D 1-0 B", "C 1-0 D"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["B", 1, 1, 1, 1, 3, null],
      ["C", 2, 1, 1, 1, 3, "seed"],
      ["D", 3, 1, 1, 1, 3, "seed"],
      ["A", 4, 0, 3, 0, 3, "wins"],
    ]);
  });

  it("score_difference: a cycle of wins is ordered by score difference", async () => {
    // A beats B 1–0, B beats C 1–0, C beats A 5–0: 3 points each; differences A −4, B 0, C +4.
    const lg = await league(rr({ tie_breakers: ["score_difference"] }), 3);
    await play(lg, ["A 1-0 B", "B 1-0 C", "C 5-0 A"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["C", 1, 1, 0, 1, 3, null],
      ["B", 2, 1, 0, 1, 3, "score_difference"],
      ["A", 3, 1, 0, 1, 3, "score_difference"],
    ]);
  });

  it("score_for (the defaults): head-to-head and difference level, score for decides", async () => {
    // A beats B 1–0, B beats C 3–2, C beats A 2–1: 3 points each, 3 head-to-head points each,
    // difference 0 each; scored A 2, B 3, C 4.
    const lg = await league(rr(), 3);
    await play(lg, ["A 1-0 B", "B 3-2 C", "C 2-1 A"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["C", 1, 1, 0, 1, 3, null],
      ["B", 2, 1, 0, 1, 3, "score_for"],
      ["A", 3, 1, 0, 1, 3, "score_for"],
    ]);
  });

  it("head_to_head (the defaults): the winner of the match between two level teams places above whatever the difference", async () => {
    // B beats A 1–0, A beats C and D 5–0, C beats B 1–0, B beats D 1–0, D beats C 1–0.
    // A 6 (difference +9), B 6 (+1): B beat A. C 3, D 3 (−5 each): D beat C.
    const lg = await league(rr(), 4);
    await play(lg, ["B 1-0 A", "A 5-0 C", "A 5-0 D", "C 1-0 B", "B 1-0 D", "D 1-0 C"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["B", 1, 2, 0, 1, 6, null],
      ["A", 2, 2, 0, 1, 6, "head_to_head"],
      ["D", 3, 1, 0, 2, 3, "points"],
      ["C", 4, 1, 0, 2, 3, "head_to_head"],
    ]);
  });

  it("forfeits: fewer forfeit losses ranks higher", async () => {
    // A forfeits to B, A beats C, C beats B: 3 points each; A has the only forfeit loss.
    const lg = await league(rr({ tie_breakers: ["forfeits"] }), 3);
    await play(lg, ["A ff B", "A 1-0 C", "C 1-0 B"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["B", 1, 1, 0, 1, 3, null],
      ["C", 2, 1, 0, 1, 3, "seed"],
      ["A", 3, 1, 0, 1, 3, "forfeits"],
    ]);
  });

  it("sonneborn_berger: the points of the opponents beaten, plus half of those drawn", async () => {
    // {win 2, draw 1}. B beats A, A beats C and D, B draws C and D, C beats D.
    // A: L W W = 4; B: W D D = 4; C: L D W = 3; D: L D L = 1.
    // Sonneborn-Berger: B = A's 4 + (3 + 1) / 2 = 6; A = C's 3 + D's 1 = 4 (not counting the
    // draws would make them level, and the seed would put A first).
    const lg = await league(rr({ draws: true, points: { win: 2, draw: 1, loss: 0 }, tie_breakers: ["sonneborn_berger"] }), 4);
    await play(lg, ["B 1-0 A", "A 1-0 C", "A 1-0 D", "B 0-0 C", "B 0-0 D", "C 1-0 D"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["B", 1, 1, 2, 0, 4, null],
      ["A", 2, 2, 0, 1, 4, "sonneborn_berger"],
      ["C", 3, 1, 1, 1, 3, "points"],
      ["D", 4, 0, 1, 2, 1, "points"],
    ]);
  });

  it("sonneborn_berger counts a draw as exactly half: five teams level at 8, the next criterion decides", async () => {
    // {win 2, draw 1}. B beats A, A beats C and D, E beats A and B, B draws C and D, C draws D,
    // C and D beat E. Everyone has 4 points: A W2 L2; B, C, D W1 D2 L1; E W2 L2.
    // Sonneborn-Berger: A = C 4 + D 4 = 8; B = A 4 + (C 4 + D 4) / 2 = 8; C = E 4 + (B + D) / 2
    // = 8; D = 8 likewise; E = A 4 + B 4 = 8. Level, so wins: A and E (2) before B, C, D (1).
    // (Draws counted in full: B, C, D 12 before A, E; not at all: B, C, D 4 after A, E by
    // Sonneborn-Berger rather than by wins.)
    const lg = await league(
      rr({ draws: true, points: { win: 2, draw: 1, loss: 0 }, tie_breakers: ["sonneborn_berger", "wins"] }),
      5,
    );
    await play(lg, [
      "B 1-0 A",
      "A 1-0 C",
      "A 1-0 D",
      "E 1-0 A",
      "B 0-0 C",
      "B 0-0 D",
      "E 1-0 B",
      "C 0-0 D",
      "C 1-0 E",
      "D 1-0 E",
    ]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["A", 1, 2, 0, 2, 4, null],
      ["E", 2, 2, 0, 2, 4, "seed"],
      ["B", 3, 1, 2, 1, 4, "wins"],
      ["C", 4, 1, 2, 1, 4, "seed"],
      ["D", 5, 1, 2, 1, 4, "seed"],
    ]);
  });
});

describe("round robin: head_to_head later in the list", () => {
  // B beats A 1–0, A beats C 1–0, C beats B 1–0 (a cycle), A beats D 2–0, B beats D 2–0,
  // C beats D 3–0. A, B, C have 6 points; differences A +2, B +2, C +3; scored A 3, B 3.
  const script = ["B 1-0 A", "A 1-0 C", "C 1-0 B", "A 2-0 D", "B 2-0 D", "C 3-0 D"];

  it("counts head-to-head among the teams also level on score_difference, not all those level on points", async () => {
    // [score_difference, head_to_head]: C first (+3); A and B (+2) are the set: B beat A.
    // (Among A, B, C every team has 3 head-to-head points, and the seed would put A first.)
    const later = await league(rr({ tie_breakers: ["score_difference", "head_to_head"] }), 4);
    // The defaults on the same results: head-to-head among A, B, C is level (3 each), C's
    // difference is best, A and B level on difference and score for: the seed.
    const defaults = await league(rr(), 4);
    await Promise.all([play(later, script), play(defaults, script)]);
    expect(rrRows(later, (await results(later)).standings)).toEqual([
      ["C", 1, 2, 0, 1, 6, null],
      ["B", 2, 2, 0, 1, 6, "score_difference"],
      ["A", 3, 2, 0, 1, 6, "head_to_head"],
      ["D", 4, 0, 0, 3, 0, "points"],
    ]);
    expect(rrRows(defaults, (await results(defaults)).standings)).toEqual([
      ["C", 1, 2, 0, 1, 6, null],
      ["A", 2, 2, 0, 1, 6, "score_difference"],
      ["B", 3, 2, 0, 1, 6, "seed"],
      ["D", 4, 0, 0, 3, 0, "points"],
    ]);
  });

  it("computes head-to-head once for its set: two teams it leaves level are not compared again between themselves", async () => {
    // {win 2, draw 1}, [score_for, head_to_head]. Results:
    //   B beats A 1–0, A beats C 1–0, C beats B 1–0, A–D 1–1, B–D 2–2, C beats D 3–0,
    //   A–E 2–2, B–E 1–1, E beats C 5–0, D beats E 1–0.
    // Points: A L W D D = 4, B W L D D = 4, C L W W L = 4, D D D L W = 4, E D D W L = 4.
    // Scored: A 0+1+1+2 = 4, B 1+0+2+1 = 4, C 0+1+3+0 = 4, D 1+2+0+1 = 4, E 2+1+5+0 = 8.
    // E first on score_for; the set {A, B, C, D}: head-to-head points A 0+2+1 = 3,
    // B 2+0+1 = 3, C 0+2+2 = 4, D 1+1+0 = 2 → C, A, B, D, with A and B left to the seed
    // (B beat A, but head-to-head is not computed again for {A, B}).
    const lg = await league(rr({ draws: true, points: { win: 2, draw: 1, loss: 0 }, tie_breakers: ["score_for", "head_to_head"] }), 5);
    await play(lg, [
      "B 1-0 A",
      "A 1-0 C",
      "C 1-0 B",
      "A 1-1 D",
      "B 2-2 D",
      "C 3-0 D",
      "A 2-2 E",
      "B 1-1 E",
      "E 5-0 C",
      "D 1-0 E",
    ]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["E", 1, 1, 2, 1, 4, null],
      ["C", 2, 2, 0, 2, 4, "score_for"],
      ["A", 3, 1, 2, 1, 4, "head_to_head"],
      ["B", 4, 1, 2, 1, 4, "seed"],
      ["D", 5, 1, 2, 1, 4, "head_to_head"],
    ]);
  });
});

describe("round robin: the seed ends the order", () => {
  it("accepts all eight criteria and, when every one ties, separates by seed alone", async () => {
    const all = ["head_to_head", "wins", "score_difference", "score_for", "buchholz", "median_buchholz", "sonneborn_berger", "forfeits"];
    const lg = await league(rr({ draws: true, tie_breakers: all }), 3);
    // Every match 1–1: one point a draw each, everything level.
    await play(lg, ["A 1-1 B", "A 1-1 C", "B 1-1 C"]);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([
      ["A", 1, 0, 2, 0, 2, null],
      ["B", 2, 0, 2, 0, 2, "seed"],
      ["C", 3, 0, 2, 0, 2, "seed"],
    ]);
  });

  it("starts separated_by afresh in each group", async () => {
    // Two groups dealt in snake order: group 1 = A (seed 1), D (seed 4); group 2 = B, C.
    // A–D 2–2: level on everything, the seed. C beats B 1–0: points.
    const lg = await league(rr({ groups: 2, draws: true }), 4);
    const { matches } = await results(lg);
    expect(matches.map((m) => [m.group, [lg.letter(m.team1_id!), lg.letter(m.team2_id!)].sort().join("")]).sort()).toEqual([
      [1, "AD"],
      [2, "BC"],
    ]);
    await play(lg, ["A 2-2 D", "C 1-0 B"]);
    const rows = (await results(lg)).standings
      .map((s) => [s.group, s.group_position, lg.letter(s.team_id), s.points, s.separated_by])
      .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    expect(rows).toEqual([
      [1, 1, "A", 1, null],
      [1, 2, "D", 1, "seed"],
      [2, 1, "C", 3, null],
      [2, 2, "B", 0, "points"],
    ]);
  });
});

describe("round robin: a disqualified team", () => {
  it("places below the others whatever its points, shown disqualified", async () => {
    // A beats B and C (6 points), C beats B; then A is disqualified (section 17): A last;
    // C 3 above B 0 by points.
    const lg = await league(rr(), 3);
    await play(lg, ["A 1-0 B", "A 1-0 C", "C 1-0 B"]);
    const regs = await lg.call("GET", `/tournaments/${lg.id}/registrations`);
    const reg = regs.body.data.find((r: { team_id: string }) => r.team_id === lg.team("A"));
    expectStatus(await lg.call("PATCH", `/tournaments/${lg.id}/registrations/${reg.id}`, { body: { disqualified: true } }), 200);
    const { standings } = await results(lg);
    expect(standings.map((s) => [lg.letter(s.team_id), s.position, s.points, s.disqualified])).toEqual([
      ["C", 1, 3, false],
      ["B", 2, 0, false],
      ["A", 3, 6, true],
    ]);
    expect(standings.slice(0, 2).map((s) => s.separated_by)).toEqual([null, "points"]);
  });
});

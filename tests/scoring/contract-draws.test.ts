// Drawn matches under contract section 19, from the contract alone: a direct draw on best of 1,
// equal scores refused without draws, corrections between a draw and a win, even series by games
// (best of 2: open at 1–0, 2–0 a win, 1–1 a draw; best of 4) and by a direct series score (best
// of 4: 3–0, 3–1 win, 2–2 draw, 3–2 or 4–0 refused), a drawn league completing, drawn matches in
// webhooks (match.completed with draw true and no winner) and deltas (?since), and races: a
// round robin's draws reported in parallel, the two draws ending a swiss round, and a draw and
// a win sent at once for one match.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Match } from "../support/helpers.ts";
import { createEndpoint, deliveries } from "../support/webhook-helpers.ts";
import {
  bodyOf,
  expectDrawn,
  freshKeys,
  type League,
  league,
  matchOf,
  pairings,
  patchMatch,
  play,
  results,
  rrRows,
} from "./contract-support.ts";

const rr = (format_options: Record<string, unknown> = {}) => ({ format: "round_robin", format_options });

function patch(lg: League, m: Match, body: unknown) {
  return lg.call("PATCH", `/tournaments/${lg.id}/matches/${m.id}`, { body });
}

function putGame(lg: League, m: Match, n: number, team1_score: number, team2_score: number) {
  return lg.call("PUT", `/tournaments/${lg.id}/matches/${m.id}/games/${n}`, { body: { team1_score, team2_score } });
}

async function only(lg: League): Promise<Match> {
  const { matches } = await results(lg);
  expect(matches).toHaveLength(1);
  return matches[0];
}

describe("a direct result on best of 1", () => {
  it("completes a match as a draw on equal scores: no winner, draw true; every other match says draw false", async () => {
    const lg = await league(rr({ draws: true }), 3);
    const { matches } = await results(lg);
    for (const m of matches) expect(m.draw, JSON.stringify(m)).toBe(false);
    const ab = matchOf(lg, matches, "A", "B");
    const res = await patch(lg, ab, { team1_score: 2, team2_score: 2 });
    expectStatus(res, 200);
    expectDrawn(res.body.data, res.text);
    expect([res.body.data.team1_score, res.body.data.team2_score]).toEqual([2, 2]);
    await play(lg, ["A 1-0 C"]);
    const after = (await results(lg)).matches;
    expectDrawn(matchOf(lg, after, "A", "B"));
    expect(matchOf(lg, after, "A", "C")).toMatchObject({ status: "completed", winner_id: lg.team("A"), draw: false });
    expect(matchOf(lg, after, "B", "C")).toMatchObject({ status: "ready", winner_id: null, draw: false });
    // 0–0 is a draw too.
    expectDrawn((await patch(lg, matchOf(lg, after, "B", "C"), { team1_score: 0, team2_score: 0 })).body.data);
  });

  it("refuses equal scores without draws (400), in round robin as before", async () => {
    const lg = await league(rr(), 2);
    const m = await only(lg);
    expectError(await patch(lg, m, { team1_score: 1, team2_score: 1 }), 400, "validation_error");
    expect(await only(lg)).toMatchObject({ status: "ready", winner_id: null, draw: false, team1_score: null });
  });

  it("corrects a draw to a win and back, the standings following", async () => {
    const lg = await league(rr({ draws: true }), 2);
    const m = await only(lg);
    expectStatus(await patch(lg, m, { team1_score: 1, team2_score: 1 }), 200);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([["A", 1, 0, 1, 0, 1, null], ["B", 2, 0, 1, 0, 1, "seed"]]);
    const win = await patch(lg, m, bodyOf(lg, m, "B 2-1 A"));
    expectStatus(win, 200);
    expect(win.body.data).toMatchObject({ status: "completed", winner_id: lg.team("B"), draw: false });
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([["B", 1, 1, 0, 0, 3, null], ["A", 2, 0, 0, 1, 0, "points"]]);
    expectDrawn((await patch(lg, m, { team1_score: 3, team2_score: 3 })).body.data);
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([["A", 1, 0, 1, 0, 1, null], ["B", 2, 0, 1, 0, 1, "seed"]]);
  });

  it("keeps draw false on a forfeit in a league with draws", async () => {
    const lg = await league(rr({ draws: true }), 2);
    const m = await only(lg);
    const res = await patch(lg, m, { forfeit: "team1" });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ status: "completed", winner_id: m.team2_id, forfeit: "team1", draw: false });
  });

  it("refuses equal scores in an elimination stage after a round robin stage with draws", async () => {
    const lg = await league({
      stages: [
        { format: "round_robin", format_options: { draws: true }, advance: { per_group: 2 } },
        { format: "single_elimination" },
      ],
    }, 2);
    await play(lg, ["A 1-1 B"]);
    expectStatus(await lg.call("PATCH", `/tournaments/${lg.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const final = (await results(lg, "?stage=2")).matches[0];
    expect(final.draw).toBe(false);
    expectError(await patch(lg, final, { team1_score: 1, team2_score: 1 }), 400, "validation_error");
    const won = await patch(lg, final, { team1_score: 1, team2_score: 0 });
    expectStatus(won, 200);
    expect(won.body.data).toMatchObject({ winner_id: final.team1_id, draw: false });
  });

  it("completes a league whose every match is drawn", async () => {
    const lg = await league(rr({ draws: true }), 3);
    await play(lg, ["A 0-0 B", "A 0-0 C", "B 0-0 C"]);
    const done = await lg.call("PATCH", `/tournaments/${lg.id}`, { body: { status: "completed" } });
    expectStatus(done, 200);
    expect(done.body.data.status).toBe("completed");
  });
});

describe("an even series", () => {
  it("best of 2 by games: open at 1–0, a draw at 1–1, a win at 2–0, no game 3", async () => {
    const lg = await league(rr({ draws: true, best_of: 2 }), 2);
    const m = await only(lg);
    expect(m.best_of).toBe(2);
    let res = await putGame(lg, m, 1, 1, 0);
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ status: "ready", team1_score: 1, team2_score: 0, winner_id: null, draw: false });
    res = await putGame(lg, m, 2, 0, 3);
    expectStatus(res, 200);
    expectDrawn(res.body.data, res.text);
    expect([res.body.data.team1_score, res.body.data.team2_score, res.body.data.games.length]).toEqual([1, 1, 2]);
    expectError(await putGame(lg, m, 3, 1, 0), 400, "validation_error");
    // Game 2 corrected: 2–0 to team 1.
    res = await putGame(lg, m, 2, 2, 1);
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ status: "completed", team1_score: 2, team2_score: 0, winner_id: m.team1_id, draw: false });
    // The last game removed: open again at 1–0.
    res = await lg.call("DELETE", `/tournaments/${lg.id}/matches/${m.id}/games/2`);
    expectStatus(res, 200);
    const back = await only(lg);
    expect(back).toMatchObject({ status: "ready", team1_score: 1, team2_score: 0, winner_id: null, draw: false });
  });

  it("best of 2 by a direct series score: 2–0 a win, 1–1 a draw, anything else 400", async () => {
    const lg = await league(rr({ draws: true, best_of: 2 }), 2);
    const m = await only(lg);
    for (const [a, b] of [[1, 0], [0, 1], [0, 0], [2, 1], [2, 2], [3, 0]]) {
      expectError(await patch(lg, m, { team1_score: a, team2_score: b }), 400, "validation_error");
    }
    expectDrawn((await patch(lg, m, { team1_score: 1, team2_score: 1 })).body.data);
    const win = await patch(lg, m, { team1_score: 0, team2_score: 2 });
    expectStatus(win, 200);
    expect(win.body.data).toMatchObject({ status: "completed", winner_id: m.team2_id, draw: false });
  });

  it("best of 4 by a direct series score: 3–0 and 3–1 win, 2–2 draws, 3–2, 4–0 and short scores are 400", async () => {
    const lg = await league(rr({ draws: true, best_of: 4 }), 2);
    const m = await only(lg);
    for (const [a, b] of [[3, 2], [2, 3], [4, 0], [0, 4], [3, 3], [2, 1], [2, 0], [1, 1], [0, 0]]) {
      expectError(await patch(lg, m, { team1_score: a, team2_score: b }), 400, "validation_error");
    }
    for (const [a, b, winner] of [[3, 0, m.team1_id], [1, 3, m.team2_id], [3, 1, m.team1_id]] as const) {
      const res = await patch(lg, m, { team1_score: a, team2_score: b });
      expectStatus(res, 200);
      expect(res.body.data).toMatchObject({ status: "completed", team1_score: a, team2_score: b, winner_id: winner, draw: false });
    }
    const drawn = await patch(lg, m, { team1_score: 2, team2_score: 2 });
    expectStatus(drawn, 200);
    expectDrawn(drawn.body.data, drawn.text);
  });

  it("an odd series cannot be drawn: best of 3 refuses a direct 1–1 even with draws", async () => {
    // A direct series score counts at most best_of games; a draw is best_of/2 each, which an odd
    // best_of has not.
    const lg = await league(rr({ draws: true, best_of: 3 }), 2);
    const m = await only(lg);
    for (const [a, b] of [[1, 1], [0, 0], [2, 2]]) {
      expectError(await patch(lg, m, { team1_score: a, team2_score: b }), 400, "validation_error");
    }
    expect((await patch(lg, m, { team1_score: 2, team2_score: 1 })).body.data).toMatchObject({ winner_id: m.team1_id, draw: false });
  });

  it("draws a match whose own best_of was changed to 2 by a 1–1 series score", async () => {
    const lg = await league(rr({ draws: true }), 2);
    const m = await only(lg);
    expectStatus(await patch(lg, m, { best_of: 2 }), 200);
    expectError(await patch(lg, m, { team1_score: 2, team2_score: 1 }), 400, "validation_error");
    const res = await patch(lg, m, { team1_score: 1, team2_score: 1 });
    expectStatus(res, 200);
    expectDrawn(res.body.data, res.text);
    expect(res.body.data.best_of).toBe(2);
  });

  it("best of 4 by games: 3–0 ends it (a fourth game is series_decided), 2–2 after four games is a draw", async () => {
    const lg = await league(rr({ draws: true, best_of: 4 }), 3);
    const { matches } = await results(lg);
    const ab = matchOf(lg, matches, "A", "B");
    for (const n of [1, 2]) expectStatus(await putGame(lg, ab, n, 1, 0), 200);
    expect((await putGame(lg, ab, 3, 1, 0)).body.data).toMatchObject({ status: "completed", winner_id: ab.team1_id, draw: false });
    expectError(await putGame(lg, ab, 4, 1, 0), 409, "series_decided");

    const ac = matchOf(lg, matches, "A", "C");
    for (const [n, a, b] of [[1, 1, 0], [2, 0, 1], [3, 1, 0]]) expectStatus(await putGame(lg, ac, n, a, b), 200);
    expect(matchOf(lg, (await results(lg)).matches, "A", "C")).toMatchObject({
      status: "ready",
      team1_score: 2,
      team2_score: 1,
      draw: false,
    });
    const res = await putGame(lg, ac, 4, 0, 1);
    expectStatus(res, 200);
    expectDrawn(res.body.data, res.text);
    expect([res.body.data.team1_score, res.body.data.team2_score]).toEqual([2, 2]);
  });
});

describe("webhooks and deltas show draws", () => {
  it("sends match.completed with draw true and no winner, and match.corrected when the draw becomes a win", async () => {
    const lg = await league(rr({ draws: true }), 2);
    const endpoint = await createEndpoint(lg.t, {
      url: "http://127.0.0.1:9/scoring-draws",
      events: ["match.completed", "match.corrected"],
      tournament_id: lg.id,
    });
    const m = await only(lg);
    expectStatus(await patch(lg, m, { team1_score: 1, team2_score: 1 }), 200);
    expectStatus(await patch(lg, m, { team1_score: 2, team2_score: 1 }), 200);
    const { data } = await deliveries(lg.t, endpoint.id);
    const byType = new Map(data.map((d) => [d.event_type, d.payload]));
    expect(data.map((d) => d.event_type).sort()).toEqual(["match.completed", "match.corrected"]);
    const completed = byType.get("match.completed");
    expect(completed.type).toBe("match.completed");
    expect(completed.data).toMatchObject({
      id: m.id,
      tournament_id: lg.id,
      status: "completed",
      team1_score: 1,
      team2_score: 1,
      winner_id: null,
      draw: true,
    });
    expect(byType.get("match.corrected").data).toMatchObject({ id: m.id, winner_id: m.team1_id, draw: false });
  });

  it("sends match.game_reported for each game and match.completed with draw true when a game levels a best of 2", async () => {
    const lg = await league(rr({ draws: true, best_of: 2 }), 2);
    const endpoint = await createEndpoint(lg.t, {
      url: "http://127.0.0.1:9/scoring-games",
      events: ["match.game_reported", "match.completed"],
      tournament_id: lg.id,
    });
    const m = await only(lg);
    expectStatus(await putGame(lg, m, 1, 1, 0), 200);
    const first = await deliveries(lg.t, endpoint.id);
    expect(first.data.map((d) => d.event_type)).toEqual(["match.game_reported"]);
    expect(first.data[0].payload.data).toMatchObject({ status: "ready", team1_score: 1, team2_score: 0, draw: false, winner_id: null });
    expectStatus(await putGame(lg, m, 2, 0, 1), 200);
    const { data } = await deliveries(lg.t, endpoint.id);
    expect(data.map((d) => d.event_type).sort()).toEqual(["match.completed", "match.game_reported", "match.game_reported"]);
    const completed = data.find((d) => d.event_type === "match.completed")!.payload.data;
    expect(completed).toMatchObject({ status: "completed", team1_score: 1, team2_score: 1, draw: true, winner_id: null });
    expect(completed.games).toHaveLength(2);
  });

  it("gives the drawn match in the delta since the version before it, with the whole standings", async () => {
    const lg = await league(rr({ draws: true }), 3);
    await play(lg, ["A 1-0 B"]);
    const before = (await results(lg)).tournament.version;
    await play(lg, ["B 2-2 C"]);
    const delta = await results(lg, `?since=${before}`);
    expect(delta.tournament.version).toBeGreaterThan(before);
    expect(delta.matches.map((m) => [lg.letter(m.team1_id!), lg.letter(m.team2_id!)].sort().join(""))).toEqual(["BC"]);
    expectDrawn(delta.matches[0]);
    // A 3 (W); C 1 (D); B 1 (L, D): B and C level, head-to-head level, difference B −1, C 0.
    expect(rrRows(lg, delta.standings)).toEqual([
      ["A", 1, 1, 0, 0, 3, null],
      ["C", 2, 0, 1, 0, 1, "points"],
      ["B", 3, 0, 1, 1, 1, "score_difference"],
    ]);
  });
});

describe("races", () => {
  it("takes a round robin's fifteen results sent at once, draws among them, and ranks them all", async () => {
    // A beats everyone 1–0; every other match is 0–0. A: 15 points; B–F: 4 draws and a loss,
    // 4 points each, level on everything: the seed.
    const lg = await league(rr({ draws: true }), 6);
    const { matches } = await results(lg);
    expect(matches).toHaveLength(15);
    const keys = await freshKeys(lg, matches.length);
    const answers = await Promise.all(matches.map((m, i) => {
      const a = lg.letter(m.team1_id!), b = lg.letter(m.team2_id!);
      const line = a === "A" ? `A 1-0 ${b}` : b === "A" ? `A 1-0 ${a}` : `${a} 0-0 ${b}`;
      return patchMatch(lg, m, bodyOf(lg, m, line), keys[i]);
    }));
    for (const res of answers) expectStatus(res, 200);
    const data = await results(lg);
    expect(data.matches.filter((m) => m.draw)).toHaveLength(10);
    expect(data.matches.every((m) => m.status === "completed")).toBe(true);
    expect(rrRows(lg, data.standings)).toEqual([
      ["A", 1, 5, 0, 0, 15, null],
      ["B", 2, 0, 4, 1, 4, "points"],
      ["C", 3, 0, 4, 1, 4, "seed"],
      ["D", 4, 0, 4, 1, 4, "seed"],
      ["E", 5, 0, 4, 1, 4, "seed"],
      ["F", 6, 0, 4, 1, 4, "seed"],
    ]);
  });

  it("draws a swiss round once when its last two matches are drawn at once", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const lg = await league({ format: "swiss", format_options: { draws: true } }, 4);
      const round1 = (await results(lg)).matches;
      const keys = await freshKeys(lg, 2);
      const answers = await Promise.all(round1.map((m, i) => patchMatch(lg, m, { team1_score: 1, team2_score: 1 }, keys[i])));
      for (const res of answers) expectStatus(res, 200);
      const data = await results(lg);
      const round2 = pairings(lg, data.matches, 2);
      expect(round2, `attempt ${attempt}`).toHaveLength(2);
      expect(round2.join("-").split("-").sort()).toEqual(["A", "B", "C", "D"]);
      expect(Math.max(...data.matches.map((m) => m.round))).toBe(2);
    }
  });

  it("keeps a match and the standings consistent when a draw and a win are sent at once", async () => {
    const lg = await league(rr({ draws: true }), 2);
    const m = await only(lg);
    const keys = await freshKeys(lg, 2);
    const answers = await Promise.all([
      patchMatch(lg, m, { team1_score: 1, team2_score: 1 }, keys[0]),
      patchMatch(lg, m, { team1_score: 2, team2_score: 0 }, keys[1]),
    ]);
    for (const res of answers) expect([200, 409], res.text).toContain(res.status);
    expect(answers.some((r) => r.status === 200)).toBe(true);
    const data = await results(lg);
    const final = data.matches[0];
    if (final.draw) {
      expect([final.team1_score, final.team2_score, final.winner_id]).toEqual([1, 1, null]);
      expect(rrRows(lg, data.standings)).toEqual([["A", 1, 0, 1, 0, 1, null], ["B", 2, 0, 1, 0, 1, "seed"]]);
    } else {
      expect([final.team1_score, final.team2_score, final.winner_id]).toEqual([2, 0, m.team1_id]);
      const w = lg.letter(m.team1_id!), l = lg.letter(m.team2_id!);
      expect(rrRows(lg, data.standings)).toEqual([[w, 1, 1, 0, 0, 3, null], [l, 2, 0, 0, 1, 0, "points"]]);
    }
  });
});

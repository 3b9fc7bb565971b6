// Draws and points (contract section 19) through the API: equal scores complete a match as a draw
// only where the stage allows draws; even series (best of 2 and 4) by games and by series score;
// the standings' draws, points (forfeit_loss included), separated_by; swiss scoring by points
// (a bye scores as a win, Buchholz sums the opponents' points); and the parity rules of best_of.
import { describe, expect, it } from "vitest";
import {
  type Call,
  createTeams,
  expectError,
  expectStatus,
  type GroupStanding,
  type Match,
  startedTournament,
  type SwissStanding,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

async function results<S>(call: Call, id: string): Promise<{ matches: Match[]; standings: S[] }> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  return res.body.data;
}

/** The match between seeds a and b (teams[i] is seed i + 1). */
function between(matches: Match[], teams: string[], a: number, b: number): Match {
  const ids = [teams[a - 1], teams[b - 1]];
  const m = matches.find((x) => ids.includes(x.team1_id!) && ids.includes(x.team2_id!));
  if (!m) throw new Error(`no match between seeds ${a} and ${b}`);
  return m;
}

/** Reports seed a's score and seed b's in their match, whichever side each is. */
function scores(m: Match, teams: string[], a: number, sa: number, sb: number) {
  return m.team1_id === teams[a - 1] ? { team1_score: sa, team2_score: sb } : { team1_score: sb, team2_score: sa };
}

describe("draws in a round robin", () => {
  it("equal scores complete a match as a draw (winner null, draw true); without draws they are 400", async () => {
    const teams = await createTeams(4, `Drw${Date.now().toString(36)}`);
    const on = await startedTournament({ format: "round_robin", format_options: { draws: true } }, teams);
    const off = await startedTournament({ format: "round_robin" }, teams);
    const [m] = (await results(on.call, on.id)).matches;
    const drawn = await on.call("PATCH", `/tournaments/${on.id}/matches/${m.id}`, { body: { team1_score: 2, team2_score: 2 } });
    expectStatus(drawn, 200);
    expect([drawn.body.data.status, drawn.body.data.winner_id, drawn.body.data.draw]).toEqual(["completed", null, true]);
    // a correction to a win, then back to a draw (0-0 is a draw too)
    const won = await on.call("PATCH", `/tournaments/${on.id}/matches/${m.id}`, { body: { team1_score: 3, team2_score: 2 } });
    expect([won.body.data.winner_id, won.body.data.draw]).toEqual([m.team1_id, false]);
    const again = await on.call("PATCH", `/tournaments/${on.id}/matches/${m.id}`, { body: { team1_score: 0, team2_score: 0 } });
    expect([again.body.data.winner_id, again.body.data.draw]).toEqual([null, true]);

    const [o] = (await results(off.call, off.id)).matches;
    expectError(
      await off.call("PATCH", `/tournaments/${off.id}/matches/${o.id}`, { body: { team1_score: 1, team2_score: 1 } }),
      400,
      "validation_error",
      ["team2_score"],
    );
    expect((await results(off.call, off.id)).matches.find((x) => x.id === o.id)).toMatchObject({ status: "ready", draw: false });
  });

  it("scores points {win, draw, loss, forfeit_loss}; separated_by names the criterion that split each pair", async () => {
    const teams = await createTeams(4, `Pts${Date.now().toString(36)}`);
    const points = { win: 3, draw: 1, loss: 0, forfeit_loss: -1 };
    const { call, id } = await startedTournament({ format: "round_robin", format_options: { draws: true, points } }, teams);
    const { matches } = await results(call, id);
    const put = async (a: number, b: number, body: Record<string, unknown>) =>
      expectStatus(await call("PATCH", `/tournaments/${id}/matches/${between(matches, teams, a, b).id}`, { body }), 200);
    // seed 1: D 2 (1-1), W 4 (2-0), W 3 (1-0) → 7 points
    // seed 2: D 1, W 3 (1-0), D 4 (0-0) → 5 points
    // seed 3: L 2, L 1, W 4 (4-0) → 3 points
    // seed 4: L 1, D 2, L 3 by forfeit → 1 + (-1) = 0 points
    await put(1, 2, scores(between(matches, teams, 1, 2), teams, 1, 1, 1));
    await put(1, 4, scores(between(matches, teams, 1, 4), teams, 1, 2, 0));
    await put(1, 3, scores(between(matches, teams, 1, 3), teams, 1, 1, 0));
    await put(2, 3, scores(between(matches, teams, 2, 3), teams, 2, 1, 0));
    await put(2, 4, scores(between(matches, teams, 2, 4), teams, 2, 0, 0));
    const m34 = between(matches, teams, 3, 4);
    await put(3, 4, { forfeit: m34.team1_id === teams[3] ? "team1" : "team2" });
    const { standings } = await results<GroupStanding>(call, id);
    expect(standings.map((s) => [teams.indexOf(s.team_id) + 1, s.wins, s.draws, s.losses, s.points, s.separated_by])).toEqual([
      [1, 2, 1, 0, 7, null],
      [2, 1, 2, 0, 5, "points"],
      [3, 1, 0, 2, 3, "points"],
      [4, 0, 1, 2, 0, "points"],
    ]);
  });

  it("separated_by says seed when nothing else splits two teams", async () => {
    const teams = await createTeams(2, `Sd${Date.now().toString(36)}`);
    const { call, id } = await startedTournament({ format: "round_robin", format_options: { draws: true } }, teams);
    const [m] = (await results(call, id)).matches;
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 1, team2_score: 1 } }), 200);
    const { standings } = await results<GroupStanding>(call, id);
    expect(standings.map((s) => [teams.indexOf(s.team_id) + 1, s.position, s.points, s.separated_by])).toEqual([
      [1, 1, 1, null],
      [2, 2, 1, "seed"],
    ]);
  });
});

describe("even series", () => {
  it("a best of 2 stays open at 1-0 and ends 2-0 (a win) or 1-1 (a draw); a third game is 400", async () => {
    const teams = await createTeams(2, `Bo2${Date.now().toString(36)}`);
    const { call, id } = await startedTournament({ format: "round_robin", format_options: { draws: true, best_of: 2 } }, teams);
    const [m] = (await results(call, id)).matches;
    const game = (n: number, t1: number, t2: number) =>
      call("PUT", `/tournaments/${id}/matches/${m.id}/games/${n}`, { body: { team1_score: t1, team2_score: t2 } });
    const one = await game(1, 13, 7);
    expectStatus(one, 200);
    expect([one.body.data.status, one.body.data.team1_score, one.body.data.team2_score]).toEqual(["ready", 1, 0]);
    const two = await game(2, 5, 13);
    expect([two.body.data.status, two.body.data.winner_id, two.body.data.draw, two.body.data.team1_score]).toEqual([
      "completed",
      null,
      true,
      1,
    ]);
    expectError(await game(3, 13, 1), 400, "validation_error", ["number"]);
    // correcting game 2 turns the draw into a 2-0 win
    const corrected = await game(2, 13, 5);
    expect([corrected.body.data.winner_id, corrected.body.data.draw, corrected.body.data.team1_score]).toEqual([m.team1_id, false, 2]);
    // deleting it reopens the series
    const deleted = await call("DELETE", `/tournaments/${id}/matches/${m.id}/games/2`);
    expect([deleted.body.data.status, deleted.body.data.draw]).toEqual(["ready", false]);
  });

  it("a direct series score of a best of 4: 3-0 and 3-1 win, 2-2 draws; 3-2, 4-0 and 1-1 are 400", async () => {
    const teams = await createTeams(2, `Bo4${Date.now().toString(36)}`);
    const { call, id } = await startedTournament({ format: "round_robin", format_options: { draws: true, best_of: 4 } }, teams);
    const [m] = (await results(call, id)).matches;
    const patch = (t1: number, t2: number) =>
      call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: t1, team2_score: t2 } });
    for (const [t1, t2] of [[3, 2], [4, 0], [1, 1], [2, 1]]) {
      expectError(await patch(t1, t2), 400, "validation_error");
    }
    expect((await patch(3, 0)).body.data.winner_id).toBe(m.team1_id);
    expect((await patch(1, 3)).body.data.winner_id).toBe(m.team2_id);
    const level = await patch(2, 2);
    expect([level.body.data.winner_id, level.body.data.draw]).toEqual([null, true]);
  });

  it("best_of is odd without draws (format_options and a match's PATCH), and elimination formats never draw", async () => {
    const t = await tenant();
    for (const format of ["round_robin", "swiss"]) {
      expectError(
        await t.request("POST", "/tournaments", { body: tournamentBody({ format, format_options: { best_of: 2 } }) }),
        400,
        "validation_error",
        ["format_options.best_of"],
      );
      const ok = await t.request("POST", "/tournaments", { body: tournamentBody({ format, format_options: { draws: true, best_of: 6 } }) });
      expectStatus(ok, 201);
      expect(ok.body.data.format_options).toMatchObject({ draws: true, best_of: 6 });
    }
    for (const format of ["single_elimination", "double_elimination"]) {
      expectError(
        await t.request("POST", "/tournaments", { body: tournamentBody({ format, format_options: { draws: true } }) }),
        400,
        "validation_error",
        ["format_options.draws"],
      );
    }
    const teams = await createTeams(2, `Par${Date.now().toString(36)}`);
    const { call, id } = await startedTournament({ format: "round_robin" }, teams);
    const [m] = (await results(call, id)).matches;
    expectError(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { best_of: 2 } }), 400, "validation_error", ["best_of"]);
  });
});

describe("swiss by points", () => {
  it("scores a bye as a win, a draw by the draw points, and Buchholz as the sum of the opponents' points", async () => {
    const teams = await createTeams(5, `SwP${Date.now().toString(36)}`);
    const { call, id } = await startedTournament(
      { format: "swiss", format_options: { rounds: 1, draws: true, points: { win: 3, draw: 1, loss: 0 } } },
      teams,
    );
    // round 1 of 5: 1-3, 2-4, seed 5 has the bye
    const { matches } = await results(call, id);
    const m13 = between(matches, teams, 1, 3);
    const m24 = between(matches, teams, 2, 4);
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m13.id}`, { body: scores(m13, teams, 1, 1, 1) }), 200);
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m24.id}`, { body: scores(m24, teams, 2, 0, 2) }), 200);
    const { standings } = await results<SwissStanding>(call, id);
    // points: 5 → 3 (bye), 4 → 3, 1 → 1, 3 → 1, 2 → 0; Buchholz: 4 → 0 (seed 2), 5 → 0 (no opponent),
    // 1 → 1 (seed 3), 3 → 1 (seed 1), 2 → 3 (seed 4). Order: points, Buchholz, seed.
    expect(standings.map((s) => [teams.indexOf(s.team_id) + 1, s.wins, s.draws, s.losses, s.points, s.buchholz, s.separated_by]))
      .toEqual([
        [4, 1, 0, 0, 3, 0, null],
        [5, 1, 0, 0, 3, 0, "seed"],
        [1, 0, 1, 0, 1, 1, "points"],
        [3, 0, 1, 0, 1, 1, "seed"],
        [2, 0, 0, 1, 0, 3, "points"],
      ]);
  });
});

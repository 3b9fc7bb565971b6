// Free-for-all standings (contract section 20, with 19's separated_by), from the contract alone:
// total points, then each tie-breaker made decisive by an event where it alone separates two teams
// (the lower seed placed above the higher where it can be, so the seed cannot be what placed them),
// the seed ending the order with separated_by "seed", the defaults' order, standings over lobbies
// and rounds checked against the model in contract-support.ts, and draw "standings": the next round
// dealt from the standings when a round completes, never re-dealt, and the round before locked
// once the next has a game. Rows are [team, position, points, kills, first_places, games_played,
// separated_by] with A = seed 1, B = seed 2, …
import { describe, expect, it } from "vitest";
import { createKey, expectError, expectStatus, request } from "../support/helpers.ts";
import {
  event,
  ffa,
  FFA_DEFAULTS,
  game,
  gameBody,
  lobbiesOf,
  modelRows,
  putGame,
  rank,
  results,
  rows,
  type Scoring,
  snake,
  tally,
  teamsOf,
} from "./contract-support.ts";

const one = (placement_points: Record<string, number>, kill_points: number, games: number, tie_breakers?: string[]) =>
  ffa({ placement_points, kill_points, games, ...(tie_breakers ? { tie_breakers } : {}) });

describe("ffa standings: points, then each tie-breaker on its own", () => {
  it("first_places: level on points, the team with more games won places higher; seed between equals", async () => {
    // {1: 4, 2: 2, 3: 0}, no kill points. Game 1: C A B; game 2: B A C. C 4, A 2 + 2, B 4: all 4.
    // First places: B 1, C 1, A 0. B and C level on it: the seed puts B first.
    const ev = await event(one({ "1": 4, "2": 2, "3": 0 }, 0, 2, ["first_places"]), 3);
    const [lobby] = (await results(ev)).matches;
    await game(ev, lobby, 1, "C A B");
    await game(ev, lobby, 2, "B A C");
    const { standings } = await results(ev);
    expect(rows(ev, standings)).toEqual([
      ["B", 1, 4, 0, 1, 2, null],
      ["C", 2, 4, 0, 1, 2, "seed"],
      ["A", 3, 4, 0, 0, 2, "first_places"],
    ]);
    const named = ev.names.get(ev.team("B"))!;
    expect({ team_id: standings[0].team_id, team_name: standings[0].team_name, team_tag: standings[0].team_tag }).toEqual({
      team_id: ev.team("B"),
      team_name: named.name,
      team_tag: named.tag,
    });
  });

  it("best_placement: level on points and without a win, the better best placement places higher", async () => {
    // {1: 6, 2: 3, 3: 2, 4: 1}. Game 1: A D C B; game 2: B A C D.
    // A 6 + 3 = 9, B 1 + 6 = 7, C 2 + 2 = 4, D 3 + 1 = 4. C and D: no win each, best 3 against 2: D above C.
    const ev = await event(one({ "1": 6, "2": 3, "3": 2, "4": 1 }, 0, 2, ["best_placement"]), 4);
    const [lobby] = (await results(ev)).matches;
    await game(ev, lobby, 1, "A D C B");
    await game(ev, lobby, 2, "B A C D");
    expect(rows(ev, (await results(ev)).standings)).toEqual([
      ["A", 1, 9, 0, 1, 2, null],
      ["B", 2, 7, 0, 1, 2, "points"],
      ["D", 3, 4, 0, 0, 2, "points"],
      ["C", 4, 4, 0, 0, 2, "best_placement"],
    ]);
  });

  it("kills: level on points, more kills places higher (a win does not count when only kills are named)", async () => {
    // {1: 3, 2: 1, 3: 0}, 1 point a kill. One game: A (0 kills) B (2 kills) C → A 3, B 1 + 2 = 3, C 0.
    const ev = await event(one({ "1": 3, "2": 1, "3": 0 }, 1, 1, ["kills"]), 3);
    const [lobby] = (await results(ev)).matches;
    const l = await game(ev, lobby, 1, "A B:2 C");
    expect(rows(ev, (await results(ev)).standings)).toEqual([
      ["B", 1, 3, 2, 0, 1, null],
      ["A", 2, 3, 0, 1, 1, "kills"],
      ["C", 3, 0, 0, 0, 1, "points"],
    ]);
    // The lobby ranks as the standings do: B is its winner although A won the game.
    expect(l.status).toBe("completed");
    expect(l.winner_id).toBe(ev.team("B"));
  });

  it("last_game: level on everything else, the better placement in the team's most recent game places higher", async () => {
    // {1: 4, 2: 2, 3: 0}. Game 1: A B C; game 2: C B A. All on 4; last games: C 1st, B 2nd, A 3rd.
    const ev = await event(one({ "1": 4, "2": 2, "3": 0 }, 0, 2, ["last_game"]), 3);
    const [lobby] = (await results(ev)).matches;
    await game(ev, lobby, 1, "A B C");
    await game(ev, lobby, 2, "C B A");
    expect(rows(ev, (await results(ev)).standings)).toEqual([
      ["C", 1, 4, 0, 1, 2, null],
      ["B", 2, 4, 0, 0, 2, "last_game"],
      ["A", 3, 4, 0, 1, 2, "last_game"],
    ]);
  });

  it("seed: nothing else separating, the seed orders the standings and the lobby, and names itself", async () => {
    // Every placement scores 5 ({"1-3": 5}), no kill points, kills only: one game C B A → all 5, 0 kills.
    const ev = await event(one({ "1-3": 5 }, 0, 1, ["kills"]), 3);
    const [lobby] = (await results(ev)).matches;
    const l = await game(ev, lobby, 1, "C B A");
    expect(rows(ev, (await results(ev)).standings)).toEqual([
      ["A", 1, 5, 0, 0, 1, null],
      ["B", 2, 5, 0, 0, 1, "seed"],
      ["C", 3, 5, 0, 1, 1, "seed"],
    ]);
    expect(Object.fromEntries(l.opponents.map((o) => [ev.label(o.team_id), o.placement]))).toEqual({ A: 1, B: 2, C: 3 });
    expect(l.winner_id).toBe(ev.team("A"));
  });

  it("the default tie-breakers run first_places, then kills, then last_game", async () => {
    // {1: 4, 2: 2, 3: 0}, no kill points. Game 1: A B C (C 2 kills); game 2: C B A. All on 4.
    // First places A 1, C 1, B 0 → B last; kills C 2, A 0 → C above A (last_game would agree, but
    // it comes after kills: C's separation is named kills).
    const ev = await event(one({ "1": 4, "2": 2, "3": 0 }, 0, 2), 3);
    const [lobby] = (await results(ev)).matches;
    await game(ev, lobby, 1, "A B C:2");
    await game(ev, lobby, 2, "C B A");
    expect(rows(ev, (await results(ev)).standings)).toEqual([
      ["C", 1, 4, 2, 1, 2, null],
      ["A", 2, 4, 0, 1, 2, "kills"],
      ["B", 3, 4, 0, 0, 2, "first_places"],
    ]);
  });

  it("ranks every team of every lobby and round together, as the model does, and completes once every lobby is", async () => {
    // 7 teams in lobbies of 3 (3 lobbies: A F G | B E | C D), 2 rounds dealt from seeds, default scoring.
    const ev = await event(ffa({ lobby_size: 3, rounds: 2 }), 7);
    const scoring: Scoring = { placement_points: FFA_DEFAULTS.placement_points, kill_points: 1, tie_breakers: FFA_DEFAULTS.tie_breakers };
    const { matches } = await results(ev);
    expect(lobbiesOf(matches, 1).map((l) => teamsOf(ev, l))).toEqual(["AFG", "BE", "CD"]);
    const scripts: Record<string, string> = {
      "1.1": "G:3 A F:1",
      "1.2": "E B:4",
      "1.3": "D:1 C",
      "2.1": "A:2 F G",
      "2.2": "B E:1",
      "2.3": "C:3 D:2",
    };
    const played: { round: number; number: number; script: string }[] = [];
    for (const round of [1, 2]) {
      for (const l of lobbiesOf(matches, round)) {
        const script = scripts[`${round}.${l.position}`];
        await game(ev, l, 1, script);
        played.push({ round, number: 1, script });
        if (round === 1 && l.position === 1) {
          expectError(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 409, "invalid_status_transition");
        }
      }
    }
    const seeds = Object.fromEntries(ev.teams.map((_, i) => [String.fromCharCode(65 + i), i + 1]));
    const expected = modelRows(rank(scoring, tally(scoring, seeds, played)));
    const overall = await results(ev);
    expect(rows(ev, overall.standings)).toEqual(expected);
    expect(rows(ev, (await results(ev, "?stage=1")).standings)).toEqual(expected);
    const stage = await ev.call("GET", `/tournaments/${ev.id}/stages/1`);
    expectStatus(stage, 200);
    expect(rows(ev, stage.body.data.standings)).toEqual(expected);
    expect(stage.body.data.status).toBe("completed");
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);
    // A completed tournament's lobbies are locked.
    expectError(await putGame(ev, lobbiesOf(matches, 1)[0], 1, gameBody(ev, scripts["1.1"])), 409, "match_locked");
  });
});

describe("teams that have not played yet", () => {
  it("rank below a team level on points that has played, under best_placement and last_game", async () => {
    // 6 teams, lobbies A D E | B C F; {1: 4, 2: 2} (3rd scores 0), no kill points. Only lobby 1
    // plays: A 4, D 2, E 0. E (0 points, 3rd) and B, C, F (0 points, no game): E has a placement,
    // they have none, so E ranks above them; among them the seed.
    for (const tie_breakers of [["best_placement"], ["last_game"]]) {
      const ev = await event(ffa({ lobby_size: 3, placement_points: { "1": 4, "2": 2 }, kill_points: 0, tie_breakers }), 6);
      const [l1] = lobbiesOf((await results(ev)).matches, 1);
      await game(ev, l1, 1, "A D E");
      const got = (await results(ev)).standings.map((
        s: { team_id: string; games_played: number; separated_by: string | null },
      ) => [ev.label(s.team_id), s.games_played, s.separated_by]);
      expect(got, tie_breakers[0]).toEqual([
        ["A", 1, null],
        ["D", 1, "points"],
        ["E", 1, "points"],
        ["B", 0, tie_breakers[0]],
        ["C", 0, "seed"],
        ["F", 0, "seed"],
      ]);
    }
  });
});

describe("last_game across lobbies and rounds", () => {
  it("compares each team's placement in its own most recent game, the highest round's", async () => {
    // 6 teams, lobbies of 3 (A D E | B C F) in 2 rounds dealt from seeds; {1: 4, 2: 2, 3: 0}.
    // Round 1: A D E, C F B; round 2: E D A, B F C. Everyone has 4 points. Last games (round 2):
    // E and B 1st, D and F 2nd, A and C 3rd; the seed inside each pair.
    const ev = await event(
      ffa({ lobby_size: 3, rounds: 2, placement_points: { "1": 4, "2": 2, "3": 0 }, kill_points: 0, tie_breakers: ["last_game"] }),
      6,
    );
    const { matches } = await results(ev);
    const scripts: Record<string, string> = { "1.1": "A D E", "1.2": "C F B", "2.1": "E D A", "2.2": "B F C" };
    for (const round of [1, 2]) for (const l of lobbiesOf(matches, round)) await game(ev, l, 1, scripts[`${round}.${l.position}`]);
    expect(rows(ev, (await results(ev)).standings)).toEqual([
      ["B", 1, 4, 0, 1, 2, null],
      ["E", 2, 4, 0, 1, 2, "seed"],
      ["D", 3, 4, 0, 0, 2, "last_game"],
      ["F", 4, 4, 0, 0, 2, "seed"],
      ["A", 5, 4, 0, 1, 2, "last_game"],
      ["C", 6, 4, 0, 1, 2, "seed"],
    ]);
  });
});

describe('draw "standings": each round after the first dealt from the standings', () => {
  it("deals round 2 when round 1 completes, never re-deals it on a correction, and locks round 1 once round 2 has a game", async () => {
    // 6 teams in lobbies of 3: round 1 A D E | B C F. Default scoring.
    const ev = await event(ffa({ lobby_size: 3, rounds: 2, draw: "standings" }), 6);
    const scoring: Scoring = { placement_points: FFA_DEFAULTS.placement_points, kill_points: 1, tie_breakers: FFA_DEFAULTS.tie_breakers };
    const seeds = Object.fromEntries(ev.teams.map((_, i) => [String.fromCharCode(65 + i), i + 1]));
    let { matches } = await results(ev);
    expect(matches.map((m) => m.round)).toEqual([1, 1]);
    const [r1l1, r1l2] = lobbiesOf(matches, 1);
    expect([teamsOf(ev, r1l1), teamsOf(ev, r1l2)]).toEqual(["ADE", "BCF"]);

    await game(ev, r1l1, 1, "A D E");
    expect((await results(ev)).matches.length, "round 2 waits for the whole round").toBe(2);
    const before = (await results(ev)).tournament.version;
    await game(ev, r1l2, 1, "F:2 B C");
    // Standings after round 1: F 12, A 10, B 6 and D 6 (tied to the seed), C 5 and E 5 (the seed):
    // F A B D C E → snake over 2 lobbies: F C D | A B E.
    const played = [{ round: 1, number: 1, script: "A D E" }, { round: 1, number: 1, script: "F:2 B C" }];
    const order = rank(scoring, tally(scoring, seeds, played)).map((r) => r.label);
    expect(order.join(" ")).toBe("F A B D C E");
    const expectedDeal = snake(order, 3).map((l) => [...l].sort().join(""));
    expect(expectedDeal).toEqual(["CDF", "ABE"]);
    ({ matches } = await results(ev));
    const round2 = lobbiesOf(matches, 2);
    expect(round2.map((l) => teamsOf(ev, l))).toEqual(expectedDeal);
    // The delta since the completing game holds that lobby and the new round's.
    const delta = await results(ev, `?since=${before}`);
    expect(delta.matches.map((m) => m.id).sort()).toEqual([r1l2.id, ...round2.map((l) => l.id)].sort());
    for (const l of round2) {
      expect(l.status).toBe("ready");
      for (const o of l.opponents) expect(o.seed, "a team keeps its seed").toBe(ev.teams.indexOf(o.team_id) + 1);
    }

    // A correction in round 1 while round 2 has no game: allowed, and round 2 is not dealt again
    // (the corrected standings, E F B D A C, would deal A D E | B C F).
    await game(ev, r1l1, 1, "E:5 D A");
    const again = lobbiesOf((await results(ev)).matches, 2);
    expect(again.map((l) => [l.id, teamsOf(ev, l)])).toEqual(round2.map((l) => [l.id, teamsOf(ev, l)]));

    // Taking round 1's last game back and reporting it otherwise does not deal round 2 again
    // either: with E:5 D A and B:4 C F the standings E B C D A F would deal A D E | B C F.
    expectStatus(await ev.call("DELETE", `/tournaments/${ev.id}/matches/${r1l2.id}/games/1`), 200);
    await game(ev, r1l2, 1, "B:4 C F");
    const redeal = snake(
      rank(scoring, tally(scoring, seeds, [{ round: 1, number: 1, script: "E:5 D A" }, { round: 1, number: 1, script: "B:4 C F" }])).map((
        r,
      ) => r.label),
      3,
    );
    expect(redeal.map((l) => [...l].sort().join(""))).toEqual(["ADE", "BCF"]);
    const kept = lobbiesOf((await results(ev)).matches, 2);
    expect(kept.map((l) => teamsOf(ev, l)), "a correction never re-deals").toEqual(round2.map((l) => teamsOf(ev, l)));
    await game(ev, r1l2, 1, "F:2 B C");

    // Round 2 gets a game: round 1 is locked (PUT and DELETE), round 2 is not.
    await game(ev, round2[0], 1, "C D F:1");
    expectError(await putGame(ev, r1l1, 1, gameBody(ev, "A D E")), 409, "match_locked");
    expectError(await putGame(ev, r1l2, 1, gameBody(ev, "B C F")), 409, "match_locked");
    expectError(await ev.call("DELETE", `/tournaments/${ev.id}/matches/${r1l2.id}/games/1`), 409, "match_locked");
    const r2 = await game(ev, round2[0], 1, "D C F:1");
    // A lobby's points are its own games' (D 10 here, not D's stage total 16); C 6 and F 5 + 1
    // tie in the lobby, F's kill places it above C.
    expect(Object.fromEntries(r2.opponents.map((o) => [ev.label(o.team_id), [o.placement, o.points]]))).toEqual({
      D: [1, 10],
      F: [2, 6],
      C: [3, 6],
    });
    await game(ev, round2[1], 1, "B:1 A E");
    ({ matches } = await results(ev));
    expect(matches.length, "no third round").toBe(4);
    expect(matches.filter((m) => m.round === 2).map((m) => m.id).sort(), "round 2 kept its lobbies").toEqual(
      round2.map((l) => l.id).sort(),
    );
    const all = [
      { round: 1, number: 1, script: "E:5 D A" },
      { round: 1, number: 1, script: "F:2 B C" },
      { round: 2, number: 1, script: "D C F:1" },
      { round: 2, number: 1, script: "B:1 A E" },
    ];
    expect(rows(ev, (await results(ev)).standings)).toEqual(modelRows(rank(scoring, tally(scoring, seeds, all))));
  });
});

describe('draw "standings" over three rounds of uneven lobbies', () => {
  it("deals every round after the first by the snake over the standings so far, as the model ranks them", async () => {
    // 7 teams in lobbies of 3 (3 lobbies of 3, 2 and 2), 3 rounds, custom scoring and tie-breakers.
    const scoring: Scoring = { placement_points: { "1": 7, "2-3": 3 }, kill_points: 2, tie_breakers: ["best_placement", "last_game"] };
    const ev = await event(ffa({ lobby_size: 3, rounds: 3, draw: "standings", ...scoring }), 7);
    const seeds = Object.fromEntries(ev.teams.map((_, i) => [String.fromCharCode(65 + i), i + 1]));
    const played: { round: number; number: number; script: string }[] = [];
    let order = ev.teams.map((_, i) => String.fromCharCode(65 + i));
    for (const round of [1, 2, 3]) {
      const { matches } = await results(ev);
      expect(Math.max(...matches.map((m) => m.round)), `round ${round} is the last dealt`).toBe(round);
      const lobbies = lobbiesOf(matches, round);
      expect(lobbies.map((l) => teamsOf(ev, l)), `round ${round}'s deal from ${order.join(" ")}`).toEqual(
        snake(order, 3).map((l) => [...l].sort().join("")),
      );
      for (const l of lobbies) {
        // Each lobby's game: its teams by reverse seed, round r rotating them; kills from the seed.
        const labels = l.opponents.map((o) => ev.label(o.team_id)).sort().reverse();
        const rotated = [...labels.slice(round % labels.length), ...labels.slice(0, round % labels.length)];
        const script = rotated.map((x) => `${x}:${seeds[x] % 3}`).join(" ");
        await game(ev, l, 1, script);
        played.push({ round, number: 1, script });
      }
      order = rank(scoring, tally(scoring, seeds, played)).map((r) => r.label);
    }
    const { matches, standings } = await results(ev);
    expect(matches.length).toBe(9);
    expect(rows(ev, standings)).toEqual(modelRows(rank(scoring, tally(scoring, seeds, played))));
  });
});

describe('draw "seed": rounds are independent', () => {
  it("takes a later round's game before an earlier one's and corrects round 1 after round 2 has games", async () => {
    const ev = await event(ffa({ lobby_size: 3, rounds: 2 }), 4);
    const { matches } = await results(ev);
    const [r1] = lobbiesOf(matches, 1);
    const [r2] = lobbiesOf(matches, 2);
    // 4 teams in lobbies of 3: 2 lobbies of 2 (A D | B C).
    expect(teamsOf(ev, r1)).toBe("AD");
    await game(ev, r2, 1, "D A");
    await game(ev, r1, 1, "A D");
    const corrected = await game(ev, r1, 1, "D:1 A");
    expect(corrected.winner_id).toBe(ev.team("D"));
  });
});

describe('draw "standings" with several games a lobby', () => {
  it("deals the next round only once every lobby has all its games; completion needs every round", async () => {
    // 4 teams in lobbies of 3: A D | B C. 2 games a lobby, 2 rounds.
    const ev = await event(ffa({ lobby_size: 3, rounds: 2, games: 2, draw: "standings" }), 4);
    const [l1, l2] = lobbiesOf((await results(ev)).matches, 1);
    expect([teamsOf(ev, l1), teamsOf(ev, l2)]).toEqual(["AD", "BC"]);
    await game(ev, l1, 1, "D A");
    await game(ev, l1, 2, "D A");
    await game(ev, l2, 1, "C B");
    expect((await results(ev)).matches.length, "lobby 2 has one game of two").toBe(2);
    expectError(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 409, "invalid_status_transition");
    await game(ev, l2, 2, "B C:1");
    // D 20, then B (6 + 10 + 0) 16 and C (10 + 6 + 1) 17: C 17, B 16, A 12 → D C B A → D A | C B.
    const round2 = lobbiesOf((await results(ev)).matches, 2);
    expect(round2.map((l) => teamsOf(ev, l))).toEqual(["AD", "BC"]);
    expect(round2.map((l) => l.opponents.every((o) => o.placement === null && o.points === 0))).toEqual([true, true]);
    // Round 2 has no game yet: round 1 may still be corrected (its last game deleted and put again).
    expectStatus(await ev.call("DELETE", `/tournaments/${ev.id}/matches/${l2.id}/games/2`), 200);
    await game(ev, l2, 2, "B C:1");
    expectError(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 409, "invalid_status_transition");
  });
});

describe("disqualification (section 17) in a free-for-all stage", () => {
  it("places a disqualified team last in the standings, marked disqualified, whatever its points", async () => {
    const ev = await event(ffa({ games: 2 }), 4);
    const [lobby] = (await results(ev)).matches;
    await game(ev, lobby, 1, "A B C D");
    const regs = await ev.call("GET", `/tournaments/${ev.id}/registrations`);
    const regA = regs.body.data.find((r: { team_id: string }) => r.team_id === ev.team("A"));
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/registrations/${regA.id}`, { body: { disqualified: true } }), 200);
    const { standings } = await results(ev);
    expect(standings.map((s: { team_id: string; disqualified: boolean }) => [ev.label(s.team_id), s.disqualified])).toEqual([
      ["B", false],
      ["C", false],
      ["D", false],
      ["A", true],
    ]);
  });
});

describe('draw "standings" under concurrency', () => {
  it("deals the next round exactly once when a round's last two lobbies are reported at the same moment", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const ev = await event(ffa({ lobby_size: 3, rounds: 2, draw: "standings" }), 6);
      const [l1, l2] = lobbiesOf((await results(ev)).matches, 1);
      const keys = await Promise.all([createKey(ev.t.accountId), createKey(ev.t.accountId)]);
      const answers = await Promise.all([
        request("PUT", `/tournaments/${ev.id}/matches/${l1.id}/games/1`, { key: keys[0].key, body: gameBody(ev, "A D E") }),
        request("PUT", `/tournaments/${ev.id}/matches/${l2.id}/games/1`, { key: keys[1].key, body: gameBody(ev, "F:2 B C") }),
      ]);
      for (const a of answers) expectStatus(a, 200);
      const { matches } = await results(ev);
      expect(matches.map((m) => `${m.round}.${m.position}`).sort(), `attempt ${attempt}`).toEqual(["1.1", "1.2", "2.1", "2.2"]);
      expect(lobbiesOf(matches, 2).map((l) => teamsOf(ev, l)), `attempt ${attempt}`).toEqual(["CDF", "ABE"]);
    }
  });
});

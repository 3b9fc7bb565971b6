// Reporting a lobby's games (contract section 20, with 13 and 14), from the contract alone: the
// PUT's validation (every team of the lobby once, placements 1…n, kills 0–1,000, numbering),
// placement and kill points, the lobby's placement and completion, corrections, DELETE of the
// last game only, and the version, ETag, If-Match and ?since= that a game moves.
//
// Every test here: 6 teams in lobbies of 3, so lobby 1 holds A D E (seeds 1 4 5) and lobby 2
// B C F (2 3 6); placement points {"1": 12, "2": 7} (3rd scores 0), 2 points a kill.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus } from "../support/helpers.ts";
import {
  type Event,
  event,
  expectInvalid,
  ffa,
  game,
  gameBody,
  lobbiesOf,
  type Lobby,
  putGame,
  rank,
  results,
  type Scoring,
  tally,
} from "./contract-support.ts";

const scoring: Scoring = { placement_points: { "1": 12, "2": 7 }, kill_points: 2, tie_breakers: ["first_places", "kills", "last_game"] };
const options = (games: number) =>
  ffa({ lobby_size: 3, games, placement_points: scoring.placement_points, kill_points: scoring.kill_points });

async function lobbyOne(ev: Event): Promise<Lobby> {
  const l = lobbiesOf((await results(ev)).matches, 1)[0];
  expect(l.opponents.map((o) => ev.label(o.team_id)).sort().join("")).toBe("ADE");
  return l;
}

/** The lobby's placement by team, as the model ranks its games. */
function expectedPlacement(played: string[], labels: string[]): Record<string, number> {
  const seeds = Object.fromEntries(labels.map((l) => [l, l.charCodeAt(0) - 64]));
  const ranked = rank(scoring, tally(scoring, seeds, played.map((script, i) => ({ round: 1, number: i + 1, script }))));
  return Object.fromEntries(ranked.map((r, i) => [r.label, i + 1]));
}

const placementOf = (ev: Event, l: Lobby) => Object.fromEntries(l.opponents.map((o) => [ev.label(o.team_id), o.placement]));

describe("a lobby's game PUT: validation", () => {
  it("refuses every malformed result with 400 naming the entry, and changes nothing", async () => {
    const ev = await event(options(2), 6);
    const lobby = await lobbyOne(ev);
    const version = (await results(ev)).tournament.version;
    const [a, d, e, b] = ["A", "D", "E", "B"].map(ev.team);
    const r = (
      team_id: string,
      placement: unknown,
      kills?: unknown,
    ) => (kills === undefined ? { team_id, placement } : { team_id, placement, kills });
    const cases: [unknown, string[], string][] = [
      [{ results: [r(a, 1), r(d, 2)] }, ["results"], "a team of the lobby missing"],
      [{ results: [r(a, 1), r(d, 2), r(a, 3)] }, ["results"], "a team twice"],
      [{ results: [r(a, 1), r(d, 2), r(e, 3), r(b, 4)] }, ["results"], "a fourth team"],
      [{ results: [r(a, 1), r(d, 2), r(b, 3)] }, ["results"], "a team of another lobby"],
      [{ results: [r(a, 1), r(d, 2), r(crypto.randomUUID(), 3)] }, ["results"], "an unknown team"],
      [{ results: [r(a, 1), r(d, 2), r(e, 4)] }, ["results"], "a gap in the placements"],
      [{ results: [r(a, 1), r(d, 2), r(e, 2)] }, ["results"], "a placement twice"],
      [{ results: [r(a, 0), r(d, 1), r(e, 2)] }, ["results"], "placement 0"],
      [{ results: [r(a, 1.5), r(d, 2), r(e, 3)] }, ["results[0]", "results"], "a fractional placement"],
      [{ results: [r(a, 1), r(d, 2, -1), r(e, 3)] }, ["results[1]"], "kills below 0"],
      [{ results: [r(a, 1), r(d, 2), r(e, 3, 1001)] }, ["results[2]"], "kills above 1,000"],
      [{ results: [r(a, 1, "2"), r(d, 2), r(e, 3)] }, ["results[0]"], "kills not an integer"],
      [{ results: [r(a, 1, 0.5), r(d, 2), r(e, 3)] }, ["results[0]"], "fractional kills"],
      [{ results: [{ team_id: a }, r(d, 1), r(e, 2)] }, ["results[0]"], "placement missing"],
      // Input is checked before the match is read (section 2's order), so an empty body may name
      // the duel's field as well as results.
      [{ results: [{ ...r(a, 1), points: 50 }, r(d, 2), r(e, 3)] }, ["results[0]"], "an entry's unknown field (points are computed)"],
      [{ results: [r("not-a-uuid", 1), r(d, 2), r(e, 3)] }, ["results[0]"], "a team id that is not a UUID"],
      [{ results: [r(a, 1), r(d, 2), null] }, ["results[2]", "results"], "a null entry"],
      [{ results: r(a, 1) }, ["results"], "results not an array"],
      [{}, ["results", "team1_score"], "no results"],
      [{ results: [] }, ["results"], "no entries"],
      [{ team1_score: 1, team2_score: 0 }, ["results", "team1_score"], "a duel's game"],
      [{ ...gameBody(ev, "A D E"), map: "x", bogus: 1 }, ["bogus"], "an unknown field"],
    ];
    for (const [body, fields, ctx] of cases) expectInvalid(await putGame(ev, lobby, 1, body), fields, ctx);
    // Numbering: 1..games, no gaps.
    expectInvalid(await putGame(ev, lobby, 2, gameBody(ev, "A D E")), ["number"], "game 2 before game 1");
    expectInvalid(await putGame(ev, lobby, 3, gameBody(ev, "A D E")), ["number"], "game past games");
    const zero = await putGame(ev, lobby, 0, gameBody(ev, "A D E"));
    expect(zero.status, zero.text).toBe(400);
    const after = await results(ev);
    expect(after.tournament.version).toBe(version);
    expect(lobbiesOf(after.matches, 1)[0].games).toEqual([]);
  });

  it("accepts kills 0 and 1,000 and kills left out (0)", async () => {
    const ev = await event(options(1), 6);
    const lobby = await lobbyOne(ev);
    const res = await putGame(ev, lobby, 1, {
      results: [{ team_id: ev.team("E"), placement: 1, kills: 1000 }, { team_id: ev.team("A"), placement: 2 }, {
        team_id: ev.team("D"),
        placement: 3,
        kills: 0,
      }],
    });
    expectStatus(res, 200);
    const got = Object.fromEntries(
      res.body.data.games[0].results.map((
        x: { team_id: string; kills: number; points: number; placement: number },
      ) => [ev.label(x.team_id), [x.placement, x.kills, x.points]]),
    );
    expect(got).toEqual({ E: [1, 1000, 12 + 2000], A: [2, 0, 7], D: [3, 0, 0] });
  });
});

describe("a lobby's games: points, placement, completion, corrections, deletion", () => {
  it("scores placement + kill points per game, ranks the lobby, completes it after its last game with the first as winner", async () => {
    const ev = await event(options(2), 6);
    const lobby = await lobbyOne(ev);
    // Game 1: D 1st 2 kills (12 + 4 = 16), A 2nd (7), E 3rd 1 kill (0 + 2 = 2).
    const g1 = "D:2 A E:1";
    let l = await game(ev, lobby, 1, g1);
    expect(l.id).toBe(lobby.id);
    expect(l.games.length).toBe(1);
    expect(l.games[0].number).toBe(1);
    expect(typeof l.games[0].reported_at).toBe("string");
    const byTeam = (g: Lobby["games"][number]) =>
      Object.fromEntries(g.results.map((x) => [ev.label(x.team_id), [x.placement, x.kills, x.points]]));
    expect(byTeam(l.games[0])).toEqual({ D: [1, 2, 16], A: [2, 0, 7], E: [3, 1, 2] });
    expect(Object.fromEntries(l.opponents.map((o) => [ev.label(o.team_id), [o.placement, o.kills, o.points]]))).toEqual({
      D: [1, 2, 16],
      A: [2, 0, 7],
      E: [3, 1, 2],
    });
    expect({ status: l.status, winner_id: l.winner_id, completed_at: l.completed_at }).toEqual({
      status: "ready",
      winner_id: null,
      completed_at: null,
    });

    // Game 2: A 1st 1 kill (14), E 2nd 3 kills (13), D 3rd (0). Totals A 21, E 15, D 16.
    const g2 = "A:1 E:3 D";
    l = await game(ev, lobby, 2, g2);
    expect(Object.fromEntries(l.opponents.map((o) => [ev.label(o.team_id), o.points]))).toEqual({ A: 21, D: 16, E: 15 });
    expect(placementOf(ev, l)).toEqual(expectedPlacement([g1, g2], ["A", "D", "E"]));
    expect(placementOf(ev, l)).toEqual({ A: 1, D: 2, E: 3 });
    expect(l.status).toBe("completed");
    expect(l.winner_id).toBe(ev.team("A"));
    expect(l.completed_at).not.toBeNull();
    // The results show the same lobby.
    const shown = lobbiesOf((await results(ev)).matches, 1)[0];
    expect({ status: shown.status, winner_id: shown.winner_id, games: shown.games.length }).toEqual({
      status: "completed",
      winner_id: ev.team("A"),
      games: 2,
    });

    // A game past `games` is 400.
    expectInvalid(await putGame(ev, lobby, 3, gameBody(ev, "A D E")), ["number"], "game 3 of 2");

    // Correcting game 1: E 1st 0 kills (12), D 2nd (7), A 3rd (0). Totals E 12 + 13 = 25, A 14, D 7.
    const g1b = "E D A";
    l = await game(ev, lobby, 1, g1b);
    expect(l.games.length).toBe(2);
    expect(Object.fromEntries(l.opponents.map((o) => [ev.label(o.team_id), o.points]))).toEqual({ E: 25, A: 14, D: 7 });
    expect(placementOf(ev, l)).toEqual(expectedPlacement([g1b, g2], ["A", "D", "E"]));
    expect(l.winner_id, "the corrected winner").toBe(ev.team("E"));
    expect(l.status).toBe("completed");

    // DELETE only the last game: game 1 is 409, game 2 undoes the completion.
    const notLast = await ev.call("DELETE", `/tournaments/${ev.id}/matches/${lobby.id}/games/1`);
    expect(notLast.status, notLast.text).toBe(409);
    const del = await ev.call("DELETE", `/tournaments/${ev.id}/matches/${lobby.id}/games/2`);
    expectStatus(del, 200);
    const back = lobbiesOf((await results(ev)).matches, 1)[0];
    expect({ status: back.status, winner_id: back.winner_id, completed_at: back.completed_at, games: back.games.map((g) => g.number) })
      .toEqual({
        status: "ready",
        winner_id: null,
        completed_at: null,
        games: [1],
      });
    expect(Object.fromEntries(back.opponents.map((o) => [ev.label(o.team_id), o.points]))).toEqual({ E: 12, D: 7, A: 0 });
  });

  it("breaks a points tie inside a lobby by the tie-breakers (last_game here), not the seed, for its placement and winner", async () => {
    const ev = await event(options(2), 6);
    const lobby = await lobbyOne(ev);
    // Game 1: A D E → A 12, D 7, E 0. Game 2: D A E:6 → D 12, A 7, E 0 + 12. Totals A 19, D 19, E 12.
    // A and D tie on points, first places (1 each) and kills (0 each); last_game: D 1st, A 2nd, so
    // D (seed 4) places above A (seed 1) and wins the lobby.
    await game(ev, lobby, 1, "A D E");
    const l = await game(ev, lobby, 2, "D A E:6");
    expect(Object.fromEntries(l.opponents.map((o) => [ev.label(o.team_id), o.points]))).toEqual({ A: 19, D: 19, E: 12 });
    expect(placementOf(ev, l)).toEqual(expectedPlacement(["A D E", "D A E:6"], ["A", "D", "E"]));
    expect(placementOf(ev, l)).toEqual({ D: 1, A: 2, E: 3 });
    expect(l.winner_id).toBe(ev.team("D"));
  });
});

describe("placement points from ranges", () => {
  it("scores each placement by the range naming it and 0 for a placement no range names", async () => {
    // One lobby of 12; {"1": 25, "2-3": 15, "4-10": 5}, 3 points a kill: 11th and 12th score 0.
    const ev = await event(ffa({ placement_points: { "1": 25, "2-3": 15, "4-10": 5 }, kill_points: 3 }), 12);
    const [lobby] = (await results(ev)).matches;
    expect(lobby.opponents.length).toBe(12);
    const script = "L:1 K J:2 I H G F E D C B:4 A:1";
    const l = await game(ev, lobby, 1, script);
    const expected = script.split(" ").map((e, i) => {
      const kills = Number(e.split(":")[1] ?? 0);
      const base = i === 0 ? 25 : i <= 2 ? 15 : i <= 9 ? 5 : 0;
      return [e.split(":")[0], i + 1, kills, base + 3 * kills];
    });
    const got = l.games[0].results.map((x) => [ev.label(x.team_id), x.placement, x.kills, x.points]).sort((a, b) =>
      (a[1] as number) - (b[1] as number)
    );
    expect(got).toEqual(expected);
    expect(l.winner_id).toBe(ev.team("L"));
    // The standings add up the same points, kills and the one game played.
    const { standings } = await results(ev);
    const byTeam = Object.fromEntries(
      standings.map((
        s: { team_id: string; points: number; kills: number; games_played: number },
      ) => [ev.label(s.team_id), [s.points, s.kills, s.games_played]]),
    );
    for (const [label, , kills, points] of expected) expect(byTeam[label as string], String(label)).toEqual([points, kills, 1]);
  });
});

describe("versions, ETag and deltas around a game (section 14)", () => {
  it("raises the version on a game PUT, honours If-Match, and ?since= returns that lobby alone", async () => {
    const ev = await event(options(1), 6);
    const path = `/tournaments/${ev.id}`;
    const before = await ev.call("GET", path);
    expectStatus(before, 200);
    const v: number = before.body.data.version;
    expect(before.headers.get("etag")).toBe(`"${v}"`);
    const [l1, l2] = lobbiesOf((await results(ev)).matches, 1);

    expectError(await putGame(ev, l2, 1, gameBody(ev, "B C F"), { "if-match": `"${v + 100}"` }), 412, "precondition_failed");
    expect((await ev.call("GET", path)).body.data.version).toBe(v);

    const res = await putGame(ev, l2, 1, gameBody(ev, "F:3 C B"), { "if-match": `"${v}"` });
    expectStatus(res, 200);
    const after = await ev.call("GET", path);
    const v2: number = after.body.data.version;
    expect(v2).toBeGreaterThan(v);
    expect(after.headers.get("etag")).toBe(`"${v2}"`);
    expect((await ev.call("GET", path, { headers: { "if-none-match": `"${v}"` } })).status).toBe(200);
    expect((await ev.call("GET", path, { headers: { "if-none-match": `"${v2}"` } })).status).toBe(304);

    const delta = await results(ev, `?since=${v}`);
    expect(delta.tournament.version).toBe(v2);
    expect(delta.matches.map((m) => m.id)).toEqual([l2.id]);
    expect(delta.matches[0].games.length).toBe(1);
    expect(delta.matches[0].opponents.length).toBe(3);
    expect(delta.standings.length, "the whole standings").toBe(6);
    expect((await results(ev, `?since=${v2}`)).matches).toEqual([]);
    expect(l1.id).not.toBe(l2.id);

    // If-Match on DELETE: a stale version is 412 and the game stays.
    expectError(
      await ev.call("DELETE", `/tournaments/${ev.id}/matches/${l2.id}/games/1`, { headers: { "if-match": `"${v}"` } }),
      412,
      "precondition_failed",
    );
    expect(lobbiesOf((await results(ev)).matches, 1)[1].games.length).toBe(1);
    // A correction raises it again (a game PUT sets reported_at, as a duel's game PUT does).
    expectStatus(await putGame(ev, l2, 1, gameBody(ev, "F:4 C B")), 200);
    expect((await ev.call("GET", path)).body.data.version).toBeGreaterThan(v2);
  });
});

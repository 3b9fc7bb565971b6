// Free-for-all lobbies (contract section 20), from the contract alone: the snake deal for several
// team counts and lobby sizes (expected lobbies computed here from the seeds), a lobby's shape
// (a match with opponents, team1_*/team2_* and best_of null), every round dealt from the start with
// draw "seed", what a lobby's PATCH refuses, and participants' reports closed on lobbies.
import { describe, expect, it } from "vitest";
import { createTeams, expectError, expectStatus, request, startedTournament } from "../support/helpers.ts";
import { event, ffa, lobbiesOf, type Lobby, results, snake } from "./contract-support.ts";

/** Asserts round `round`'s lobbies hold the snake deal of the seeds 1..n with `size`. */
function expectDeal(ev: Awaited<ReturnType<typeof event>>, matches: Lobby[], round: number, size: number) {
  const expected = snake(ev.teams.map((_, i) => i + 1), size);
  const lobbies = lobbiesOf(matches, round);
  expect(lobbies.map((l) => l.position), `round ${round} positions`).toEqual(expected.map((_, k) => k + 1));
  expect(
    lobbies.map((l) => l.opponents.map((o) => o.seed).sort((a, b) => a - b)),
    `n=${ev.teams.length} size=${size} round ${round}`,
  ).toEqual(expected.map((l) => [...l].sort((a, b) => a - b)));
  for (const l of lobbies) {
    for (const o of l.opponents) expect(o.team_id, `seed ${o.seed}`).toBe(ev.teams[o.seed - 1]);
  }
}

describe("dealing lobbies in snake order", () => {
  for (const [n, size] of [[7, 3], [10, 4], [8, 4], [5, 20], [9, 3], [41, 20]] as const) {
    it(`deals ${n} teams with lobby_size ${size} into ceil(n / size) lobbies, 1 to lobby 1, 2 to lobby 2, …, then back`, async () => {
      const ev = await event(ffa({ lobby_size: size }), n);
      const { matches } = await results(ev);
      expect(matches.length).toBe(Math.ceil(n / size));
      expectDeal(ev, matches, 1, size);
      // Spot-check the snake by hand for 7 teams in lobbies of 3 (3 lobbies): 1 2 3 | 6 5 4 | 7.
      if (n === 7) {
        expect(lobbiesOf(matches, 1).map((l) => l.opponents.map((o) => o.seed).sort((a, b) => a - b))).toEqual([[1, 6, 7], [2, 5], [3, 4]]);
      }
      if (n === 41) {
        // 3 lobbies, 13 full passes (39 teams); the 14th pass runs backwards: seed 40 to lobby 3,
        // seed 41 to lobby 2. So lobby 1 holds 13 teams, lobbies 2 and 3 hold 14.
        expect(lobbiesOf(matches, 1).map((l) => l.opponents.length)).toEqual([13, 14, 14]);
      }
    });
  }

  it('with draw "seed" every round\'s lobbies exist from the start, each round dealt as the first', async () => {
    const ev = await event(ffa({ lobby_size: 3, rounds: 3 }), 7);
    const { matches } = await results(ev);
    expect(matches.length).toBe(9);
    for (const round of [1, 2, 3]) {
      expectDeal(ev, matches, round, 3);
      for (const l of lobbiesOf(matches, round)) expect(l.status, `round ${round} lobby ${l.position}`).toBe("ready");
    }
  });
});

describe("explicit seeds (section 9)", () => {
  it("deals by the start's seeds: seeded teams first in seed order, then registration order", async () => {
    // Registered A..F; F given seed 1 and E seed 2 → F E A B C D, lobbies of 3: F B C | E A D.
    const teams = await createTeams(6, `Ffs${crypto.randomUUID().slice(0, 6)}`);
    const { call, id } = await startedTournament(ffa({ lobby_size: 3 }), teams, async ({ call, id }) => {
      const regs = await call("GET", `/tournaments/${id}/registrations`);
      const regOf = (team: string) => regs.body.data.find((r: { team_id: string }) => r.team_id === team).id;
      expectStatus(await call("PATCH", `/tournaments/${id}/registrations/${regOf(teams[5])}`, { body: { seed: 1 } }), 200);
      expectStatus(await call("PATCH", `/tournaments/${id}/registrations/${regOf(teams[4])}`, { body: { seed: 2 } }), 200);
    });
    const res = await call("GET", `/tournaments/${id}/results`);
    expectStatus(res, 200);
    const letter = (team: string) => "ABCDEF"[teams.indexOf(team)];
    const lobbies = lobbiesOf(res.body.data.matches, 1).map((l) => Object.fromEntries(l.opponents.map((o) => [letter(o.team_id), o.seed])));
    expect(lobbies).toEqual([{ F: 1, B: 4, C: 5 }, { E: 2, A: 3, D: 6 }]);
  });
});

describe("a lobby as a match", () => {
  it("shows opponents (seed, names, placement null before a game) and nulls team1_*/team2_* and best_of", async () => {
    const ev = await event(ffa({ lobby_size: 4, games: 2 }), 6);
    const { matches, tournament } = await results(ev);
    expect(tournament.format).toBe("ffa");
    const [l1, l2] = lobbiesOf(matches, 1);
    for (const l of [l1, l2]) {
      expect({
        stage: l.stage,
        round: l.round,
        team1_id: l.team1_id,
        team2_id: l.team2_id,
        team1_score: l.team1_score,
        team2_score: l.team2_score,
        team1_seed: l.team1_seed,
        team2_seed: l.team2_seed,
        winner_id: l.winner_id,
        best_of: l.best_of,
        status: l.status,
        games: l.games,
        completed_at: l.completed_at,
        bracket: l.bracket,
        group: l.group,
        draw: l.draw,
        forfeit: l.forfeit,
        next_match_id: l.next_match_id,
      }, JSON.stringify(l)).toEqual({
        stage: 1,
        round: 1,
        team1_id: null,
        team2_id: null,
        team1_score: null,
        team2_score: null,
        team1_seed: null,
        team2_seed: null,
        winner_id: null,
        best_of: null,
        status: "ready",
        games: [],
        completed_at: null,
        bracket: null,
        group: null,
        draw: false,
        forfeit: null,
        next_match_id: null,
      });
      for (const o of l.opponents) {
        const named = ev.names.get(o.team_id)!;
        expect(o, JSON.stringify(o)).toEqual({
          team_id: ev.teams[o.seed - 1],
          team_name: named.name,
          team_tag: named.tag,
          seed: o.seed,
          placement: null,
          kills: 0,
          points: 0,
        });
      }
    }
    // 6 teams, lobbies of 4 → 2 lobbies: 1 4 5 | 2 3 6.
    expect(l1.opponents.map((o) => o.seed).sort()).toEqual([1, 4, 5]);
    expect(l2.opponents.map((o) => o.seed).sort()).toEqual([2, 3, 6]);
  });

  it("refuses best_of, scores and a forfeit on a lobby's PATCH (400), and takes scheduled_at", async () => {
    const ev = await event(ffa({ lobby_size: 4 }), 4);
    const [lobby] = (await results(ev)).matches;
    const path = `/tournaments/${ev.id}/matches/${lobby.id}`;
    for (const body of [{ best_of: 3 }, { best_of: 1 }, { team1_score: 1, team2_score: 0 }, { forfeit: "team1" }]) {
      const res = await ev.call("PATCH", path, { body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
    }
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString().replace(/\.\d+Z$/, ".000Z");
    const res = await ev.call("PATCH", path, { body: { scheduled_at: at } });
    expectStatus(res, 200);
    expect(new Date(res.body.data.scheduled_at).getTime()).toBe(new Date(at).getTime());
    expect(res.body.data.opponents.length).toBe(4);
  });

  it("closes participants' reports on a lobby: 409 reporting_closed", async () => {
    const ev = await event(ffa({ lobby_size: 4 }), 3);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { participant_reporting: "confirm" } }), 200);
    const regs = await ev.call("GET", `/tournaments/${ev.id}/registrations`);
    expectStatus(regs, 200);
    const reg = regs.body.data[0];
    const minted = await ev.call("POST", `/tournaments/${ev.id}/registrations/${reg.id}/tokens`, { body: {} });
    expectStatus(minted, 201);
    const [lobby] = (await results(ev)).matches;
    const res = await request("POST", `/participant/matches/${lobby.id}/report`, {
      key: minted.body.data.token,
      body: { team1_score: 1, team2_score: 0 },
    });
    expectError(res, 409, "reporting_closed");
    // The registration's matches (section 17) list its lobby, as results show it.
    const mine = await request("GET", "/participant/matches", { key: minted.body.data.token });
    expectStatus(mine, 200);
    const listed = mine.body.data.find((m: Lobby) => m.id === lobby.id);
    expect(listed?.opponents?.map((o: { team_id: string }) => o.team_id).sort(), mine.text).toEqual(
      lobby.opponents.map((o) => o.team_id).sort(),
    );
  });
});

describe("pictures", () => {
  it("draws the lobby as a leaderboard in bracket.svg: every team with its points", async () => {
    const ev = await event(ffa({ lobby_size: 4 }), 4);
    const [lobby] = (await results(ev)).matches;
    const res = await ev.call("PUT", `/tournaments/${ev.id}/matches/${lobby.id}/games/1`, {
      body: { results: ev.teams.map((team_id, i) => ({ team_id, placement: 4 - i, kills: 17 * (i + 1) })) },
    });
    expectStatus(res, 200);
    const svg = await ev.call("GET", `/tournaments/${ev.id}/bracket.svg`);
    expect(svg.status, svg.text.slice(0, 300)).toBe(200);
    expect(svg.headers.get("content-type")).toContain("image/svg+xml");
    for (const [i, team] of ev.teams.entries()) {
      const { name, tag } = ev.names.get(team)!;
      expect(svg.text.includes(name) || svg.text.includes(tag), `team ${tag}`).toBe(true);
      // Points: placement 4 - i scores {4: 4, 3: 5, 2: 6, 1: 10}, plus 17·(i + 1) kills.
      const points = [4, 5, 6, 10][i] + 17 * (i + 1);
      expect(svg.text, `points ${points} of ${tag}`).toContain(`>${points}<`);
    }
  });

  it("shows lobbies with their opponents and the standings in the public view", async () => {
    const ev = await event(ffa({ lobby_size: 3 }), 4);
    const made = await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { visibility: "public" } });
    expectStatus(made, 200);
    const [l1] = lobbiesOf((await results(ev)).matches, 1);
    expectStatus(
      await ev.call("PUT", `/tournaments/${ev.id}/matches/${l1.id}/games/1`, {
        body: { results: l1.opponents.map((o, i) => ({ team_id: o.team_id, placement: i + 1 })) },
      }),
      200,
    );
    const pub = await request("GET", `/public/tournaments/${made.body.data.slug}`);
    expectStatus(pub, 200);
    const lobbies = pub.body.data.matches;
    expect(lobbies.length).toBe(2);
    const shown = lobbies.find((m: Lobby) => m.id === l1.id);
    expect(shown.opponents.map((o: { team_id: string }) => o.team_id).sort()).toEqual(l1.opponents.map((o) => o.team_id).sort());
    expect(shown.games.length).toBe(1);
    expect(pub.body.data.standings.length).toBe(4);
  });
});

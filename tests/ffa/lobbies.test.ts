// Free-for-all (contract section 20): options, dealing, a lobby's games and placements, the
// round dealt from the standings, the correction lock, stages in and out of an ffa stage, and a
// lobby through the readers (results, ?since=, webhooks' match.completed).
import { describe, expect, it } from "vitest";
import { createTeams, expectError, expectStatus, type Match, request, startedTournament } from "../support/helpers.ts";
import { createEndpoint, deliveries } from "../support/webhook-helpers.ts";

interface Opponent {
  team_id: string;
  seed: number;
  placement: number | null;
  kills: number;
  points: number;
}
type Lobby = Match & { opponents: Opponent[] };

const ffa = (options: Record<string, unknown> = {}) => ({ format: "ffa", format_options: options });

/** Snake order, written here from the contract: the i-th team (0-based) of N in L lobbies. */
function lobbyOf(i: number, lobbies: number): number {
  return Math.floor(i / lobbies) % 2 === 0 ? (i % lobbies) + 1 : lobbies - (i % lobbies);
}

async function started(n: number, options: Record<string, unknown>) {
  const teams = await createTeams(n, `Ffa${crypto.randomUUID().slice(0, 6)}`);
  const s = await startedTournament(ffa(options), teams);
  const results = async (query = "") => {
    const res = await s.call("GET", `/tournaments/${s.id}/results${query}`);
    expectStatus(res, 200);
    return res.body.data as { tournament: { version: number }; matches: Lobby[]; standings: Record<string, unknown>[] };
  };
  const put = (m: Lobby, number: number, results: { team_id: string; placement: number; kills?: number }[]) =>
    s.call("PUT", `/tournaments/${s.id}/matches/${m.id}/games/${number}`, { body: { results } });
  return { ...s, teams, results, put };
}

/** Results placing the lobby's teams in `order` (team ids), with kills. */
const placing = (order: string[], kills: number[] = []) => order.map((team_id, i) => ({ team_id, placement: i + 1, kills: kills[i] ?? 0 }));

describe("free-for-all options", () => {
  it("fills in the defaults and refuses what does not apply", async () => {
    const ev = await started(3, {});
    const got = await ev.call("GET", `/tournaments/${ev.id}`);
    expect(got.body.data.format_options).toEqual({
      lobby_size: 20,
      games: 1,
      rounds: 1,
      draw: "seed",
      placement_points: { 1: 10, 2: 6, 3: 5, 4: 4, 5: 3, 6: 2, 7: 1, 8: 1 },
      kill_points: 1,
      tie_breakers: ["first_places", "kills", "last_game"],
    });
    for (
      const [options, field] of [
        [{ best_of: 3 }, "format_options.best_of"],
        [{ draws: true }, "format_options.draws"],
        [{ points: { win: 3 } }, "format_options.points"],
        [{ lobby_size: 2 }, "format_options.lobby_size"],
        [{ games: 21 }, "format_options.games"],
        [{ draw: "random" }, "format_options.draw"],
        [{ placement_points: { "1": 10, "1-3": 5 } }, "format_options.placement_points.1-3"],
        [{ placement_points: { "3-2": 5 } }, "format_options.placement_points.3-2"],
        [{ placement_points: { "1": 1001 } }, "format_options.placement_points.1"],
        [{ kill_points: 101 }, "format_options.kill_points"],
        [{ tie_breakers: ["kills", "kills"] }, "format_options.tie_breakers"],
        [{ tie_breakers: ["buchholz"] }, "format_options.tie_breakers[0]"],
      ] as const
    ) {
      const res = await ev.call("POST", "/tournaments", {
        body: {
          name: "Bad ffa",
          game_id: crypto.randomUUID(),
          team_size: 3,
          max_teams: 8,
          starts_at: new Date(Date.now() + 864e5).toISOString(),
          ...ffa(options),
        },
      });
      expectError(res, 400, "validation_error", [field]);
    }
  });
});

describe("free-for-all lobbies", () => {
  it("deals in snake order and takes placements and kills game by game", async () => {
    const ev = await started(11, { lobby_size: 4, games: 2, placement_points: { "1": 10, "2-3": 5 }, kill_points: 2 });
    const { matches } = await ev.results();
    expect(matches.length).toBe(3);
    matches.forEach((m, k) => {
      expect(m.position).toBe(k + 1);
      expect([m.team1_id, m.team2_id, m.best_of]).toEqual([null, null, null]);
      const expected = ev.teams.filter((_, i) => lobbyOf(i, 3) === k + 1);
      expect(m.opponents.map((o) => o.team_id)).toEqual(expected);
      expect(m.opponents.every((o) => o.placement === null && o.points === 0)).toBe(true);
    });

    const lobby = matches[0]; // seeds 1, 6, 7 (snake over 3 lobbies)
    const [a, b, c] = lobby.opponents.map((o) => o.team_id);
    expectError(await ev.put(lobby, 1, placing([a, b])), 400, "validation_error", ["results"]);
    expectError(await ev.put(lobby, 1, placing([a, b, ev.teams[1]])), 400, "validation_error", ["results[2].team_id"]);
    expectError(
      await ev.put(lobby, 1, [{ team_id: a, placement: 1 }, { team_id: b, placement: 1 }, { team_id: c, placement: 2 }]),
      400,
      "validation_error",
      ["results[1].placement"],
    );
    expectError(await ev.put(lobby, 3, placing([a, b, c])), 400, "validation_error", ["number"]);
    expectError(await ev.put(lobby, 2, placing([a, b, c])), 400, "validation_error", ["number"]);
    expectError(
      await ev.call("PATCH", `/tournaments/${ev.id}/matches/${lobby.id}`, { body: { team1_score: 1, team2_score: 0 } }),
      400,
      "validation_error",
    );

    // Game 1: c first (10 + 2·1), a second (5 + 2·4), b third (5). Game 2: a first, c second.
    let res = await ev.put(lobby, 1, placing([c, a, b], [1, 4, 0]));
    expectStatus(res, 200);
    expect(res.body.data.status).toBe("ready");
    expect(res.body.data.games[0].results).toEqual([
      { team_id: c, placement: 1, kills: 1, points: 12 },
      { team_id: a, placement: 2, kills: 4, points: 13 },
      { team_id: b, placement: 3, kills: 0, points: 5 },
    ]);
    expect(res.body.data.opponents.map((o: Opponent) => [o.team_id, o.placement, o.points])).toEqual([[a, 1, 13], [c, 2, 12], [b, 3, 5]]);
    res = await ev.put(lobby, 2, placing([a, c, b]));
    expectStatus(res, 200);
    expect(res.body.data.status).toBe("completed");
    expect(res.body.data.winner_id).toBe(a);
    // A correction, then the last game deleted: the lobby is open again.
    res = await ev.put(lobby, 1, placing([b, c, a], [30, 0, 0]));
    expect(res.body.data.opponents[0]).toMatchObject({ team_id: b, placement: 1, points: 10 + 60 + 5 });
    expect(res.body.data.winner_id).toBe(b);
    expectError(await ev.call("DELETE", `/tournaments/${ev.id}/matches/${lobby.id}/games/1`), 409, "match_locked");
    res = await ev.call("DELETE", `/tournaments/${ev.id}/matches/${lobby.id}/games/2`);
    expectStatus(res, 200);
    expect([res.body.data.status, res.body.data.winner_id]).toEqual(["ready", null]);

    const { standings } = await ev.results();
    expect(standings.length).toBe(11);
    expect(standings[0]).toMatchObject({ team_id: b, points: 70, kills: 30, first_places: 1, games_played: 1, separated_by: null });
  });

  it("deals the next round from the standings once a round completes, and locks a round once the next has a game", async () => {
    const ev = await started(6, { lobby_size: 3, rounds: 2, draw: "standings", tie_breakers: ["kills"] });
    let { matches } = await ev.results();
    expect(matches.map((m) => m.round)).toEqual([1, 1]);
    // Lobby 1 (seeds 1, 4, 5) and lobby 2 (2, 3, 6) both placed in reverse seed order.
    for (const m of matches) {
      expectStatus(await ev.put(m, 1, placing([...m.opponents].reverse().map((o) => o.team_id))), 200);
    }
    const after = await ev.results();
    const order = after.standings.map((s) => s.team_id as string);
    ({ matches } = after);
    const round2 = matches.filter((m) => m.round === 2);
    expect(round2.length).toBe(2);
    round2.forEach((m, k) => {
      const expected = order.filter((_, i) => lobbyOf(i, 2) === k + 1);
      expect(new Set(m.opponents.map((o) => o.team_id))).toEqual(new Set(expected));
    });
    // Round 1 may still be corrected (round 2 has no game): no re-deal.
    const first = matches.find((m) => m.round === 1)!;
    expectStatus(await ev.put(first, 1, placing(first.opponents.map((o) => o.team_id))), 200);
    expect((await ev.results()).matches.filter((m) => m.round === 2).map((m) => m.opponents.map((o) => o.team_id)))
      .toEqual(round2.map((m) => m.opponents.map((o) => o.team_id)));
    expectStatus(await ev.put(round2[0], 1, placing(round2[0].opponents.map((o) => o.team_id))), 200);
    expectError(await ev.put(first, 1, placing(first.opponents.map((o) => o.team_id))), 409, "match_locked");
  });

  it("shows a lobby's change in ?since= and fires match.completed", async () => {
    const ev = await started(3, { lobby_size: 3 });
    const hook = await createEndpoint(ev.t, { url: "http://127.0.0.1:9/x", events: ["*"] });
    const before = await ev.results();
    const m = before.matches[0];
    expectStatus(await ev.put(m, 1, placing(m.opponents.map((o) => o.team_id))), 200);
    const delta = await ev.results(`?since=${before.tournament.version}`);
    expect(delta.matches.map((x) => x.id)).toEqual([m.id]);
    expect(delta.matches[0].status).toBe("completed");
    // (One transaction's events: their deliveries share a created_at, so no order is asserted.)
    const sent = (await deliveries(ev.t, hook.id)).data;
    expect(sent.map((d) => d.event_type).sort()).toEqual(["match.completed", "match.game_reported", "stage.completed"]);
    expect(sent.find((d) => d.event_type === "match.completed")!.payload.data.opponents[0].placement).toBe(1);
  });
});

describe("free-for-all and participants", () => {
  it("lists a team's lobby for its token and leaves the reporting to the organiser", async () => {
    const teams = await createTeams(3, `FfaP${crypto.randomUUID().slice(0, 6)}`);
    const ev = await startedTournament({ ...ffa({ lobby_size: 3 }), participant_reporting: "confirm" }, teams);
    const regs = (await ev.call("GET", `/tournaments/${ev.id}/registrations`)).body.data as { id: string; team_id: string }[];
    const minted = await ev.call("POST", `/tournaments/${ev.id}/registrations/${regs[0].id}/tokens`, { body: {} });
    expectStatus(minted, 201);
    const token = minted.body.data.token as string;
    const mine = await request("GET", "/participant/matches", { key: token });
    expectStatus(mine, 200);
    expect(mine.body.data.length).toBe(1);
    expect(mine.body.data[0].opponents.map((o: Opponent) => o.team_id)).toContain(regs[0].team_id);
    const res = await request("POST", `/participant/matches/${mine.body.data[0].id}/report`, {
      key: token,
      body: { team1_score: 1, team2_score: 0 },
    });
    expectError(res, 409, "reporting_closed");
  });
});

describe("free-for-all in stages", () => {
  it("sends the first n of each lobby on, by tier, and a swiss stage into a final lobby", async () => {
    const teams = await createTeams(9, `FfaSt${crypto.randomUUID().slice(0, 6)}`);
    const ev = await startedTournament({
      stages: [
        { format: "ffa", format_options: { lobby_size: 3 }, advance: { per_lobby: 1 } },
        { format: "ffa", format_options: { lobby_size: 3 } },
      ],
    }, teams);
    const res = await ev.call("GET", `/tournaments/${ev.id}/results?stage=1`);
    const lobbies = res.body.data.matches as Lobby[];
    for (const m of lobbies) {
      const ids = m.opponents.map((o) => o.team_id);
      expectStatus(
        await ev.call("PUT", `/tournaments/${ev.id}/matches/${m.id}/games/1`, { body: { results: placing([ids[2], ids[0], ids[1]]) } }),
        200,
      );
    }
    const stage2 = await ev.call("GET", `/tournaments/${ev.id}/stages/2`);
    expectStatus(stage2, 200);
    const winners = lobbies.map((m) => m.opponents[2].team_id);
    expect(new Set(stage2.body.data.qualifiers.map((q: { team_id: string }) => q.team_id))).toEqual(new Set(winners));
    expect(stage2.body.data.qualifiers.map((q: { from_position: number }) => q.from_position)).toEqual([1, 1, 1]);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const final = (await ev.call("GET", `/tournaments/${ev.id}/results?stage=2`)).body.data.matches as Lobby[];
    expect(final.length).toBe(1);
    expect(new Set(final[0].opponents.map((o) => o.team_id))).toEqual(new Set(winners));
    const overall = (await ev.call("GET", `/tournaments/${ev.id}/results`)).body.data.standings;
    expect(overall.length).toBe(9);
  });
});

// Series (contract section 13) over HTTP: best_of and final_best_of in format_options and per
// stage, games reported map by map (PUT .../games/{number}), the decision at ceil(best_of / 2)
// and its advancement, corrections and deletions that undo it (the winner taken back out of
// the next match; double elimination's reset and swiss's next round waiting again), the locks,
// the series score sent directly, forfeits that keep their games, PATCH best_of, and the
// webhook order (match.game_reported before match.completed).
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Call,
  caller,
  createTeams,
  expectError,
  expectStatus,
  type Match,
  roundRobinOptions,
  sql,
  startedTournament,
  swissOptions,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(16, `Ser${Date.now().toString(36)}`);
});

/** A tournament of `n` teams (seed i + 1 = pool[i]) with these fields, started. */
const started = (fields: Record<string, unknown>, n: number) => startedTournament(fields, pool.slice(0, n));

async function matches(call: Call, id: string): Promise<Match[]> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  return res.body.data.matches;
}

const gamePath = (id: string, m: Match, n: number) => `/tournaments/${id}/matches/${m.id}/games/${n}`;

/** PUT game n of m, won by `side` 13-x. */
function game(call: Call, id: string, m: Match, n: number, side: 1 | 2, map: string | null = null) {
  const body = side === 1 ? { team1_score: 13, team2_score: 7 + n } : { team1_score: 5 + n, team2_score: 13 };
  return call("PUT", gamePath(id, m, n), { body: map === null ? body : { ...body, map } });
}

const byId = (ms: Match[], matchId: string) => ms.find((m) => m.id === matchId)!;

describe("format_options", () => {
  it("fills best_of (1) and, for the elimination formats, final_best_of (= best_of) in", async () => {
    const t = await tenant();
    const call = caller(t);
    for (
      const [format, options, expected] of [
        ["single_elimination", {}, { third_place_match: false, best_of: 1, final_best_of: 1 }],
        ["single_elimination", { best_of: 3 }, { third_place_match: false, best_of: 3, final_best_of: 3 }],
        ["double_elimination", { best_of: 3, final_best_of: 5 }, { grand_final: "reset", best_of: 3, final_best_of: 5 }],
        ["round_robin", { best_of: 3 }, roundRobinOptions({ best_of: 3 })],
        ["swiss", {}, swissOptions()],
      ] as const
    ) {
      const res = await call("POST", "/tournaments", { body: tournamentBody({ format, format_options: options }) });
      expectStatus(res, 201);
      expect(res.body.data.format_options, format).toEqual(expected);
    }
  });

  it("refuses an even, out-of-range or non-integer best_of, and final_best_of where there is no final", async () => {
    const t = await tenant();
    const call = caller(t);
    for (
      const [format, options, field] of [
        ["single_elimination", { best_of: 2 }, "format_options.best_of"],
        ["single_elimination", { best_of: 11 }, "format_options.best_of"],
        ["double_elimination", { best_of: 0 }, "format_options.best_of"],
        ["double_elimination", { final_best_of: 4 }, "format_options.final_best_of"],
        ["swiss", { best_of: "3" }, "format_options.best_of"],
        ["round_robin", { final_best_of: 3 }, "format_options.final_best_of"],
      ] as const
    ) {
      expectError(
        await call("POST", "/tournaments", { body: tournamentBody({ format, format_options: options }) }),
        400,
        "validation_error",
        [field],
      );
    }
    expectError(
      await call("POST", "/tournaments", {
        body: tournamentBody({
          stages: [{ format: "swiss", format_options: { best_of: 4 }, advance: { top: 4 } }, { format: "single_elimination" }],
        }),
      }),
      400,
      "validation_error",
      ["stages[0].format_options.best_of"],
    );
  });
});

describe("a best-of-three single elimination, map by map", () => {
  it("gives each match its best_of (the final its final_best_of) and decides a match at two games", async () => {
    const { call, id } = await started({ format_options: { best_of: 3, final_best_of: 5, third_place_match: true } }, 4);
    let ms = await matches(call, id);
    const [semi1, semi2] = ms.filter((m) => m.round === 1);
    const final = ms.find((m) => m.bracket === "winners" && m.round === 2)!;
    const third = ms.find((m) => m.bracket === "third_place")!;
    expect([semi1.best_of, semi2.best_of, final.best_of, third.best_of]).toEqual([3, 3, 5, 3]);
    expect(semi1.games).toEqual([]);

    // Game 1: the score is the games won, the match still ready.
    let res = await game(call, id, semi1, 1, 1, "Mirage");
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ id: semi1.id, status: "ready", team1_score: 1, team2_score: 0, winner_id: null });
    expect(res.body.data.games).toEqual([{
      number: 1,
      team1_score: 13,
      team2_score: 8,
      winner_id: semi1.team1_id,
      map: "Mirage",
      reported_at: expect.any(String),
      lineups: null,
    }]);
    // No gaps, nothing past best_of.
    expectError(await game(call, id, semi1, 3, 1), 400, "validation_error", ["number"]);
    expectError(await game(call, id, semi1, 4, 1), 400, "validation_error", ["number"]);
    expectError(await game(call, id, semi1, 0, 1), 400, "validation_error", ["number"]);
    // Game 2 to the other side: level 1-1.
    res = await game(call, id, semi1, 2, 2);
    expect(res.body.data).toMatchObject({ status: "ready", team1_score: 1, team2_score: 1 });
    // Game 3 decides: completed, the winner in the final, the loser in the third-place match.
    res = await game(call, id, semi1, 3, 2, "Nuke");
    expect(res.body.data).toMatchObject({ status: "completed", team1_score: 1, team2_score: 2, winner_id: semi1.team2_id });
    expect(res.body.data.games.map((g: { number: number }) => g.number)).toEqual([1, 2, 3]);
    ms = await matches(call, id);
    expect(byId(ms, final.id).team1_id).toBe(semi1.team2_id);
    expect(byId(ms, third.id).team1_id).toBe(semi1.team1_id);
    // Nothing past a decided series.
    expectError(await game(call, id, { ...semi1, best_of: 5 } as Match, 4, 1), 400, "validation_error", ["number"]);
    const two = await started({ format_options: { best_of: 3 } }, 2);
    const [only] = await matches(two.call, two.id);
    expect(only.best_of).toBe(3);
    await game(two.call, two.id, only, 1, 1);
    expectStatus(await game(two.call, two.id, only, 2, 1), 200);
    expectError(await game(two.call, two.id, only, 3, 2), 409, "series_decided");
  });

  it("a correction that undoes the decision takes the winner back out of the next match, and locks once that match has a game", async () => {
    const { call, id } = await started({ format_options: { best_of: 3 } }, 4);
    const ms = await matches(call, id);
    const [semi1, semi2] = ms.filter((m) => m.round === 1);
    const final = ms.find((m) => m.round === 2)!;
    await game(call, id, semi1, 1, 1);
    await game(call, id, semi1, 2, 1);
    expect(byId(await matches(call, id), final.id).team1_id).toBe(semi1.team1_id);

    // Correcting game 2 to the other side: 1-1, ready again, the final waits for its team.
    let res = await game(call, id, semi1, 2, 2);
    expect(res.body.data).toMatchObject({ status: "ready", team1_score: 1, team2_score: 1, winner_id: null, completed_at: null });
    expect(byId(await matches(call, id), final.id)).toMatchObject({ team1_id: null, status: "pending" });
    // A correction that would put a game past the decision is refused: decide at 2, then correct 1.
    await game(call, id, semi1, 3, 1);
    expectError(await game(call, id, semi1, 2, 1), 409, "series_decided");
    // DELETE takes only the last game; it undoes the decision.
    expectError(await call("DELETE", gamePath(id, semi1, 2)), 409, "match_locked");
    expectError(await call("DELETE", gamePath(id, semi1, 4)), 404, "not_found");
    res = await call("DELETE", gamePath(id, semi1, 3));
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ status: "ready", team1_score: 1, team2_score: 1 });
    expect(res.body.data.games).toHaveLength(2);
    await game(call, id, semi1, 3, 1);

    // The other semi-final decided, the final gets a game: semi-final 1's decision is locked...
    await game(call, id, semi2, 1, 2);
    await game(call, id, semi2, 2, 2);
    const f = byId(await matches(call, id), final.id);
    expect(f.status).toBe("ready");
    expectStatus(await game(call, id, f, 1, 1), 200);
    expectError(await call("DELETE", gamePath(id, semi1, 3)), 409, "match_locked");
    expectError(await game(call, id, semi1, 3, 2), 409, "match_locked");
    // ... but a game corrected without changing who won (its map, its score) still goes in.
    res = await call("PUT", gamePath(id, semi1, 3), { body: { team1_score: 16, team2_score: 14, map: "Ancient" } });
    expectStatus(res, 200);
    expect(res.body.data.games[2]).toMatchObject({ team1_score: 16, team2_score: 14, map: "Ancient", winner_id: semi1.team1_id });
    expect(res.body.data).toMatchObject({ status: "completed", team1_score: 2, team2_score: 1 });
  });

  it("a series score sent directly: exactly ceil(best_of / 2) for the winner; it replaces the games; a forfeit keeps them", async () => {
    const { call, id } = await started({ format_options: { best_of: 5 } }, 4);
    const [semi1, semi2] = (await matches(call, id)).filter((m) => m.round === 1);
    const path = (m: Match) => `/tournaments/${id}/matches/${m.id}`;
    for (const [a, b] of [[2, 0], [4, 1], [3, 3], [3, 4]]) {
      const res = await call("PATCH", path(semi1), { body: { team1_score: a, team2_score: b } });
      expectStatus(res, 400);
    }
    // The series score is input: 400 before the state (the final still waits for its teams).
    const final = (await matches(call, id)).find((m) => m.round === 2)!;
    expectError(await call("PATCH", path(final), { body: { team1_score: 5, team2_score: 0 } }), 400, "validation_error", ["team1_score"]);
    expectError(await call("PATCH", path(final), { body: { team1_score: 3, team2_score: 0 } }), 409, "match_not_ready");
    await game(call, id, semi1, 1, 2);
    let res = await call("PATCH", path(semi1), { body: { team1_score: 3, team2_score: 1 } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ status: "completed", team1_score: 3, team2_score: 1, winner_id: semi1.team1_id, games: [] });
    // A game on a series decided directly: there is no game past its decision.
    expectError(await game(call, id, semi1, 1, 1), 409, "series_decided");

    await game(call, id, semi2, 1, 1);
    res = await call("PATCH", path(semi2), { body: { forfeit: "team1" } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({
      status: "completed",
      forfeit: "team1",
      team1_score: null,
      team2_score: null,
      winner_id: semi2.team2_id,
    });
    expect(res.body.data.games).toHaveLength(1);
    expectError(await game(call, id, semi2, 2, 1), 409, "series_decided");
    expectError(await call("DELETE", gamePath(id, semi2, 1)), 409, "series_decided");
  });

  it("PATCH best_of: until the match has a game or a result", async () => {
    const { call, id } = await started({}, 3);
    const ms = await matches(call, id);
    const bye = ms.find((m) => m.status === "bye")!;
    const ready = ms.find((m) => m.status === "ready")!;
    const final = ms.find((m) => m.round === 2)!;
    const path = (m: Match) => `/tournaments/${id}/matches/${m.id}`;
    expectError(await call("PATCH", path(ready), { body: { best_of: 4 } }), 400, "validation_error", ["best_of"]);
    expectError(await call("PATCH", path(bye), { body: { best_of: 3 } }), 409, "match_not_ready");
    let res = await call("PATCH", path(final), { body: { best_of: 5 } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ best_of: 5, status: "pending" });
    // best_of and a result in one body: the result is the new series' score.
    res = await call("PATCH", path(ready), { body: { best_of: 3, team1_score: 2, team2_score: 0 } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ best_of: 3, status: "completed", team1_score: 2 });
    expectError(await call("PATCH", path(ready), { body: { best_of: 1 } }), 409, "match_locked");
    expectStatus(await call("PATCH", path(ready), { body: { best_of: 3 } }), 200); // the same: no change
    const f = byId(await matches(call, id), final.id);
    await game(call, id, f, 1, 1);
    expectError(await call("PATCH", path(f), { body: { best_of: 3 } }), 409, "match_locked");
  });
});

describe("formats and stages", () => {
  it("double elimination: a grand final undone sends its reset back to waiting", async () => {
    const { call, id } = await started({ format: "double_elimination", format_options: { best_of: 1, final_best_of: 3 } }, 2);
    let ms = await matches(call, id);
    const gf = ms.find((m) => m.bracket === "grand_final" && m.round === 1)!;
    const reset = ms.find((m) => m.bracket === "grand_final" && m.round === 2)!;
    expect([gf.best_of, reset.best_of]).toEqual([3, 3]);
    // 2 teams: the winners-bracket final feeds the grand final.
    const wf = ms.find((m) => m.bracket === "winners")!;
    expectStatus(await game(call, id, wf, 1, 1), 200);
    ms = await matches(call, id);
    const g = byId(ms, gf.id);
    await game(call, id, g, 1, 2);
    await game(call, id, g, 2, 2);
    expect(byId(await matches(call, id), reset.id).status).toBe("ready");
    expectStatus(await call("DELETE", gamePath(id, g, 2)), 200);
    expect(byId(await matches(call, id), reset.id)).toMatchObject({ status: "pending", team1_id: null, team2_id: null });
    await game(call, id, g, 2, 1);
    await game(call, id, g, 3, 1);
    expect(byId(await matches(call, id), reset.id).status).toBe("bye");
    // Back to the losers champion winning it; the reset under way keeps its game and score when
    // the grand final is corrected without changing who won it.
    expectStatus(await call("DELETE", gamePath(id, g, 3)), 200);
    await game(call, id, g, 3, 2);
    const r = byId(await matches(call, id), reset.id);
    expect(r.status).toBe("ready");
    await game(call, id, r, 1, 1);
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${g.id}`, { body: { team1_score: 0, team2_score: 2 } }), 200);
    expect(byId(await matches(call, id), reset.id)).toMatchObject({ status: "ready", team1_score: 1, team2_score: 0 });
    await game(call, id, r, 2, 1);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
  });

  it("swiss: a round-1 decision undone takes round 2 away (only the current round exists); deciding it again draws it anew", async () => {
    const { call, id } = await started({ format: "swiss", format_options: { best_of: 3, rounds: 2 } }, 4);
    const round1 = await matches(call, id);
    for (const m of round1) {
      await game(call, id, m, 1, 1);
      await game(call, id, m, 2, 1);
    }
    const round2 = (await matches(call, id)).filter((m) => m.round === 2);
    expect(round2.map((m) => [m.status, m.best_of])).toEqual([["ready", 3], ["ready", 3]]);
    expectStatus(await call("DELETE", gamePath(id, round1[0], 2)), 200);
    expect((await matches(call, id)).map((m) => m.round)).toEqual([1, 1]);
    await game(call, id, round1[0], 2, 1);
    const after = (await matches(call, id)).filter((m) => m.round === 2);
    expect(after.map((m) => [m.status, m.team1_id, m.team2_id, m.best_of]))
      .toEqual(round2.map((m) => ["ready", m.team1_id, m.team2_id, 3]));
    // A game in round 2 locks round 1's decisions.
    await game(call, id, after[0], 1, 1);
    expectError(await call("DELETE", gamePath(id, round1[1], 2)), 409, "match_locked");
  });

  it("round robin: the score difference is the map difference", async () => {
    const { call, id } = await started({ format: "round_robin", format_options: { best_of: 3 } }, 3);
    const ms = await matches(call, id);
    for (const m of ms) {
      await game(call, id, m, 1, 1);
      if (m.round === 1) await game(call, id, m, 2, 2);
      const last = m.round === 1 ? 3 : 2;
      await game(call, id, m, last, 1);
    }
    const res = await call("GET", `/tournaments/${id}/results`);
    const scores = (await matches(call, id)).map((m) => [m.team1_score, m.team2_score]);
    for (const s of scores) expect(Math.max(...(s as number[]))).toBe(2);
    const seed1 = res.body.data.standings.find((s: { team_id: string }) => s.team_id === pool[0]);
    expect(seed1).toMatchObject({ position: 1, wins: 2 });
  });

  it("each stage's best_of; a game of a stage before the current one is locked", async () => {
    const { call, id } = await started({
      stages: [
        { format: "round_robin", format_options: { best_of: 1 }, advance: { per_group: 2 } },
        { format: "single_elimination", format_options: { best_of: 3, final_best_of: 5 } },
      ],
    }, 3);
    const group = await matches(call, id);
    expect(group.every((m) => m.best_of === 1)).toBe(true);
    for (const m of group) expectStatus(await game(call, id, m, 1, 1), 200);
    expectStatus(await call("PATCH", `/tournaments/${id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const playoff = (await matches(call, id)).filter((m) => m.stage === 2);
    expect(playoff.map((m) => m.best_of)).toEqual([5]);
    expectError(await game(call, id, group[0], 1, 2), 409, "match_locked");
    expectError(await call("DELETE", gamePath(id, group[0], 1)), 409, "match_locked");
    await game(call, id, playoff[0], 1, 1);
    await game(call, id, playoff[0], 2, 1);
    expectStatus(await game(call, id, playoff[0], 3, 1), 200);
    const st = await call("GET", `/tournaments/${id}/stages/2`);
    expect(st.body.data.status).toBe("completed");
    expectStatus(await call("DELETE", gamePath(id, playoff[0], 3)), 200);
    expect((await call("GET", `/tournaments/${id}/stages/2`)).body.data).toMatchObject({ status: "ongoing", completed_at: null });
  });
});

describe("races", () => {
  it("two reports of one game number in parallel: one game, one consistent match", async () => {
    const { call, id } = await started({ format_options: { best_of: 3 } }, 2);
    const [m] = await matches(call, id);
    const results = await Promise.all([game(call, id, m, 1, 1, "A"), game(call, id, m, 1, 2, "B")]);
    for (const r of results) expectStatus(r, 200);
    const [after] = await matches(call, id);
    expect(after.games).toHaveLength(1);
    const g = after.games[0];
    expect([after.team1_score, after.team2_score]).toEqual(g.winner_id === m.team1_id ? [1, 0] : [0, 1]);
    expect(g.map).toBe(g.winner_id === m.team1_id ? "A" : "B");
  });

  it("a final's game racing a correction that undoes the semi-final feeding it: never both", async () => {
    for (let i = 0; i < 3; i++) {
      const { call, id } = await started({ format_options: { best_of: 3 } }, 4);
      const [semi1, semi2, final] = await matches(call, id);
      for (const s of [semi1, semi2]) {
        await game(call, id, s, 1, 1);
        await game(call, id, s, 2, 1);
      }
      const [undo, play] = await Promise.all([
        call("DELETE", gamePath(id, semi1, 2)),
        game(call, id, final, 1, 1),
      ]);
      const ms = await matches(call, id);
      const f = byId(ms, final.id);
      const s1 = byId(ms, semi1.id);
      if (undo.status === 200) {
        expectError(play, 409, "match_not_ready");
        expect(s1.status).toBe("ready");
        expect(f).toMatchObject({ status: "pending", team1_id: null, games: [] });
      } else {
        expectError(undo, 409, "match_locked");
        expectStatus(play, 200);
        expect(s1.status).toBe("completed");
        expect(f.games).toHaveLength(1);
      }
    }
  });
});

describe("webhooks", () => {
  it("match.game_reported for every game PUT and DELETE, before match.completed", async () => {
    const { t, call, id } = await started({ format_options: { best_of: 3 } }, 2);
    const hook = await call("POST", "/webhooks", { body: { url: "http://127.0.0.1:9/x", events: ["*"] } });
    expectStatus(hook, 201);
    const [m] = await matches(call, id);
    await game(call, id, m, 1, 1);
    await game(call, id, m, 2, 1);
    await call("DELETE", gamePath(id, m, 2));
    const rows = await sql<{ type: string; payload: string }>(
      `select e.type, e.payload from app.webhook_events e
         join app.webhook_deliveries d on d.event_id = e.id
        where e.account_id = $1 and e.tournament_id = $2 order by d.seq`,
      [t.accountId, id],
    );
    const types = rows.map((r) => r.type).filter((x) => x.startsWith("match."));
    expect(types).toEqual(["match.game_reported", "match.game_reported", "match.completed", "match.game_reported", "match.corrected"]);
    const second = JSON.parse(
      rows.find((r, i) =>
        r.type === "match.game_reported" && i > 0 &&
        JSON.parse(r.payload).data.games.length === 2
      )!.payload,
    );
    expect(second.data).toMatchObject({ id: m.id, tournament_id: id, status: "completed", team1_score: 2 });
  });
});

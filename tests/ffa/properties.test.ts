// Free-for-all (contract section 20) against an independent oracle (tests/support/ffa-oracle.ts,
// written from the contract alone): random stages (2-40 teams, lobby sizes 3-12, 1-3 games, 1-3
// rounds, draw "seed" or "standings", random placement points with ranges, kill points, a random
// tie-breaker order) and one large stage a run (100-1,024 teams, lobbies of 20-100), played
// through the API with random placements and kills (mostly few, so that points tie and the
// tie-breakers decide), with corrections and deletions of games. After each round: every lobby's
// teams (dealt in snake order from seeds, or from the standings), its opponents (placement, kills,
// points, in placement order), its games' points and its winner; the stage's standings (order,
// points, kills, first places, games played, best placement, separated_by). Disagreements are
// collected with the seed and the case, and asserted at the end.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type Call, createTeams, expectStatus, mulberry32, startedTournament } from "../support/helpers.ts";
import { deal, FFA_TIE_BREAKERS, type FfaTieBreaker, gamePoints, type PlayedGame, rank } from "../support/ffa-oracle.ts";

const SEED = process.env.FFA_PROPS_SEED && process.env.FFA_PROPS_SEED !== "random"
  ? Number(process.env.FFA_PROPS_SEED)
  : Math.floor(Math.random() * 2 ** 31);
console.log(`ffa-properties: fast-check seed ${SEED} (FFA_PROPS_SEED=<n> replays)`);

let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(40, `FfaO${Date.now().toString(36)}`);
});

interface Case {
  n: number;
  lobby_size: number;
  games: number;
  rounds: number;
  draw: "seed" | "standings";
  placement_points: Record<string, number>;
  kill_points: number;
  tie_breakers: FfaTieBreaker[];
  seed: number;
}

interface Opponent {
  team_id: string;
  seed: number;
  placement: number | null;
  kills: number;
  points: number;
}
interface Lobby {
  id: string;
  round: number;
  position: number;
  status: string;
  winner_id: string | null;
  opponents: Opponent[];
  games: { number: number; results: { team_id: string; placement: number; kills: number; points: number }[] }[];
}

/** Placement points as non-overlapping placements and ranges from 1 up, some placements left out. */
const pointsTable = fc.array(
  fc.record({ len: fc.integer({ min: 1, max: 3 }), points: fc.integer({ min: 0, max: 12 }), skip: fc.boolean() }),
  {
    minLength: 1,
    maxLength: 6,
  },
).map((parts) => {
  const table: Record<string, number> = {};
  let at = 1;
  for (const p of parts) {
    if (!p.skip) table[p.len === 1 ? String(at) : `${at}-${at + p.len - 1}`] = p.points;
    at += p.len;
  }
  if (Object.keys(table).length === 0) table["1"] = 10;
  return table;
});

const smallCase = fc.record({
  n: fc.integer({ min: 2, max: 40 }),
  lobby_size: fc.integer({ min: 3, max: 12 }),
  games: fc.integer({ min: 1, max: 3 }),
  rounds: fc.integer({ min: 1, max: 3 }),
  draw: fc.constantFrom("seed" as const, "standings" as const),
  placement_points: pointsTable,
  kill_points: fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 100 })),
  tie_breakers: fc.shuffledSubarray([...FFA_TIE_BREAKERS], { minLength: 1 }),
  seed: fc.integer(),
});

const bigCase = fc.record({
  n: fc.integer({ min: 100, max: 1024 }),
  lobby_size: fc.integer({ min: 20, max: 100 }),
  games: fc.constant(1),
  rounds: fc.constant(1),
  draw: fc.constant("seed" as const),
  placement_points: pointsTable,
  kill_points: fc.integer({ min: 0, max: 3 }),
  tie_breakers: fc.shuffledSubarray([...FFA_TIE_BREAKERS], { minLength: 1 }),
  seed: fc.integer(),
});

const describeCase = (c: Case) =>
  `n ${c.n}, lobby_size ${c.lobby_size}, games ${c.games}, rounds ${c.rounds}, draw ${c.draw}, points ${
    JSON.stringify(c.placement_points)
  }, kill_points ${c.kill_points}, tie_breakers ${c.tie_breakers.join(",")}`;

/** Plays a case through the API, comparing with the oracle after each round; returns the disagreements. */
async function play(c: Case, teams: string[], call: Call, id: string): Promise<string[]> {
  const random = mulberry32(c.seed);
  const out: string[] = [];
  const seedOf = new Map(teams.map((t, i) => [t, i + 1]));
  const played = new Map<string, PlayedGame[]>(teams.map((t) => [t, []]));
  const lobbyGames = new Map<string, { team_id: string; placement: number; kills: number }[][]>();

  const results = async () => {
    const res = await call("GET", `/tournaments/${id}/results`);
    expectStatus(res, 200);
    return res.body.data as { matches: Lobby[]; standings: Record<string, unknown>[] };
  };
  const randomGame = (teamIds: string[]) => {
    const order = [...teamIds];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order.map((team_id, i) => ({
      team_id,
      placement: i + 1,
      kills: random() < 0.8 ? Math.floor(random() * 3) : Math.floor(random() * 1001),
    }));
  };
  const put = async (lobby: Lobby, number: number, game: { team_id: string; placement: number; kills: number }[]) => {
    const res = await call("PUT", `/tournaments/${id}/matches/${lobby.id}/games/${number}`, { body: { results: game } });
    if (res.status !== 200) {
      out.push(`PUT game ${number} of round ${lobby.round} lobby ${lobby.position}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    const list = lobbyGames.get(lobby.id) ?? [];
    list[number - 1] = game;
    lobbyGames.set(lobby.id, list);
  };
  /** Each team's games of round r as the lobbies hold them now. */
  const roundGames = (lobbies: Lobby[], r: number) => {
    const out = new Map<string, PlayedGame[]>();
    for (const m of lobbies) {
      (lobbyGames.get(m.id) ?? []).forEach((game, i) => {
        for (const e of game) {
          const list = out.get(e.team_id) ?? [];
          list.push({
            round: r,
            number: i + 1,
            placement: e.placement,
            kills: e.kills,
            points: gamePoints(c.placement_points, c.kill_points, e.placement, e.kills),
          });
          out.set(e.team_id, list);
        }
      });
    }
    return out;
  };
  const oracleStandings = () => rank(teams.map((t) => ({ team_id: t, seed: seedOf.get(t)!, games: played.get(t)! })), c.tie_breakers);

  let expectedOrder = teams; // round 1: by seed
  for (let r = 1; r <= c.rounds; r++) {
    const { matches } = await results();
    const lobbies = matches.filter((m) => m.round === r).sort((a, b) => a.position - b.position);
    const dealt = deal(c.draw === "seed" ? teams : expectedOrder, c.lobby_size);
    const rounds = new Set(matches.map((m) => m.round));
    if (r === 1 && rounds.size !== (c.draw === "seed" ? c.rounds : 1)) {
      out.push(`rounds made at the start: ${[...rounds].join(",")} (draw ${c.draw}, rounds ${c.rounds})`);
    }
    if (lobbies.length !== dealt.length) {
      out.push(`round ${r}: ${lobbies.length} lobbies, expected ${dealt.length}`);
      return out;
    }
    lobbies.forEach((m, k) => {
      const got = m.opponents.map((o) => o.team_id).sort(), want = [...dealt[k]].sort();
      if (JSON.stringify(got) !== JSON.stringify(want)) out.push(`round ${r} lobby ${k + 1}: teams differ from the snake deal`);
    });
    // Play: every game of every lobby, some corrected, some deleted and put again.
    for (let g = 1; g <= c.games; g++) {
      for (const m of lobbies) await put(m, g, randomGame(m.opponents.map((o) => o.team_id)));
    }
    // The next round is dealt from the standings when this one completes (its last game above); a
    // correction never deals it again.
    const atCompletion = rank(
      teams.map((t) => ({ team_id: t, seed: seedOf.get(t)!, games: [...played.get(t)!, ...roundGames(lobbies, r).get(t) ?? []] })),
      c.tie_breakers,
    ).map((s) => s.team_id);
    for (const m of lobbies) {
      if (random() < 0.3) await put(m, 1 + Math.floor(random() * c.games), randomGame(m.opponents.map((o) => o.team_id)));
      if (random() < 0.2) {
        const res = await call("DELETE", `/tournaments/${id}/matches/${m.id}/games/${c.games}`);
        if (res.status !== 200) out.push(`DELETE game ${c.games}: ${res.status} ${res.text.slice(0, 200)}`);
        await put(m, c.games, randomGame(m.opponents.map((o) => o.team_id)));
      }
    }
    // The oracle's games of this round.
    for (const [team, games] of roundGames(lobbies, r)) played.get(team)!.push(...games);
    const after = await results();
    for (const m of after.matches.filter((x) => x.round === r)) {
      const games = lobbyGames.get(m.id) ?? [];
      const lobbyRank = rank(
        m.opponents.map((o) => ({
          team_id: o.team_id,
          seed: seedOf.get(o.team_id)!,
          games: games.map((game, i) => {
            const e = game.find((x) => x.team_id === o.team_id)!;
            return {
              round: r,
              number: i + 1,
              placement: e.placement,
              kills: e.kills,
              points: gamePoints(c.placement_points, c.kill_points, e.placement, e.kills),
            };
          }),
        })),
        c.tie_breakers,
      );
      const got = m.opponents.map((o) => [o.team_id, o.seed, o.placement, o.kills, o.points]);
      const want = lobbyRank.map((x) => [x.team_id, x.seed, x.position, x.kills, x.points]);
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        out.push(`round ${r} lobby ${m.position} opponents: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
      }
      m.games.forEach((game, i) => {
        for (const e of game.results) {
          const want = gamePoints(c.placement_points, c.kill_points, e.placement, e.kills);
          if (e.points !== want) out.push(`round ${r} lobby ${m.position} game ${i + 1}: points ${e.points}, expected ${want}`);
        }
      });
      if (m.status !== "completed" || m.winner_id !== lobbyRank[0].team_id) {
        out.push(`round ${r} lobby ${m.position}: ${m.status}, winner ${m.winner_id}, expected completed, ${lobbyRank[0].team_id}`);
      }
    }
    const oracle = oracleStandings();
    const got = after.standings.map((
      s,
    ) => [s.team_id, s.position, s.points, s.kills, s.first_places, s.games_played, s.best_placement, s.separated_by]);
    const want = oracle.map((
      s,
    ) => [s.team_id, s.position, s.points, s.kills, s.first_places, s.games_played, s.best_placement, s.separated_by]);
    for (let i = 0; i < Math.max(got.length, want.length); i++) {
      if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) {
        out.push(`after round ${r}, standing ${i + 1}: got ${JSON.stringify(got[i])}, expected ${JSON.stringify(want[i])}`);
        break;
      }
    }
    expectedOrder = atCompletion;
  }
  return out;
}

describe("free-for-all against the oracle", () => {
  it("random stages: lobbies, placements, points and standings, through corrections and re-deals", async () => {
    const failures: string[] = [];
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(smallCase, async (c) => {
        runs++;
        const teams = pool.slice(0, c.n);
        const { call, id } = await startedTournament({ format: "ffa", format_options: caseOptions(c) }, teams);
        const found = await play(c, teams, call, id);
        if (found.length) failures.push(`seed ${SEED}, ${describeCase(c)}:\n  ${found.slice(0, 5).join("\n  ")}`);
      }),
      { numRuns: 20, seed: SEED, endOnFailure: true },
    );
    expect(runs).toBe(20);
    expect(failures).toEqual([]);
  }, 120_000);

  it("one large stage a run (100-1,024 teams)", async () => {
    const [c] = fc.sample(bigCase, { numRuns: 1, seed: SEED });
    const teams = await createTeams(c.n, `FfaL${Date.now().toString(36)}`);
    const { call, id } = await startedTournament({ format: "ffa", format_options: caseOptions(c) }, teams);
    const found = await play(c, teams, call, id).catch((err) => [String(err)]);
    expect(found, `seed ${SEED}, ${describeCase(c)}`).toEqual([]);
  }, 120_000);
});

function caseOptions(c: Case) {
  return {
    lobby_size: c.lobby_size,
    games: c.games,
    rounds: c.rounds,
    draw: c.draw,
    placement_points: c.placement_points,
    kill_points: c.kill_points,
    tie_breakers: c.tie_breakers,
  };
}

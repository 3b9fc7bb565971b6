// Free-for-all (contract section 20, with section 19's separated_by) against an independent
// oracle (tests/support/ffa-props-oracle.ts, written from the contract alone), through the real API:
// - a property: random events (2-60 teams, lobby_size 3-100, 1-3 games, 1-3 rounds, draw seed or
//   standings, random placement_points with single placements and ranges, kill_points, a random
//   tie-breaker order, or the defaults), every game reported with a random permutation of
//   placements and random kills (mostly small, so that totals tie and the tie-breakers decide;
//   lines sent in a random order, `kills` now and then left out where it is 0),
//   a few corrections (an earlier game PUT again), a DELETE of a lobby's last game (then PUT
//   again), and with draw "standings" a correction (or a DELETE and PUT) after the next round is dealt (no re-deal)
//   and one once it has a game (409 match_locked); with draw "seed", now and then the rounds
//   played last first. Before the first game, in the middle of each round and after it, the lobbies (membership, positions, opponents' placement, kills and
//   points, games and their points, status, winner_id) and the standings (order, points, kills,
//   first_places, games_played, best_placement, separated_by) must be the oracle's; so must the
//   lobby each game PUT and DELETE answers with;
// - one large event per run (100-1,024 teams, lobbies of 20-100, at most 25 of them).
// 12 runs of two events a run in the suite (about 5-10 s; tests/ffa/properties.test.ts, another
// oracle's, runs 20 more), FFA_SEED=<n> replays one.
// A new seed every run (printed); FFA_SEED=<n> replays one. Disagreements are collected (with the
// seed, the event and both answers) and asserted at the end of each test, so that one does not
// hide the others.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type Call, createTeams, expectStatus, type Match, mulberry32, startedTournament } from "../support/helpers.ts";
import {
  deal,
  dealOrder,
  FFA_TIE_BREAKERS,
  type FfaOptions,
  ffaOptionsOf,
  type GameLine,
  gameRows,
  lobbyOutcome,
  lobbyTable,
  type PlayedGame,
  standings as oracleStandings,
} from "../support/ffa-props-oracle.ts";

const SEED = process.env.FFA_SEED && process.env.FFA_SEED !== "random" ? Number(process.env.FFA_SEED) : Date.now() % 2 ** 31;
console.log(`ffa-properties: seed ${SEED} (FFA_SEED=<n> replays)`);

let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(60, `FfaPr${Date.now().toString(36)}`);
});

// ============================================================================
// the API
// ============================================================================
interface ApiOpponent {
  team_id: string;
  seed: number;
  placement: number | null;
  kills: number;
  points: number;
}
interface ApiGame {
  number: number;
  results: { team_id: string; placement: number; kills: number; points: number }[];
  reported_at: string;
}
type Lobby = Omit<Match, "games" | "opponents"> & { opponents: ApiOpponent[]; games: ApiGame[] };
interface ApiStanding {
  position: number;
  team_id: string;
  disqualified: boolean;
  points: number;
  kills: number;
  first_places: number;
  games_played: number;
  best_placement: number | null;
  separated_by: string | null;
}

async function results(call: Call, id: string): Promise<{ matches: Lobby[]; standings: ApiStanding[] }> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  return res.body.data;
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

// ============================================================================
// random events
// ============================================================================
/** Disjoint placements and ranges from 1 (now and then a gap, now and then a far range), mostly small points so totals tie. */
function randomPlacementPoints(random: () => number): Record<string, number> {
  const out: Record<string, number> = {};
  const segments = 1 + Math.floor(random() * 8);
  let p = random() < 0.15 ? 2 + Math.floor(random() * 3) : 1;
  for (let s = 0; s < segments && p <= 100; s++) {
    const len = random() < 0.6 ? 1 : random() < 0.9 ? 2 + Math.floor(random() * 5) : 20 + Math.floor(random() * 80);
    const to = Math.min(100, p + len - 1);
    const points = random() < 0.1 ? Math.floor(random() * 1001) : Math.floor(random() * 11);
    out[to === p ? `${p}` : `${p}-${to}`] = points;
    p = to + 1 + (random() < 0.2 ? 1 + Math.floor(random() * 3) : 0);
  }
  return out;
}

const optionsArb = fc.record({
  lobby_size: fc.option(
    fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 3, max: 8 }) }, { weight: 2, arbitrary: fc.integer({ min: 3, max: 24 }) }, {
      weight: 1,
      arbitrary: fc.integer({ min: 3, max: 100 }),
    }),
    { nil: undefined, freq: 8 },
  ),
  games: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined, freq: 6 }),
  rounds: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined, freq: 6 }),
  draw: fc.option(fc.constantFrom("seed" as const, "standings" as const), { nil: undefined, freq: 8 }),
  placement_points: fc.option(fc.integer().map((s) => randomPlacementPoints(mulberry32(s))), { nil: undefined, freq: 6 }),
  kill_points: fc.option(fc.oneof(fc.constantFrom(0, 1), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 100 })), {
    nil: undefined,
    freq: 5,
  }),
  tie_breakers: fc.option(fc.shuffledSubarray([...FFA_TIE_BREAKERS], { minLength: 1, maxLength: 4 }), { nil: undefined, freq: 5 }),
});
type OptionsArb = typeof optionsArb extends fc.Arbitrary<infer T> ? T : never;

const eventArb = fc.record({
  n: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 2, max: 12 }) }, { weight: 2, arbitrary: fc.integer({ min: 13, max: 60 }) }),
  options: optionsArb,
  /** The kills drawn per line go up to this (1,000 now and then; 0 leaves points to placements). */
  killMax: fc.constantFrom(0, 1, 2, 3, 6, 1000),
  seed: fc.integer(),
});
type EventArb = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

const largeArb = fc.integer({ min: 100, max: 1024 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    options: fc.record({
      lobby_size: fc.integer({ min: Math.max(20, Math.ceil(n / 25)), max: 100 }),
      games: fc.integer({ min: 1, max: 3 }),
      rounds: fc.integer({ min: 1, max: 3 }),
      draw: fc.constantFrom("seed" as const, "standings" as const),
      placement_points: fc.integer().map((s) => randomPlacementPoints(mulberry32(s))),
      kill_points: fc.integer({ min: 0, max: 3 }),
      tie_breakers: fc.shuffledSubarray([...FFA_TIE_BREAKERS], { minLength: 1, maxLength: 4 }),
    }) as fc.Arbitrary<OptionsArb>,
    killMax: fc.constantFrom(1, 3, 1000),
    seed: fc.integer(),
  })
);

/** The options as sent: only the fields drawn (the rest left to their defaults). */
function sent(o: OptionsArb): Partial<FfaOptions> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<FfaOptions>;
}

function shuffled<T>(random: () => number, items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A line as sent: `kills` may be left out (0 by default). */
type SentLine = Omit<GameLine, "kills"> & { kills?: number };

/**
 * A game's lines for `teams`: a random permutation of placements 1..n, random kills (squared:
 * small ones more often), sent in a random order, now and then without `kills` where it is 0.
 */
function randomLines(random: () => number, teams: string[], killMax: number): SentLine[] {
  const lines = shuffled(random, teams).map((team_id, i) => ({
    team_id,
    placement: i + 1,
    kills: Math.floor(random() ** 2 * (killMax + 1)),
  }));
  const omit = random() < 0.3;
  return shuffled(random, lines).map((l) => (omit && l.kills === 0 ? { team_id: l.team_id, placement: l.placement } : l));
}

// ============================================================================
// one event, played and checked
// ============================================================================
/** What the checks saw, summed over the run (printed: evidence the cases were reached). */
const seen = {
  events: 0,
  lobbies: 0,
  games: 0,
  checks: 0,
  lobbyChecks: 0,
  entries: 0,
  corrections: 0,
  deletes: 0,
  locked: 0,
  keptDeals: 0,
  together: 0,
  outOfOrder: 0,
  separatedBy: new Map<string, number>(),
};
const disagreements: string[] = [];
let disagreementCount = 0;

function disagree(text: string): void {
  disagreementCount++;
  if (disagreements.length < 12) disagreements.push(text.length > 6000 ? `${text.slice(0, 6000)}\n  …` : text);
}

/** Plays and checks one event; `label` names it in disagreements. */
async function playEvent(e: EventArb, teamIds: string[], kind: string): Promise<void> {
  const given = sent(e.options);
  const options = ffaOptionsOf(given);
  const teams = teamIds.slice(0, e.n).map((team_id, i) => ({ team_id, seed: i + 1 }));
  const seedOf = new Map(teams.map((t) => [t.team_id, t.seed]));
  const label = `${kind} n=${e.n} killMax=${e.killMax} options ${JSON.stringify(given)} (FFA_SEED=${SEED})`;
  const random = mulberry32(e.seed);
  const { call, id } = await startedTournament({ format: "ffa", format_options: given }, teams.map((t) => t.team_id));
  seen.events++;

  // The model: each round's lobbies as dealt (team ids), each lobby's games (index = number - 1).
  const dealt = new Map<number, string[][]>();
  const played = new Map<string, GameLine[][]>();
  const key = (round: number, lobby: number) => `${round}:${lobby}`;
  const allGames = (): PlayedGame[] =>
    [...played].flatMap(([k, gs]) => {
      const [round, lobby] = k.split(":").map(Number);
      return gs.map((results, i) => ({ round, lobby, number: i + 1, results }));
    });
  const dealRound = (round: number) => {
    dealt.set(round, deal(dealOrder(options, round, teams, allGames()), options.lobby_size));
    dealt.get(round)!.forEach((_, k) => played.set(key(round, k + 1), []));
    seen.lobbies += dealt.get(round)!.length;
  };
  for (let r = 1; r <= (options.draw === "seed" ? options.rounds : 1); r++) dealRound(r);

  const lobbyTeams = (round: number, lobby: number) => dealt.get(round)![lobby - 1].map((t) => ({ team_id: t, seed: seedOf.get(t)! }));
  const lobbyGames = (round: number, lobby: number): PlayedGame[] =>
    played.get(key(round, lobby))!.map((results, i) => ({ round, lobby, number: i + 1, results }));
  const s = (t: string | null) => (t === null ? "null" : `#${seedOf.get(t) ?? t}`);
  const gamesText = (round: number, lobby: number) =>
    played.get(key(round, lobby))!.map((g, i) =>
      `g${i + 1}[${[...g].sort((a, b) => a.placement - b.placement).map((l) => `${s(l.team_id)}:${l.placement}/${l.kills}k`).join(" ")}]`
    ).join(" ");

  /** A lobby in lines: status and winner, the opponents in order, each game's lines. */
  const lobbyLines = (
    v: { status: string; winner_id: string | null; opponents: ApiOpponent[]; games: ApiGame[] | ReturnType<typeof gameRows>[] },
  ) => [
    `status=${v.status} winner=${s(v.winner_id)}`,
    ...v.opponents.map((o) => `opp ${s(o.team_id)} seed=${o.seed} placement=${o.placement} kills=${o.kills} points=${o.points}`),
    ...v.games.map((g, i) =>
      `game ${"number" in g ? g.number : i + 1}: ` +
      ("results" in g ? g.results : g).map((l) => `${s(l.team_id)} ${l.placement}/${l.kills}k=${l.points}`).join(", ")
    ),
  ];
  const oracleLobby = (round: number, lobby: number) => {
    const lt = lobbyTeams(round, lobby);
    const gs = lobbyGames(round, lobby);
    return {
      ...lobbyOutcome(options, lt, gs),
      opponents: lobbyTable(options, lt, gs),
      games: gs.map((g) => ({ number: g.number, results: gameRows(options, g.results) })) as unknown as ApiGame[],
    };
  };
  const compare = (what: string, got: string[], want: string[], input: string) => {
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    const lines = want.map((w, i) => (got[i] === w ? `    = ${w}` : `  API ${got[i] ?? "(none)"}\n  ORA ${w}`));
    if (got.length > want.length) lines.push(...got.slice(want.length).map((g) => `  API ${g} (extra)`));
    disagree([`${label}\n  ${what}`, `  input: ${input}`, ...lines].join("\n"));
  };
  const checkLobby = (what: string, round: number, lobby: number, api: Lobby) => {
    seen.lobbyChecks++;
    const shape = [api.round, api.position, api.team1_id, api.team2_id, api.best_of, api.draw];
    if (JSON.stringify(shape) !== JSON.stringify([round, lobby, null, null, null, false])) {
      disagree(
        `${label}\n  ${what}: round/position/team1_id/team2_id/best_of/draw ${
          JSON.stringify(shape)
        }, expected [${round},${lobby},null,null,null,false]`,
      );
    }
    compare(
      `${what}: round ${round} lobby ${lobby}`,
      lobbyLines(api),
      lobbyLines(oracleLobby(round, lobby)),
      `teams ${lobbyTeams(round, lobby).map((t) => `#${t.seed}`).join(" ")}; ${gamesText(round, lobby) || "no game"}`,
    );
  };

  /** GET /results: every lobby dealt so far (and no other), then the standings. */
  const check = async (what: string) => {
    seen.checks++;
    const { matches, standings } = await results(call, id);
    const expected = [...dealt].flatMap(([round, lobbies]) => lobbies.map((_, k) => [round, k + 1]));
    const got = matches.map((m) => [m.round, m.position]);
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      disagree(`${label}\n  ${what}: lobbies (round, position) ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    }
    for (const m of matches) if (dealt.get(m.round)?.[m.position - 1]) checkLobby(what, m.round, m.position, m);
    const want = oracleStandings(options, teams, allGames());
    for (const w of want) if (w.separated_by) seen.separatedBy.set(w.separated_by, (seen.separatedBy.get(w.separated_by) ?? 0) + 1);
    seen.entries += standings.length;
    const row = (x: ApiStanding | (typeof want)[number]) =>
      `${x.position} ${
        s(x.team_id)
      } points=${x.points} kills=${x.kills} first=${x.first_places} gp=${x.games_played} best=${x.best_placement} sep=${x.separated_by}` +
      ("disqualified" in x && x.disqualified !== false ? ` disqualified=${x.disqualified}` : "");
    const input = [...dealt].flatMap(([round, lobbies]) => lobbies.map((_, k) => `r${round}l${k + 1} ${gamesText(round, k + 1) || "-"}`))
      .join("; ");
    compare(`${what}: standings`, standings.map(row), want.map(row), input);
  };

  /**
   * The API's lobby ids, by round and position (lobbies appear as they are dealt). A lobby whose
   * teams are not the ones the oracle dealt is a disagreement; the event then goes on with the
   * API's teams (so that the rest is still checked).
   */
  const ids = new Map<string, string>();
  const learnIds = async () => {
    for (const m of (await results(call, id)).matches) {
      ids.set(key(m.round, m.position), m.id);
      const want = dealt.get(m.round)?.[m.position - 1];
      if (!want) continue;
      const [got, sorted] = [m.opponents.map((o) => o.team_id).sort(), [...want].sort()];
      if (JSON.stringify(got) === JSON.stringify(sorted)) continue;
      const seeds = (ts: string[]) => ts.map((t) => seedOf.get(t)!).sort((a, b) => a - b).map((x) => `#${x}`).join(" ");
      const input = [...played.keys()].map((k) => {
        const [r, l] = k.split(":").map(Number);
        return `r${r}l${l} ${gamesText(r, l) || "-"}`;
      }).join("; ");
      disagree(`${label}\n  round ${m.round} lobby ${m.position} dealt: API ${seeds(got)}, oracle ${seeds(want)}\n  input: ${input}`);
      dealt.get(m.round)![m.position - 1] = m.opponents.map((o) => o.team_id);
    }
  };
  const put = async (round: number, lobby: number, number: number, lines: SentLine[], what: string) => {
    const res = await call("PUT", `/tournaments/${id}/matches/${ids.get(key(round, lobby))}/games/${number}`, { body: { results: lines } });
    expectStatus(res, 200);
    played.get(key(round, lobby))![number - 1] = lines.map((l) => ({ ...l, kills: l.kills ?? 0 }));
    seen.games++;
    checkLobby(`${what}: PUT round ${round} lobby ${lobby} game ${number} answered`, round, lobby, res.body.data);
  };
  const newLines = (round: number, lobby: number) => randomLines(random, dealt.get(round)![lobby - 1], e.killMax);

  // The options as GET shows them: every default filled in, placement_points' keys as sent.
  const shown = await call("GET", `/tournaments/${id}`);
  expectStatus(shown, 200);
  if (JSON.stringify(sortKeys(shown.body.data.format_options)) !== JSON.stringify(sortKeys(options))) {
    disagree(`${label}\n  format_options shown ${JSON.stringify(shown.body.data.format_options)}, expected ${JSON.stringify(options)}`);
  }
  await learnIds();
  await check("before any game");
  // With draw "seed" every round's lobbies exist from the start: now and then the rounds are
  // played out of order (last_game still reads the highest round's game).
  const order = Array.from({ length: options.rounds }, (_, k) => k + 1);
  if (options.draw === "seed" && random() < 0.3) order.reverse();
  if (order[0] !== 1) seen.outOfOrder++;
  for (const [done, round] of order.entries()) {
    const lobbies = dealt.get(round)!.length;
    // The round's last games: one lobby's alone, or (draw "standings", now and then) every
    // lobby's at once, so that the round completes in one of several concurrent requests.
    const together = options.draw === "standings" && round < options.rounds && lobbies > 1 && random() < 0.4;
    const one = 1 + Math.floor(random() * lobbies);
    const lastOnes = together ? Array.from({ length: lobbies }, (_, k) => k + 1) : [one];
    // Every other game, lobbies in parallel (a lobby's games in order).
    const plans = Array.from({ length: lobbies }, (_, k) => k + 1).map((lobby) => ({
      lobby,
      games: Array.from({ length: lastOnes.includes(lobby) ? options.games - 1 : options.games }, () => newLines(round, lobby)),
    }));
    await inParallel(plans, 4, async (p) => {
      for (const [i, lines] of p.games.entries()) await put(round, p.lobby, i + 1, lines, `round ${round}`);
    });

    // With draw "standings", a round before this one is locked once this one has a game.
    if (options.draw === "standings" && round > 1 && plans.some((p) => p.games.length > 0)) {
      const lobby = 1 + Math.floor(random() * dealt.get(round - 1)!.length);
      const same = played.get(key(round - 1, lobby))![0];
      const res = await call("PUT", `/tournaments/${id}/matches/${ids.get(key(round - 1, lobby))}/games/1`, { body: { results: same } });
      seen.locked++;
      if (res.status !== 409 || res.body?.error?.code !== "match_locked") {
        disagree(
          `${label}\n  PUT round ${round - 1} lobby ${lobby} game 1 (its own results again) once round ${round} has a game: ${res.status} ${
            res.text.slice(0, 300)
          }, expected 409 match_locked`,
        );
        if (res.status === 200) played.get(key(round - 1, lobby))![0] = same;
      }
      const del = await call("DELETE", `/tournaments/${id}/matches/${ids.get(key(round - 1, lobby))}/games/${options.games}`);
      seen.locked++;
      if (del.status !== 409 || del.body?.error?.code !== "match_locked") {
        disagree(
          `${label}\n  DELETE round ${round - 1} lobby ${lobby} game ${options.games} once round ${round} has a game: ${del.status} ${
            del.text.slice(0, 300)
          }, expected 409 match_locked`,
        );
        if (del.status === 200) played.get(key(round - 1, lobby))!.pop();
      }
    }
    // Corrections: an earlier game of this round PUT again (with draw "seed", now and then one of an earlier round).
    const corrections = Math.floor(random() * 3);
    for (let c = 0; c < corrections; c++) {
      const r = options.draw === "seed" && done > 0 && random() < 0.3 ? order[Math.floor(random() * done)] : round;
      const reported = [...played].filter(([k, gs]) => k.startsWith(`${r}:`) && gs.length > 0);
      if (reported.length === 0) break;
      const [k, gs] = reported[Math.floor(random() * reported.length)];
      const lobby = Number(k.split(":")[1]);
      await put(r, lobby, 1 + Math.floor(random() * gs.length), newLines(r, lobby), `correction in round ${round}`);
      seen.corrections++;
    }
    // A lobby's last game deleted (checked), then PUT again.
    const withGames = [...played].filter(([k, gs]) => k.startsWith(`${round}:`) && gs.length > 0);
    if (withGames.length > 0 && random() < 0.6) {
      const [k, gs] = withGames[Math.floor(random() * withGames.length)];
      const lobby = Number(k.split(":")[1]);
      const number = gs.length;
      const res = await call("DELETE", `/tournaments/${id}/matches/${ids.get(k)}/games/${number}`);
      expectStatus(res, 200);
      gs.pop();
      seen.deletes++;
      checkLobby(`round ${round}: DELETE lobby ${lobby} game ${number} answered`, round, lobby, res.body.data);
      await check(`round ${round}, after the DELETE of lobby ${lobby}'s game ${number}`);
      await put(round, lobby, number, newLines(round, lobby), `round ${round}, after the DELETE`);
    }
    await check(`round ${round}, before its last game`);

    // The round's last game(s): with draw "standings" the round's completion deals the next round.
    const finals = lastOnes.map((lobby) => [lobby, newLines(round, lobby)] as const);
    await Promise.all(
      finals.map(([lobby, lines]) => put(round, lobby, options.games, lines, `round ${round}'s last game${together ? "s, at once" : ""}`)),
    );
    if (together) seen.together++;
    if (options.draw === "standings" && round < options.rounds) {
      dealRound(round + 1);
      await learnIds();
      // A correction while the next round has no game is allowed and does not deal it again.
      const pick = random();
      if (pick < 0.5) {
        const lobby = 1 + Math.floor(random() * lobbies);
        await put(
          round,
          lobby,
          1 + Math.floor(random() * options.games),
          newLines(round, lobby),
          `round ${round}, after round ${round + 1} is dealt`,
        );
        seen.corrections++;
        seen.keptDeals++;
      } else if (pick < 0.75) {
        // So is deleting a lobby's last game and PUTting it again: round r + 1 stays as dealt.
        const lobby = 1 + Math.floor(random() * lobbies);
        const res = await call("DELETE", `/tournaments/${id}/matches/${ids.get(key(round, lobby))}/games/${options.games}`);
        expectStatus(res, 200);
        played.get(key(round, lobby))!.pop();
        seen.deletes++;
        checkLobby(
          `round ${round}: DELETE lobby ${lobby} game ${options.games} after round ${round + 1} is dealt answered`,
          round,
          lobby,
          res.body.data,
        );
        await check(`round ${round}, after the DELETE of lobby ${lobby}'s last game once round ${round + 1} is dealt`);
        await put(
          round,
          lobby,
          options.games,
          newLines(round, lobby),
          `round ${round}, PUT again after the DELETE once round ${round + 1} is dealt`,
        );
        seen.keptDeals++;
      }
    }
    await check(`after round ${round}`);
  }
  // The stage's own standings read the same through ?stage=1 and GET /stages/1.
  const want = oracleStandings(options, teams, allGames()).map((x) => `${x.position} ${s(x.team_id)} ${x.points} ${x.separated_by}`);
  const byStage = await call("GET", `/tournaments/${id}/results?stage=1`);
  expectStatus(byStage, 200);
  const stage = await call("GET", `/tournaments/${id}/stages/1`);
  expectStatus(stage, 200);
  for (const [what, got] of [["results?stage=1", byStage.body.data.standings], ["stages/1", stage.body.data.standings]] as const) {
    const rows = (got as ApiStanding[]).map((x) => `${x.position} ${s(x.team_id)} ${x.points} ${x.separated_by}`);
    compare(`at the end: ${what} standings (position, team, points, separated_by)`, rows, want, "as above");
  }
  if (stage.body.data.status !== "completed") {
    disagree(`${label}\n  at the end: stage 1 status ${stage.body.data.status}, expected completed`);
  }
}

describe("free-for-all: lobbies and standings against the oracle", () => {
  it("property: random events, games, corrections and deletions give the oracle's lobbies and standings", async () => {
    disagreements.length = 0;
    disagreementCount = 0;
    const started = performance.now();
    let error: unknown;
    await fc.assert(
      fc.asyncProperty(fc.tuple(eventArb, eventArb), async ([a, b]) => {
        await Promise.all([playEvent(a, pool, "event"), playEvent(b, pool, "event")]);
      }),
      { numRuns: 12, seed: SEED, endOnFailure: true },
    ).catch((e) => (error = e));
    report("property", started, error);
  }, 120_000);

  it("one large event (100-1,024 teams) gives the oracle's lobbies and standings", async () => {
    disagreements.length = 0;
    disagreementCount = 0;
    const started = performance.now();
    const [e] = fc.sample(largeArb, { seed: SEED, numRuns: 1 });
    if (process.env.FFA_LARGE_N) e.n = Number(process.env.FFA_LARGE_N);
    console.log(`ffa large event: n=${e.n} options ${JSON.stringify(e.options)} killMax=${e.killMax}`);
    const teams = await createTeams(e.n, `FfaBig${Date.now().toString(36)}`);
    let error: unknown;
    await playEvent(e, teams, "large event").catch((x) => (error = x));
    report("large event", started, error);
  }, 120_000);
});

/** A JSON value with its objects' keys sorted (to compare objects whatever their key order). */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, sortKeys(x)]));
  }
  return v;
}

/** Prints what the run saw and its disagreements, then fails on them, or on the error that stopped the run. */
function report(what: string, started: number, error: unknown): void {
  console.log(
    `ffa ${what}: ${seen.events} events, ${seen.lobbies} lobbies, ${seen.games} game PUTs (${seen.corrections} corrections, ${seen.deletes} deletes, ${seen.locked} lock probes, ${seen.keptDeals} corrections after a deal, ${seen.together} rounds completed by concurrent PUTs, ${seen.outOfOrder} events played last round first), ${seen.checks} checks (${seen.lobbyChecks} lobbies, ${seen.entries} standing entries) in ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s; separated_by ${
      JSON.stringify(Object.fromEntries([...seen.separatedBy].sort((x, y) => y[1] - x[1])))
    }; ${disagreementCount} disagreements`,
  );
  if (disagreements.length) console.log(disagreements.join("\n\n"));
  const found = [...disagreements];
  disagreements.length = 0;
  disagreementCount = 0;
  for (const k of Object.keys(seen) as (keyof typeof seen)[]) if (k !== "separatedBy") seen[k] = 0;
  seen.separatedBy.clear();
  if (error) console.log(`ffa ${what}: the run stopped on ${error instanceof Error ? error.message : String(error)}`);
  expect(found, "disagreements with the oracle").toEqual([]);
  if (error) throw error;
}

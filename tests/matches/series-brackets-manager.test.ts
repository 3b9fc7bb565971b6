// Series (contract section 13) against brackets-manager: a best-of-three single elimination of
// 8 teams (sections 5 and 10: standard seeding, registration order = seed) played game by game
// in both, from the same seeded random sequences. brackets-manager's stage is created with
// `matchesChildCount: 3` (every match gets three child games; the parent's score is the count
// of child games won and the parent is decided when one side has 2, its winner then advancing),
// and each game we PUT is reported to it with `manager.update.matchGame({parent_id, number, ...})`.
// Matches are paired by (round, position) = (round number, match number), once the round-1 seed
// pairs are checked to agree; teams are compared by identity (brackets-manager's participants
// are named by our team ids, seeded in the same order).
//
// brackets-manager representation notes (not differences in behaviour):
// - it creates all `matchesChildCount` child games up front: a 2-0 series keeps an unplayed
//   third game (the library leaves marking it unneeded to the user), while our `games` list
//   only what was reported; so game lists are compared over the games played.
// - its final standings use dense ranks (1, 2, 3, 3, 4, 4, 4, 4) where the contract's use
//   competition ranks (1, 2, 3, 3, 5, 5, 5, 5); standings are compared tier by tier.
import { BracketsManager } from "brackets-manager";
import { InMemoryDatabase } from "brackets-memory-db";
import { beforeAll, describe, expect, it } from "vitest";
import { type Call, createTeams, expectStatus, type Match, mulberry32, type Standing, startedTournament } from "../support/helpers.ts";

const TEAMS = 8;
const BEST_OF = 3;
const TO_WIN = Math.ceil(BEST_OF / 2);
const ROUNDS = 3;
/** The seeds of the random sequences; each plays a whole tournament in both. */
const SEEDS = [0x5e41e5, 1, 2024, 77_777, 0xbadc0de];
const MAPS = ["Mirage", "Inferno", "Nuke", "Ancient", "Anubis", "Vertigo", "Dust2"];

// brackets-model's Status (kept numeric: brackets-model is only brackets-manager's dependency).
const BM_READY = 2;
const BM_RUNNING = 3;
const BM_COMPLETED = 4;
const BM_ARCHIVED = 5;

/** Teams shared by the tests here; pool[s - 1] is seed s. */
let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(TEAMS, `SBm${Date.now().toString(36)}`);
});

/** Our tournament: single elimination, best of three, pool registered in seed order, started. */
async function ourTournament() {
  const { call, id, tournament } = await startedTournament({ format: "single_elimination", format_options: { best_of: BEST_OF } }, pool);
  expect(tournament.format_options).toEqual({ third_place_match: false, best_of: BEST_OF, final_best_of: BEST_OF });
  return { call, id };
}

async function ourResults(call: Call, id: string): Promise<{ matches: Match[]; standings: Standing[] }> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  return res.body.data;
}

/** brackets-manager's stage: the same 8 teams (named by team id) in seed order, three child games a match. */
async function bmTournament() {
  const storage = new InMemoryDatabase();
  const manager = new BracketsManager(storage);
  const stage = await manager.create.stage({
    tournamentId: 0,
    name: "Playoffs",
    type: "single_elimination",
    seeding: [...pool],
    settings: { matchesChildCount: BEST_OF },
  });
  return { storage, manager, stageId: stage.id };
}
type Bm = Awaited<ReturnType<typeof bmTournament>>;

/** One match as both sides are compared: teams by id, scores as games won, the winner, game winners. */
interface Slot {
  team1: string | null;
  team2: string | null;
  score1: number | null;
  score2: number | null;
  winner: string | null;
  decided: boolean;
  gameWinners: (string | null)[];
}

const key = (round: number, position: number) => `${round}:${position}`;
const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

function ourSlots(matches: Match[]): Map<string, Slot> {
  const out = new Map<string, Slot>();
  for (const m of matches) {
    out.set(key(m.round, m.position), {
      team1: m.team1_id,
      team2: m.team2_id,
      score1: m.team1_score,
      score2: m.team2_score,
      winner: m.winner_id,
      decided: m.status === "completed",
      gameWinners: m.games.map((g) => g.winner_id),
    });
  }
  return out;
}

// deno-lint-ignore no-explicit-any
type Row = any;

/** brackets-manager's bracket read back from its storage, keyed like ours. */
async function bmState(bm: Bm) {
  const all = async (table: string, filter?: Record<string, unknown>) =>
    ((await bm.storage.select(table as never, filter as never)) ?? []) as Row[];
  const name = new Map((await all("participant")).map((p) => [p.id, String(p.name)]));
  const groups = await all("group", { stage_id: bm.stageId });
  // Single elimination without a consolation final: one group.
  expect(groups.map((g) => g.number)).toEqual([1]);
  const rounds = new Map((await all("round", { group_id: groups[0].id })).map((r) => [r.id, r.number as number]));
  const teamOf = (o: Row) => (o?.id == null ? null : name.get(o.id)!);
  const slots = new Map<string, Slot>();
  const raw = new Map<string, Row>();
  for (const m of await all("match", { stage_id: bm.stageId })) {
    const round = rounds.get(m.round_id)!;
    const games = (await all("match_game", { parent_id: m.id })).sort((a, b) => a.number - b.number);
    const gameWinners = games
      .filter((g) => g.opponent1?.result === "win" || g.opponent2?.result === "win")
      .map((g) => (g.opponent1?.result === "win" ? teamOf(m.opponent1) : teamOf(m.opponent2)));
    const winner = m.opponent1?.result === "win" ? teamOf(m.opponent1) : m.opponent2?.result === "win" ? teamOf(m.opponent2) : null;
    slots.set(key(round, m.number), {
      team1: teamOf(m.opponent1),
      team2: teamOf(m.opponent2),
      score1: orNull(m.opponent1?.score),
      score2: orNull(m.opponent2?.score),
      winner,
      decided: m.status === BM_COMPLETED || m.status === BM_ARCHIVED,
      gameWinners,
    });
    raw.set(key(round, m.number), { ...m, games });
  }
  return { slots, raw, name };
}

const seedOf = (team: string | null) => (team === null ? null : pool.indexOf(team) + 1);

/** The whole bracket of both, slot by slot, as seeds (readable in a failure). */
function bySeeds(slots: Map<string, Slot>) {
  return [...slots.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, s]) => ({
    slot: k,
    teams: [seedOf(s.team1), seedOf(s.team2)],
    score: [s.score1, s.score2],
    winner: seedOf(s.winner),
    decided: s.decided,
    games: s.gameWinners.map(seedOf),
  }));
}

describe("a best-of-three single elimination of 8 teams against brackets-manager (matchesChildCount: 3)", () => {
  it.each(SEEDS)("plays the same game sequence (PRNG seed %i) in both and agrees round after round", async (seed) => {
    const rng = mulberry32(seed);
    const bm = await bmTournament();
    const { call, id } = await ourTournament();

    // The shapes: 7 matches of best_of 3 in ours, 7 parents with 3 child games each in brackets-manager.
    let ours = await ourResults(call, id);
    let theirs = await bmState(bm);
    expect(ours.matches).toHaveLength(TEAMS - 1);
    for (const m of ours.matches) expect([m.bracket, m.best_of, m.games]).toEqual(["winners", BEST_OF, []]);
    expect(theirs.raw.size).toBe(TEAMS - 1);
    for (const m of theirs.raw.values()) {
      expect(m.child_count).toBe(BEST_OF);
      expect(m.games).toHaveLength(BEST_OF);
    }

    // Round 1's seed pairs agree, position by position (standard seeding: 1-8, 4-5, 2-7, 3-6).
    const roundOne = (s: Map<string, Slot>) => [1, 2, 3, 4].map((p) => [seedOf(s.get(key(1, p))!.team1), seedOf(s.get(key(1, p))!.team2)]);
    expect(ours.matches.filter((m) => m.round === 1).map((m) => [m.team1_seed, m.team2_seed]))
      .toEqual(roundOne(ourSlots(ours.matches)));
    expect(roundOne(ourSlots(ours.matches))).toEqual(roundOne(theirs.slots));
    expect(roundOne(theirs.slots)).toEqual([[1, 8], [4, 5], [2, 7], [3, 6]]);
    expect(bySeeds(ourSlots(ours.matches))).toEqual(bySeeds(theirs.slots));

    for (let round = 1; round <= ROUNDS; round++) {
      const inRound = ours.matches.filter((m) => m.round === round).sort((a, b) => a.position - b.position);
      expect(inRound).toHaveLength(TEAMS >> round);
      // Both sides of every match of the round are known in both, and the match is ready in both.
      for (const m of inRound) {
        const parent = theirs.raw.get(key(round, m.position))!;
        expect([m.status, m.team1_id !== null, m.team2_id !== null], `ours ${key(round, m.position)}`).toEqual(["ready", true, true]);
        expect(parent.status, `brackets-manager ${key(round, m.position)}`).toBe(BM_READY);
      }
      const won = new Map(inRound.map((m) => [m.id, [0, 0]]));
      const played = new Map(inRound.map((m) => [m.id, 0]));
      // Games interleaved across the round's matches, in a random order.
      for (;;) {
        const open = inRound.filter((m) => Math.max(...won.get(m.id)!) < TO_WIN);
        if (open.length === 0) break;
        const m = open[Math.floor(rng() * open.length)];
        const number = played.get(m.id)! + 1;
        const side: 1 | 2 = rng() < 0.5 ? 1 : 2;
        const loserScore = Math.floor(rng() * 12);
        const map = MAPS[Math.floor(rng() * MAPS.length)];
        const [s1, s2] = side === 1 ? [13, loserScore] : [loserScore, 13];
        const label = `seed ${seed}, ${key(round, m.position)} game ${number}`;

        const res = await call("PUT", `/tournaments/${id}/matches/${m.id}/games/${number}`, {
          body: { team1_score: s1, team2_score: s2, map },
        });
        expectStatus(res, 200);
        const parent = theirs.raw.get(key(round, m.position))!;
        await bm.manager.update.matchGame({
          parent_id: parent.id,
          number,
          opponent1: { score: s1, ...(side === 1 ? { result: "win" as const } : {}) },
          opponent2: { score: s2, ...(side === 2 ? { result: "win" as const } : {}) },
        });
        played.set(m.id, number);
        won.get(m.id)![side - 1]++;
        const [w1, w2] = won.get(m.id)!;
        const decided = Math.max(w1, w2) === TO_WIN;

        // After every game: the parent's score in brackets-manager = our games won, and both decide together.
        theirs = await bmState(bm);
        const after = theirs.raw.get(key(round, m.position))!;
        const body = res.body.data;
        expect([body.team1_score, body.team2_score], `${label}: ours`).toEqual([w1, w2]);
        expect([after.opponent1?.score, after.opponent2?.score], `${label}: brackets-manager`).toEqual([w1, w2]);
        expect(
          body.games.map((
            g: { number: number; team1_score: number; team2_score: number; map: string },
          ) => [g.number, g.team1_score, g.team2_score]).at(-1),
          label,
        ).toEqual([number, s1, s2]);
        expect(body.games.at(-1).map, label).toBe(map);
        expect([after.games[number - 1].opponent1?.score, after.games[number - 1].opponent2?.score], label).toEqual([s1, s2]);
        const winnerId = w1 > w2 ? m.team1_id : m.team2_id;
        expect([body.status, body.winner_id], `${label}: ours`).toEqual(decided ? ["completed", winnerId] : ["ready", null]);
        expect(after.status, `${label}: brackets-manager`).toBe(decided ? BM_COMPLETED : BM_RUNNING);
        expect(theirs.slots.get(key(round, m.position))!.winner, label).toBe(decided ? winnerId : null);
      }

      // After the round: the whole bracket agrees (teams in the same (round, position, side) slots,
      // scores as games won, winners, decisions, game winners in order).
      ours = await ourResults(call, id);
      theirs = await bmState(bm);
      expect(bySeeds(ourSlots(ours.matches)), `seed ${seed}, after round ${round}`).toEqual(bySeeds(theirs.slots));
      // The winners advanced (in both: brackets-manager is checked equal just above).
      if (round < ROUNDS) {
        for (const m of ours.matches.filter((x) => x.round === round)) {
          const next = ourSlots(ours.matches).get(key(round + 1, Math.ceil(m.position / 2)))!;
          expect(m.position % 2 === 1 ? next.team1 : next.team2, `${key(round, m.position)} advanced`).toBe(m.winner_id);
          expect(m.next_match_id).toBe(ours.matches.find((x) => x.round === round + 1 && x.position === Math.ceil(m.position / 2))!.id);
        }
      }
    }

    // The champion and the finalist: our final, our standings and brackets-manager's final and standings.
    const final = ours.matches.find((m) => m.round === ROUNDS)!;
    const bmFinal = theirs.slots.get(key(ROUNDS, 1))!;
    expect(final.winner_id).not.toBeNull();
    expect(final.winner_id).toBe(bmFinal.winner);
    const finalist = final.winner_id === final.team1_id ? final.team2_id : final.team1_id;
    const bmFinalist = bmFinal.winner === bmFinal.team1 ? bmFinal.team2 : bmFinal.team1;
    expect(finalist).toBe(bmFinalist);
    const placeOf = (p: number) => ours.standings.filter((s) => s.position === p).map((s) => s.team_id).sort();
    expect(placeOf(1)).toEqual([bmFinal.winner]);
    expect(placeOf(2)).toEqual([bmFinalist]);

    const standings = await bm.manager.get.finalStandings(bm.stageId);
    const bmTier = (rank: number) => standings.filter((s) => s.rank === rank).map((s) => String(s.name)).sort();
    expect(bmTier(1)).toEqual(placeOf(1));
    expect(bmTier(2)).toEqual(placeOf(2));
    // Tier by tier (brackets-manager's dense ranks 3 and 4 are the contract's 3 and 5).
    expect(bmTier(3)).toEqual(placeOf(3));
    expect(bmTier(4)).toEqual(placeOf(5));
    expect(ours.standings).toHaveLength(TEAMS);
    expect(standings).toHaveLength(TEAMS);
  });
});

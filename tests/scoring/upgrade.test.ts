// Upgrading a database that already holds tournaments with the scoring migration
// (supabase/migrations/*_scoring.sql, contract section 19), the way the deploy does it
// (tests/support/upgrade-stack.ts): every migration before it pushed to a throwaway
// Supabase-shaped cluster, random events of every format made there through the operations the
// API runs (single elimination with and without a third-place match, double elimination with a
// single and a reset grand final, round robin with 1-3 groups and custom {win, loss} points,
// swiss with odd and even team counts, groups into playoffs and swiss into double elimination,
// best-of-three series played game by game or sent whole, forfeits, disqualifications, explicit
// seeds), some completed, some half-way, some still taking registrations; then the scoring
// migration pushed. Its defaults are today's rules, so every standing, match, stage, qualifier
// and tournament must read exactly as before, but for what the migration adds: standing entries'
// `draws` (0) and `separated_by`, swiss entries' `points` (their wins), every match's `draw`
// (false), and round robin's and swiss's format_options completed with section 19's defaults;
// no tournament's `version` moves. And every unfinished event, played out to its end (its stages
// started, disqualifications, forfeits) in a transaction rolled back, once before the migration
// and once after with the same random numbers, ends the same: the same swiss rounds drawn, the
// same qualifiers, the same standings. A new seed every run (printed); SCORING_UPGRADE_SEED=<n>
// replays one.
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../support/random.ts";
import { type Json, migrationsAround, startUpgradeCluster, type UpgradeCluster } from "../support/upgrade-stack.ts";

const { before: EARLIER, it: SCORING } = migrationsAround("_scoring.sql");

const SEED = process.env.SCORING_UPGRADE_SEED !== undefined
  ? Number(process.env.SCORING_UPGRADE_SEED)
  : Math.floor(Math.random() * 2 ** 31);
console.log(`scoring upgrade: seed ${SEED} (SCORING_UPGRADE_SEED=${SEED} replays)`);

interface Rng {
  rand(): number;
  int(lo: number, hi: number): number;
  pick<T>(xs: T[]): T;
}
function rng(seed: number): Rng {
  const rand = mulberry32(seed);
  return { rand, int: (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)), pick: (xs) => xs[Math.floor(rand() * xs.length)] };
}
/** The events' random numbers (each play-out after the migration has its own: see playedOut). */
const R = rng(SEED);

/** Section 19's defaults, as the migration must complete the options of a tournament (or stage) made before it. */
const RR_TIE_BREAKERS = ["head_to_head", "score_difference", "score_for"];
const SWISS_TIE_BREAKERS = ["buchholz"];
const SWISS_POINTS = { win: 1, draw: 0, loss: 0 };
const CRITERIA = ["head_to_head", "wins", "score_difference", "score_for", "buchholz", "median_buchholz", "sonneborn_berger", "forfeits"];

let cluster: UpgradeCluster | undefined;
type Call = (account: string, name: string, args: Json) => Promise<Json>;
const op: Call = (account, name, args) => cluster!.op(account, name, args);

// ============================================================================
// the events
// ============================================================================
interface Kind {
  name: string;
  teams: [number, number];
  body: Json;
  /** How many teams advance from stage 1 (multi-stage kinds). */
  advancing?: (n: number) => number;
}

const KINDS: Kind[] = [
  { name: "single elimination", teams: [3, 12], body: { format: "single_elimination" } },
  {
    name: "single elimination, third place",
    teams: [4, 12],
    body: { format: "single_elimination", format_options: { third_place_match: true } },
  },
  {
    name: "double elimination, single final",
    teams: [3, 10],
    body: { format: "double_elimination", format_options: { grand_final: "single" } },
  },
  { name: "double elimination, reset", teams: [3, 10], body: { format: "double_elimination", format_options: { grand_final: "reset" } } },
  { name: "round robin", teams: [3, 8], body: { format: "round_robin" } },
  {
    name: "round robin, 2 groups, {win: 2, loss: 1}",
    teams: [4, 10],
    body: { format: "round_robin", format_options: { groups: 2, points: { win: 2, loss: 1 } } },
  },
  { name: "round robin, 3 groups", teams: [7, 12], body: { format: "round_robin", format_options: { groups: 3 } } },
  {
    name: "round robin, {win: 1, loss: 0}",
    teams: [4, 7],
    body: { format: "round_robin", format_options: { points: { win: 1, loss: 0 } } },
  },
  { name: "swiss, odd", teams: [5, 11], body: { format: "swiss" } },
  { name: "swiss, even", teams: [4, 12], body: { format: "swiss" } },
  { name: "swiss, 4 rounds", teams: [7, 12], body: { format: "swiss", format_options: { rounds: 4 } } },
  { name: "round robin, best of 3", teams: [3, 6], body: { format: "round_robin", format_options: { best_of: 3 } } },
  {
    name: "single elimination, best of 3, final best of 5",
    teams: [4, 8],
    body: { format: "single_elimination", format_options: { best_of: 3, final_best_of: 5 } },
  },
  { name: "swiss, best of 3", teams: [5, 9], body: { format: "swiss", format_options: { best_of: 3 } } },
  {
    name: "groups into single elimination",
    teams: [6, 12],
    body: {
      stages: [
        { name: "Groups", format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 2, best_next: 1 } },
        { name: "Playoffs", format: "single_elimination", format_options: { third_place_match: true } },
      ],
    },
    advancing: () => 5,
  },
  {
    name: "swiss into double elimination",
    teams: [6, 12],
    body: {
      stages: [
        { name: "Swiss", format: "swiss", format_options: { rounds: 3 }, advance: { top: 4 } },
        { name: "Playoffs", format: "double_elimination" },
      ],
    },
    advancing: () => 4,
  },
  {
    // The two semi-final losers share 3rd: a tie at the cut (stage_tie, then advancing by hand).
    name: "single elimination into round robin, a tie at the cut",
    teams: [4, 8],
    body: {
      stages: [
        { name: "Bracket", format: "single_elimination", advance: { top: 3 } },
        { name: "Final group", format: "round_robin" },
      ],
    },
    advancing: () => 3,
  },
  {
    name: "round robin into swiss, best of 3",
    teams: [6, 10],
    body: {
      stages: [
        { name: "Groups", format: "round_robin", format_options: { groups: 2, best_of: 3 }, advance: { per_group: 2 } },
        { name: "Swiss", format: "swiss", format_options: { rounds: 2 } },
      ],
    },
    advancing: () => 4,
  },
];

/** How far an event is played before the migration. */
type Progress = "registration" | "started" | "half-way" | "stage 1 done" | "stage 2 half-way" | "played out" | "completed";

interface Made {
  id: string;
  account: string;
  kind: Kind;
  progress: Progress;
  teams: number;
  registrations: Map<string, string>; // team id → registration id
  disqualified: number;
  forfeits: number;
  games: number;
  stageTies: number;
  /** Scores 1-0 only (many exact ties), or anything up to 5-4. */
  narrow: boolean;
}

const accounts: { id: string; teams: string[] }[] = [];
const made: Made[] = [];
const future = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

async function makeEvent(kind: Kind, progress: Progress, account: { id: string; teams: string[] }): Promise<Made> {
  const n = R.int(kind.teams[0], kind.teams[1]);
  const t = await op(account.id, "tournaments.create", {
    body: {
      name: `${kind.name} (${progress})`,
      game_id: crypto.randomUUID(),
      team_size: 5,
      max_teams: 16,
      starts_at: future(),
      ...kind.body,
    },
  });
  // The account's teams in a random order, some with an explicit seed.
  const teams = [...account.teams].sort(() => R.rand() - 0.5).slice(0, n);
  const registrations = new Map<string, string>();
  const seeds = [...Array(n).keys()].map((i) => i + 1).sort(() => R.rand() - 0.5);
  for (const [i, team] of teams.entries()) {
    const r = await op(account.id, "registrations.create", { tournament_id: t.id, body: { team_id: team } });
    registrations.set(team, r.id);
    if (R.rand() < 0.3) {
      await op(account.id, "registrations.update", { tournament_id: t.id, registration_id: r.id, body: { seed: seeds[i] } });
    }
  }
  const m: Made = {
    id: t.id,
    account: account.id,
    kind,
    progress,
    teams: n,
    registrations,
    disqualified: 0,
    forfeits: 0,
    games: 0,
    stageTies: 0,
    narrow: R.rand() < 0.5,
  };
  if (progress === "registration") return m;
  await op(account.id, "tournaments.update", { id: t.id, body: { status: "ongoing" } });
  if (progress === "started") return m;
  await play(m, { call: op, rng: R });
  if (progress === "completed") await op(account.id, "tournaments.update", { id: t.id, body: { status: "completed" } });
  return m;
}

/** How an event is played: through which connection (the cluster's, or one transaction's) and with which random numbers. */
interface Play {
  call: Call;
  rng: Rng;
}

const results = (call: Call, t: Made, stage?: number) =>
  call(t.account, "results.get", { tournament_id: t.id, ...(stage ? { query: { stage: String(stage) } } : {}) });

/** A result for a ready match: a forfeit now and then, else a score (one-sided, narrow, or wide), a series sent whole or game by game. */
async function decide(t: Made, m: Json, { call, rng }: Play) {
  const args = { tournament_id: t.id, match_id: m.id };
  if (rng.rand() < 0.08) {
    t.forfeits++;
    return call(t.account, "matches.report", { ...args, body: { forfeit: rng.pick(["team1", "team2"]) } });
  }
  const team1Wins = rng.rand() < 0.5;
  if (m.best_of === 1) {
    const w = t.narrow ? 1 : rng.int(1, 5);
    const l = t.narrow ? 0 : rng.int(0, w - 1);
    return call(t.account, "matches.report", {
      ...args,
      body: team1Wins ? { team1_score: w, team2_score: l } : { team1_score: l, team2_score: w },
    });
  }
  const need = Math.ceil(m.best_of / 2);
  if (rng.rand() < 0.5) {
    const l = rng.int(0, need - 1);
    return call(t.account, "matches.report", {
      ...args,
      body: team1Wins ? { team1_score: need, team2_score: l } : { team1_score: l, team2_score: need },
    });
  }
  let won = [0, 0];
  for (let number = 1; won[0] < need && won[1] < need; number++) {
    const one = rng.rand() < (team1Wins ? 0.65 : 0.35);
    won = one ? [won[0] + 1, won[1]] : [won[0], won[1] + 1];
    const lose = rng.int(0, 11);
    t.games++;
    await call(t.account, "games.put", {
      ...args,
      number,
      body: one ? { team1_score: 13, team2_score: lose } : { team1_score: lose, team2_score: 13 },
    });
  }
}

/** Plays the event as far as `progress` says, in a random order of the ready matches, with a disqualification now and then. */
async function play(t: Made, how: Play, progress: Progress = t.progress) {
  const { call, rng } = how;
  const stages = t.kind.body.stages?.length ?? 1;
  let total = 0;
  // Half-way: fewer results than any format's first stage has matches.
  let budget = progress === "half-way" ? rng.int(1, Math.max(1, t.teams - 2)) : Infinity;
  // (not half-way: a disqualification forfeits a team's matches at once, which could leave none to play)
  const dqAt = progress !== "half-way" && rng.rand() < 0.35 ? rng.int(0, t.teams * 2) : -1;
  for (;;) {
    if (total === dqAt) {
      const team = rng.pick([...t.registrations.keys()]);
      await call(t.account, "registrations.update", {
        tournament_id: t.id,
        registration_id: t.registrations.get(team),
        body: { disqualified: true },
      }).then(() => t.disqualified++, (err) => { // disqualified already: 409
        if (!(err as { hint?: string }).hint) throw err;
      });
    }
    const doc = await results(call, t);
    const ready = doc.matches.filter((m: Json) => m.status === "ready" && m.stage === doc.tournament.stage);
    if (ready.length === 0) {
      const stage = doc.tournament.stage;
      if (stage >= stages || progress === "stage 1 done") return;
      await startStage(t, stage + 1, call);
      if (progress === "stage 2 half-way") budget = total + rng.int(1, Math.max(1, t.kind.advancing!(t.teams) - 2));
      continue;
    }
    if (total >= budget || (progress === "half-way" && ready.length === 1)) return; // half-way: a match left to play
    await decide(t, rng.pick(ready), how);
    total++;
  }
}

/** Starts the next stage with its qualifiers; on a tie at the cut, with the first K of the stage's order, by hand. */
async function startStage(t: Made, number: number, call: Call) {
  try {
    await call(t.account, "stages.update", { tournament_id: t.id, number, body: { status: "ongoing" } });
  } catch (err) {
    if ((err as { hint?: string }).hint !== "stage_tie") throw err;
    t.stageTies++;
    const previous = await call(t.account, "stages.get", { tournament_id: t.id, number: number - 1 });
    const k = t.kind.advancing!(t.teams);
    const order = [...previous.standings].sort((a: Json, b: Json) => (a.group_position ?? a.position) - (b.group_position ?? b.position));
    await call(t.account, "stages.update", {
      tournament_id: t.id,
      number,
      body: { status: "ongoing", advancing: order.slice(0, k).map((s: Json) => s.team_id) },
    });
  }
}

// ============================================================================
// what the API shows of an event
// ============================================================================
interface Snapshot {
  tournament: Json;
  results: Json;
  stages: Json;
  stage: Json[]; // GET stages/{n}
  stageResults: Json[]; // results?stage=n
}

async function snapshot(t: Made, call: Call = op): Promise<Snapshot> {
  const stages = await call(t.account, "stages.list", { tournament_id: t.id });
  const stage: Json[] = [];
  const stageResults: Json[] = [];
  for (let n = 1; n <= stages.length; n++) {
    stage.push(await call(t.account, "stages.get", { tournament_id: t.id, number: n }));
    stageResults.push(await results(call, t, n));
  }
  return {
    tournament: await call(t.account, "tournaments.get", { id: t.id }),
    results: await results(call, t),
    stages,
    stage,
    stageResults,
  };
}

/**
 * Operations in one transaction, rolled back at the end: as api.call runs them (tournament_api_owner,
 * the account bound), each in a savepoint so that an expected error (a stage tie) leaves the
 * transaction usable.
 */
async function rolledBack<T>(account: string, fn: (call: Call) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: cluster!.url });
  await client.connect();
  try {
    await client.query("begin");
    await client.query("set local role tournament_api_owner");
    await client.query("select set_config('app.account_id', $1, true)", [account]);
    const call: Call = async (_account, name, args) => {
      await client.query("savepoint operation");
      try {
        const { rows } = await client.query("select (app.operation($1, $2::jsonb, null, true)).result as result", [
          name,
          JSON.stringify(args),
        ]);
        await client.query("release savepoint operation");
        return rows[0].result;
      } catch (err) {
        await client.query("rollback to savepoint operation");
        throw err;
      }
    };
    return await fn(call);
  } finally {
    await client.query("rollback").catch(() => {});
    await client.end();
  }
}

/** The events that can go on (started, not completed): played out in a transaction rolled back, from a seed of their own; what the API then shows. */
const unfinished = () => made.filter((t) => !["registration", "completed", "played out"].includes(t.progress));
const playedOut = (t: Made) =>
  rolledBack(t.account, async (call) => {
    await play(t, { call, rng: rng(SEED + made.indexOf(t) + 1) }, "played out");
    return snapshot(t, call);
  });

const before = {
  snapshots: new Map<string, Snapshot>(),
  playedOut: new Map<string, Snapshot>(),
  versions: new Map<string, number>(),
  events: 0,
};
const label = (t: Made) => `${t.kind.name} (${t.progress}; ${t.teams} teams)`;
let pushOutput = "";

async function versions(): Promise<Map<string, number>> {
  const rows = await cluster!.sql<{ id: string; version: string }>(
    "select id, app.version_of(id)::text as version from app.tournaments order by id",
  );
  return new Map(rows.map((r) => [r.id, Number(r.version)]));
}

beforeAll(async () => {
  cluster = await startUpgradeCluster("scoring-upgrade");
  await cluster.push(EARLIER);
  for (let a = 0; a < 3; a++) {
    const [{ id }] = await cluster.sql<{ id: string }>("select admin.create_account($1) as id", [`Scoring ${a + 1}`]);
    await cluster.sql("select admin.set_api_access($1, true)", [id]);
    const teams: string[] = [];
    for (let i = 1; i <= 14; i++) {
      teams.push((await op(id, "teams.create", { body: { name: `Team ${String.fromCharCode(65 + a)}${i}`, tag: `${a}${i}` } })).id);
    }
    accounts.push({ id, teams });
  }
  const progresses: Progress[] = ["completed", "half-way", "played out"];
  let i = 0;
  for (const kind of KINDS) {
    for (const progress of progresses) {
      made.push(await makeEvent(kind, progress, accounts[i++ % accounts.length]));
    }
    if (kind.advancing) {
      made.push(await makeEvent(kind, "stage 1 done", accounts[i++ % accounts.length]));
      made.push(await makeEvent(kind, "stage 2 half-way", accounts[i++ % accounts.length]));
    }
  }
  for (const kind of [KINDS[4], KINDS[8], KINDS[14]]) {
    made.push(await makeEvent(kind, "registration", accounts[i++ % accounts.length]));
    made.push(await makeEvent(kind, "started", accounts[i++ % accounts.length]));
  }
  for (const t of made) before.snapshots.set(t.id, await snapshot(t));
  before.versions = await versions();
  for (const t of unfinished()) before.playedOut.set(t.id, await playedOut(t));
  expect(await versions(), "the play-outs are rolled back").toEqual(before.versions);
  [{ n: before.events }] = await cluster.sql<{ n: number }>("select count(*)::int as n from app.webhook_events");
  console.log(
    `scoring upgrade: ${made.length} tournaments in ${accounts.length} accounts ` +
      `(${made.filter((t) => t.progress === "completed").length} completed), ` +
      `${made.reduce((n, t) => n + before.snapshots.get(t.id)!.results.matches.length, 0)} matches, ` +
      `${made.reduce((n, t) => n + t.games, 0)} games, ${made.reduce((n, t) => n + t.forfeits, 0)} forfeits, ` +
      `${made.reduce((n, t) => n + t.disqualified, 0)} disqualifications, ${made.reduce((n, t) => n + t.stageTies, 0)} stage ties`,
  );

  await cluster.reconnect(); // no session of ours open across the migration
  pushOutput = await cluster.push([SCORING]);
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
});

// ============================================================================
// the comparison
// ============================================================================
/** Options as the migration completes them: round robin's and swiss's with section 19's defaults, the others as they were. */
function completedOptions(format: string, options: Json): Json {
  if (format === "round_robin") {
    return {
      ...options,
      draws: false,
      points: { win: options.points?.win ?? 3, draw: 1, loss: options.points?.loss ?? 0 },
      tie_breakers: RR_TIE_BREAKERS,
    };
  }
  if (format === "swiss") return { ...options, draws: false, points: SWISS_POINTS, tie_breakers: SWISS_TIE_BREAKERS };
  return options;
}

/** `options` after the migration, `forfeit_loss` taken out when it is the default (`loss`), which it may show or not. */
function withoutDefaultForfeitLoss(options: Json, label: string): Json {
  if (options?.points?.forfeit_loss === undefined) return options;
  expect(options.points.forfeit_loss, `${label}: forfeit_loss`).toBe(options.points.loss);
  const { forfeit_loss: _, ...points } = options.points;
  return { ...options, points };
}

const optionsAfter = (format: string, was: Json, now: Json, label: string) => {
  expect(withoutDefaultForfeitLoss(now, label), `${label}: format_options`).toEqual(completedOptions(format, was));
};

/** A stage document (list or GET) or a tournament, after: its options checked, then as they were. */
function stageOptions(was: Json, now: Json, label: string): Json {
  optionsAfter(was.format, was.format_options, now.format_options, label);
  return { ...now, format_options: was.format_options };
}

/**
 * Standing entries after: `draws` 0, `separated_by` null for the first of its group (or stage)
 * and one of the criteria after, swiss `points` its wins; then the entries without them.
 */
function standingsAfter(was: Json[], now: Json[], format: string | null, tieBreakers: string[] | null, label: string): Json[] {
  expect(now.length, `${label}: standings`).toBe(was.length);
  const previous = new Map<unknown, Json>();
  const wasOf = new Map(was.map((e) => [e.team_id, e]));
  return now.map((entry, i) => {
    const { draws, separated_by, points, ...rest } = entry;
    const where = `${label}: standings[${i}] (${entry.team_name})`;
    if ("draws" in entry) expect(draws, where).toBe(0);
    if (format === "round_robin" || format === "swiss") {
      expect("draws" in entry, `${where}: draws`).toBe(true);
      expect("separated_by" in entry, `${where}: separated_by`).toBe(true);
    }
    if (tieBreakers && "separated_by" in entry) {
      const above = previous.get(entry.group ?? null);
      if (!above) expect(separated_by, `${where}: separated_by of the first entry`).toBeNull();
      else {
        // The first team disqualified in this stage (placed after every team in good standing,
        // section 17) says `disqualified`: not among section 19's criteria, the implementation's.
        // (`disqualified` on an entry is the registration's: a team disqualified in a later stage
        // keeps its place here.)
        const dq = entry.disqualified && !above.disqualified ? ["disqualified"] : [];
        expect(["points", ...tieBreakers, "seed", ...dq], `${where}: separated_by`).toContain(separated_by);
        const pointsOf = (e: Json) => (format === "swiss" ? e.wins : e.points);
        if (pointsOf(above) !== pointsOf(entry) && !entry.disqualified && !above.disqualified) {
          expect(separated_by, `${where}: separated_by with fewer points than the entry above`).toBe("points");
        }
      }
      previous.set(entry.group ?? null, entry);
    } else if ("separated_by" in entry) {
      expect(
        separated_by === null || ["points", ...CRITERIA, "seed", "disqualified"].includes(separated_by),
        `${where}: separated_by ${separated_by}`,
      )
        .toBe(true);
    }
    const old = wasOf.get(entry.team_id);
    if (format === "swiss") expect("points" in entry, `${where}: swiss points`).toBe(true);
    if (old && !("points" in old) && "points" in entry) {
      expect(points, `${where}: swiss points (the default points: its wins)`).toBe(entry.wins);
      return rest;
    }
    return points === undefined ? rest : { ...rest, points };
  });
}

/** Matches after: `draw` false on every one, then as they were. */
function matchesAfter(now: Json[], label: string): Json[] {
  return now.map(({ draw, ...m }: Json) => {
    expect(draw, `${label}: match ${m.stage}/${m.bracket ?? m.group ?? ""}/${m.round}/${m.position} draw`).toBe(false);
    return m;
  });
}

/** The format and tie-breakers a stage (1-based) standings are made by, or nulls for the event's whole standings. */
function stageRules(snap: Snapshot, n: number | null): [string | null, string[] | null] {
  if (n === null && snap.stages.length > 1) return [null, null];
  const format = snap.stages[(n ?? 1) - 1].format;
  return [format, format === "round_robin" ? RR_TIE_BREAKERS : format === "swiss" ? SWISS_TIE_BREAKERS : null];
}

function resultsAfter(was: Json, now: Json, rules: [string | null, string[] | null], label: string): Json {
  return {
    ...now,
    matches: matchesAfter(now.matches, label),
    standings: standingsAfter(was.standings, now.standings, rules[0], rules[1], label),
  };
}

/** GET tournament after: its options (and its stages') completed, nothing else changed (`version` included). */
function expectTournament(was: Json, now: Json, label: string) {
  expect(now.version, `${label}: version`).toBe(was.version);
  optionsAfter(was.format, was.format_options, now.format_options, label);
  expect(now.stages?.length ?? 0, label).toBe(was.stages?.length ?? 0);
  expect({
    ...now,
    format_options: was.format_options,
    ...(now.stages ? { stages: now.stages.map((s: Json, i: number) => stageOptions(was.stages[i], s, `${label} stages[${i}]`)) } : {}),
  }, label).toEqual(was);
}

/** Results after (the whole event's, and each stage's): `draw` false on every match, standings in the same order. */
function expectResults(was: Snapshot, now: Snapshot, label: string) {
  expect(resultsAfter(was.results, now.results, stageRules(was, null), label), label).toEqual(was.results);
  for (let n = 1; n <= was.stages.length; n++) {
    const where = `${label} results?stage=${n}`;
    expect(resultsAfter(was.stageResults[n - 1], now.stageResults[n - 1], stageRules(was, n), where), where).toEqual(
      was.stageResults[n - 1],
    );
  }
}

/** Stages after (the list, and each GET): options completed, standings and qualifiers the same. */
function expectStages(was: Snapshot, now: Snapshot, label: string) {
  expect(now.stages.map((s: Json, i: number) => stageOptions(was.stages[i], s, `${label} stages.list[${i}]`)), label).toEqual(was.stages);
  for (let n = 1; n <= was.stages.length; n++) {
    const before = was.stage[n - 1];
    const after = now.stage[n - 1];
    const [format, tieBreakers] = stageRules(was, n);
    const where = `${label} stage ${n}`;
    expect({
      ...stageOptions(before, after, where),
      standings: standingsAfter(before.standings, after.standings, format, tieBreakers, where),
    }, where).toEqual(before);
  }
}

/**
 * A snapshot of a play-out with what two play-outs cannot share replaced: the ids of the matches
 * made during it (swiss rounds, later stages) by their place, every time by "set".
 */
function canonical(snap: Snapshot): Snapshot {
  const place = new Map<string, string>();
  for (const m of snap.results.matches) place.set(m.id, `match ${m.stage}/${m.bracket ?? ""}/${m.group ?? ""}/${m.round}/${m.position}`);
  const walk = (x: Json, key = ""): Json => {
    if (Array.isArray(x)) return x.map((y) => walk(y));
    if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, walk(v, k)]));
    if (typeof x === "string" && place.has(x)) return place.get(x);
    if (key.endsWith("_at") && x !== null && key !== "starts_at" && key !== "check_in_opens") return "set";
    return x;
  };
  return walk(snap);
}

describe("the scoring migration on a database that holds tournaments of every format", () => {
  it("is pushed after events of every kind and progress were made", () => {
    expect(pushOutput).toContain(SCORING);
    for (const kind of KINDS) {
      const of = made.filter((t) => t.kind === kind);
      expect(of.some((t) => before.snapshots.get(t.id)!.results.tournament.status === "completed"), kind.name).toBe(true);
      expect(of.some((t) => before.snapshots.get(t.id)!.results.matches.some((m: Json) => m.status === "ready")), kind.name).toBe(true);
    }
    const all = [...before.snapshots.values()];
    expect(all.some((s) => s.results.matches.some((m: Json) => m.forfeit)), "a forfeit").toBe(true);
    expect(all.some((s) => s.results.standings.some((e: Json) => e.disqualified)), "a disqualification").toBe(true);
    expect(all.some((s) => s.results.matches.some((m: Json) => m.status === "bye" && m.round > 1)), "a swiss bye after round 1")
      .toBe(true);
    expect(all.some((s) => s.stage[1]?.qualifiers?.length), "a pending stage's qualifiers").toBe(true);
    expect(before.playedOut.size).toBe(unfinished().length);
  });

  it("leaves no tournament's version moved", async () => {
    expect(await versions()).toEqual(before.versions);
  });

  it("completes round robin's and swiss's format_options (and their stages') with section 19's defaults, changing nothing else of GET tournament", async () => {
    for (const t of made) {
      expectTournament(before.snapshots.get(t.id)!.tournament, await op(t.account, "tournaments.get", { id: t.id }), label(t));
    }
  });

  it("leaves every result as it was: matches (draw false), standings (draws 0, separated_by, swiss points = wins) in the same order", async () => {
    for (const t of made) {
      const was = before.snapshots.get(t.id)!;
      expectResults(was, await snapshot(t), label(t));
    }
  });

  it("leaves every stage as it was: its options completed, its standings and qualifiers the same", async () => {
    for (const t of made) {
      const was = before.snapshots.get(t.id)!;
      expectStages(was, await snapshot(t), label(t));
    }
  });

  it("plays every unfinished event out as before the migration: the same draws, qualifiers, standings (each played out and rolled back, on both sides)", async () => {
    for (const t of unfinished()) {
      const was = canonical(before.playedOut.get(t.id)!);
      const now = canonical(await playedOut(t));
      const where = `${label(t)}, played out`;
      expectTournament(was.tournament, now.tournament, where);
      expectResults(was, now, where);
      expectStages(was, now, where);
    }
  });

  it("records no webhook event", async () => {
    const [{ n }] = await cluster!.sql<{ n: number }>("select count(*)::int as n from app.webhook_events");
    expect(n).toBe(before.events);
  });
});

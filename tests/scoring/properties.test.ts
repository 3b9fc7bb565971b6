// Scoring (contract section 19, with sections 10 and 12) against an independent oracle
// (tests/support/scoring-oracle.ts, written from the contract alone):
// - a property: random round robins (1-3 groups, 3-9 teams) and swiss stages (5-12 teams, random
//   rounds) with random options (points with negatives, draws on or off, a random tie-breaker
//   order of random length, or the defaults) and random results (wins, draws, forfeits, some
//   matches left unplayed), reported through the API; the standings the API gives must be the
//   oracle's (positions, group positions, wins, draws, losses, points, buchholz, separated_by);
// - for each tie-breaker a constructed case where it alone decides between two teams, expected
//   both by hand (in the comments) and by the oracle;
// - advancement: round robin groups → single elimination (per_group, best_next) and swiss → top:
//   the qualifiers of the pending stage 2 follow the same order, while stage 1 is played and
//   after it completes.
// Disagreements are collected (with the seed, the case and both answers) and asserted at the end
// of each test, so that one does not hide the others.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type Call, createTeams, expectStatus, type Match, mulberry32, startedTournament } from "../support/helpers.ts";
import {
  type OracleQualifier,
  type OracleStanding,
  roundRobinQualifiers,
  type ScoringFormat,
  standingsOf,
  swissQualifiers,
  TIE_BREAKERS,
} from "../support/scoring-oracle.ts";
import { separationViolations, standardSlots } from "../support/stages-oracle.ts";

let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(12, `ScO${Date.now().toString(36)}`);
});

// A new fast-check seed every run (printed); SCORING_PROPS_SEED=<n> replays one.
const SEED = process.env.SCORING_PROPS_SEED && process.env.SCORING_PROPS_SEED !== "random"
  ? Number(process.env.SCORING_PROPS_SEED)
  : Math.floor(Math.random() * 2 ** 31);
console.log(`scoring-properties: fast-check seed ${SEED} (SCORING_PROPS_SEED=<n> replays)`);

// ============================================================================
// the API
// ============================================================================
interface ApiStanding {
  position: number;
  group?: number | null;
  group_position?: number | null;
  team_id: string;
  disqualified?: boolean;
  wins: number;
  draws: number;
  losses: number;
  points: number;
  buchholz?: number;
  separated_by: string | null;
}

async function results(call: Call, id: string, stage?: number): Promise<{ matches: Match[]; standings: ApiStanding[] }> {
  const res = await call("GET", `/tournaments/${id}/results${stage ? `?stage=${stage}` : ""}`);
  expectStatus(res, 200);
  return res.body.data;
}

type Body = { team1_score: number; team2_score: number } | { forfeit: "team1" | "team2" };

async function report(call: Call, id: string, m: Match, body: Body): Promise<void> {
  expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body }), 200);
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
const small = fc.oneof({ weight: 5, arbitrary: fc.integer({ min: -3, max: 5 }) }, { weight: 1, arbitrary: fc.constantFrom(-10, 100) });
const pointsArb = fc.oneof(
  fc.constant(undefined),
  fc.record({ win: small, loss: small }),
  fc.record({ win: small, draw: small, loss: small }),
  fc.record({ win: small, draw: small, loss: small, forfeit_loss: small }),
);
const tieBreakersArb = fc.option(fc.shuffledSubarray([...TIE_BREAKERS], { minLength: 1, maxLength: 8 }), { nil: undefined });
const scoringArb = fc.record({ draws: fc.option(fc.boolean(), { nil: undefined }), points: pointsArb, tie_breakers: tieBreakersArb });
type ScoringArb = typeof scoringArb extends fc.Arbitrary<infer T> ? T : never;

/** The scoring options as sent: only the fields drawn (the rest left to their defaults). */
function scoringOptions(s: ScoringArb): Record<string, unknown> {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined));
}

const roundRobinArb = fc.record({
  n: fc.integer({ min: 3, max: 9 }),
  groups: fc.integer({ min: 1, max: 3 }),
  scoring: scoringArb,
  unplayed: fc.constantFrom(0, 0, 0.15),
  seed: fc.integer(),
});
const swissArb = fc.record({
  n: fc.integer({ min: 5, max: 12 }),
  rounds: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  scoring: scoringArb,
  partialLast: fc.boolean(),
  seed: fc.integer(),
});

/** A random result: now and then a forfeit, a draw where draws are on, else a win; small scores so that scores tie often. */
function randomResult(random: () => number, draws: boolean): Body {
  const r = random();
  if (r < 0.12) return { forfeit: random() < 0.5 ? "team1" : "team2" };
  if (draws && r < 0.4) {
    const s = Math.floor(random() * 3);
    return { team1_score: s, team2_score: s };
  }
  const loser = Math.floor(random() * 3);
  const winner = loser + 1 + Math.floor(random() * 2);
  return random() < 0.5 ? { team1_score: winner, team2_score: loser } : { team1_score: loser, team2_score: winner };
}

/** What the checks saw, summed over a test (printed: evidence the cases were reached). */
const seen = {
  tournaments: 0,
  standings: 0,
  entries: 0,
  qualifierLists: 0,
  qualifiers: 0,
  moved: 0,
  draws: 0,
  forfeits: 0,
  byes: 0,
  corrections: 0,
  /** How often each criterion separated an entry from the one above (by the oracle). */
  separatedBy: new Map<string, number>(),
};
const disagreements: string[] = [];

/** A match in a few characters, by seed: "r2 g1 #3 2-1 #5", "#3 ff #5" (the first forfeits), "#7 bye". */
function short(m: Match): string {
  const where = `r${m.round}${m.group ? ` g${m.group}` : ""}`;
  if (m.status === "bye") return `${where} #${m.team1_seed ?? m.team2_seed} bye`;
  const [a, b] = [`#${m.team1_seed}`, `#${m.team2_seed}`];
  if (m.status !== "completed") return `${where} ${a} - ${b}`;
  if (m.forfeit === "team1") return `${where} ${a} ff ${b}`;
  if (m.forfeit === "team2") return `${where} ${b} ff ${a}`;
  return `${where} ${a} ${m.team1_score}-${m.team2_score} ${b}`;
}

const RR_FIELDS = ["position", "group", "group_position", "wins", "draws", "losses", "points", "separated_by"] as const;
const SWISS_FIELDS = ["position", "wins", "draws", "losses", "points", "buchholz", "separated_by"] as const;

/** Compares the API's standings with the oracle's, row by row; records a disagreement (with the case) when they differ. */
function checkStandings(
  label: string,
  format: ScoringFormat,
  options: Record<string, unknown>,
  matches: Match[],
  api: ApiStanding[],
): void {
  const oracle = standingsOf(format, matches, options);
  const seedOf = new Map(oracle.map((s) => [s.team_id, s.seed]));
  const fields = format === "swiss" ? SWISS_FIELDS : RR_FIELDS;
  const row = (s: ApiStanding | OracleStanding) =>
    `#${seedOf.get(s.team_id) ?? s.team_id}: ` +
    fields.map((f) => `${f}=${JSON.stringify((s as unknown as Record<string, unknown>)[f])}`).join(" ");
  const [got, want] = [api.map(row), oracle.map(row)];
  const flagged = api.filter((s) => s.disqualified !== undefined && s.disqualified !== false).map((s) =>
    `#${seedOf.get(s.team_id)} disqualified`
  );
  if (format === "round_robin" && api.some((s) => s.disqualified === undefined)) flagged.push("an entry without `disqualified`");
  seen.standings++;
  seen.entries += api.length;
  for (const s of oracle) if (s.separated_by) seen.separatedBy.set(s.separated_by, (seen.separatedBy.get(s.separated_by) ?? 0) + 1);
  if (JSON.stringify(got) === JSON.stringify(want) && flagged.length === 0) return;
  const lines = want.map((w, i) => (got[i] === w ? `    = ${w}` : `  API ${got[i] ?? "(none)"}\n  ORA ${w}`));
  if (got.length > want.length) lines.push(...got.slice(want.length).map((g) => `  API ${g} (extra)`));
  disagreements.push(
    [
      `${label} (SCORING_PROPS_SEED=${SEED})`,
      `  options ${JSON.stringify(options)}`,
      `  matches ${matches.map(short).join(", ")}`,
      ...flagged.map((f) => `  ${f}`),
      ...lines,
    ].join("\n"),
  );
}

/** Checks a reported match as the API shows it: a draw on equal scores, the winner, the forfeit. */
function checkReported(label: string, m: Match, body: Body): void {
  const want = "forfeit" in body
    ? { status: "completed", forfeit: body.forfeit, draw: false, winner_id: body.forfeit === "team1" ? m.team2_id : m.team1_id }
    : {
      status: "completed",
      forfeit: null,
      draw: body.team1_score === body.team2_score,
      winner_id: body.team1_score > body.team2_score ? m.team1_id : body.team1_score < body.team2_score ? m.team2_id : null,
    };
  const got = { status: m.status, forfeit: m.forfeit, draw: m.draw, winner_id: m.winner_id };
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    disagreements.push(
      `${label}: match ${short(m)} reported ${JSON.stringify(body)}: API ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`,
    );
  }
  if ("forfeit" in body) seen.forfeits++;
  else if (body.team1_score === body.team2_score) seen.draws++;
}

/**
 * Plays a round robin: every match (but a share left unplayed), in parallel, then corrects a few
 * (a round robin match feeds no other, so it may always be corrected); checks the standings.
 */
async function roundRobinEvent(e: typeof roundRobinArb extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
  const groups = Math.min(e.groups, Math.floor(e.n / 2));
  const options = { groups, ...scoringOptions(e.scoring) };
  const label = `round robin n=${e.n} groups=${groups}`;
  const { call, id } = await startedTournament({ format: "round_robin", format_options: options }, pool.slice(0, e.n));
  const random = mulberry32(e.seed);
  const draws = e.scoring.draws === true;
  const { matches, standings } = await results(call, id);
  checkStandings(`${label} before any result`, "round_robin", options, matches, standings);
  const played = matches.map((m) => [m, random() < e.unplayed ? null : randomResult(random, draws)] as const)
    .filter((x): x is readonly [Match, Body] => x[1] !== null);
  await inParallel([...played], 4, ([m, body]) => report(call, id, m, body));
  const corrected = played.filter(() => random() < 0.1).map(([m]) => [m, randomResult(random, draws)] as const);
  await inParallel(corrected, 4, ([m, body]) => report(call, id, m, body));
  seen.corrections += corrected.length;
  const last = new Map([...played, ...corrected].map(([m, body]) => [m.id, body]));
  const after = await results(call, id);
  for (const [mid, body] of last) checkReported(label, after.matches.find((x) => x.id === mid)!, body);
  checkStandings(label, "round_robin", options, after.matches, after.standings);
  seen.tournaments++;
}

/** Plays a swiss stage round by round (the last round's matches in parallel, its last one alone), checking the standings after each round. */
async function swissEvent(e: typeof swissArb extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
  const rounds = e.rounds === undefined ? undefined : Math.min(e.rounds, e.n - 1);
  const options = { ...(rounds === undefined ? {} : { rounds }), ...scoringOptions(e.scoring) };
  const label = `swiss n=${e.n} rounds=${rounds ?? "default"}`;
  const lastRound = rounds ?? Math.ceil(Math.log2(e.n));
  const { call, id } = await startedTournament({ format: "swiss", format_options: options }, pool.slice(0, e.n));
  const random = mulberry32(e.seed);
  for (;;) {
    const { matches } = await results(call, id);
    const ready = matches.filter((m) => m.status === "ready");
    if (ready.length === 0) break;
    const round = ready[0].round;
    const todo = round === lastRound && e.partialLast ? ready.filter(() => random() < 0.5) : ready;
    const bodies = todo.map((m) => [m, randomResult(random, e.scoring.draws === true)] as const);
    // The next round is drawn when the round's last match is reported: that one goes alone.
    const last = todo.length === ready.length ? bodies.pop() : undefined;
    await inParallel(bodies, 4, ([m, body]) => report(call, id, m, body));
    if (last) await report(call, id, last[0], last[1]);
    const after = await results(call, id);
    for (const [m, body] of last ? [...bodies, last] : bodies) checkReported(label, after.matches.find((x) => x.id === m.id)!, body);
    checkStandings(`${label} after round ${round}`, "swiss", options, after.matches, after.standings);
    if (todo.length < ready.length || round >= lastRound) break;
  }
  const { matches } = await results(call, id);
  seen.byes += matches.filter((m) => m.status === "bye").length;
  seen.tournaments++;
}

describe("scoring: standings against the oracle", () => {
  it("property: random round robins and swiss stages with random options and results give the oracle's standings", async () => {
    disagreements.length = 0;
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.tuple(roundRobinArb, roundRobinArb, swissArb, swissArb), async ([r1, r2, s1, s2]) => {
        await Promise.all([roundRobinEvent(r1), roundRobinEvent(r2), swissEvent(s1), swissEvent(s2)]);
      }),
      { numRuns: 24, seed: SEED, endOnFailure: true },
    );
    console.log(
      `scoring property: ${seen.tournaments} tournaments, ${seen.standings} standings (${seen.entries} entries) compared in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s; ${seen.draws} draws, ${seen.forfeits} forfeits, ${seen.byes} byes, ${seen.corrections} corrections; separated_by ${
        JSON.stringify(Object.fromEntries([...seen.separatedBy].sort((a, b) => b[1] - a[1])))
      }; ${disagreements.length} disagreements`,
    );
    if (disagreements.length) console.log(disagreements.join("\n\n"));
    expect(disagreements, "disagreements with the oracle").toEqual([]);
  }, 120_000);
});

// ============================================================================
// one criterion decides
// ============================================================================
/**
 * Reports results given as "X 2-1 Y" (X scored 2), "X 1-1 Y" or "X ff Y" (X forfeits to Y), in
 * parallel, on the matches of a round robin whose teams are `letters` (teams[i] is letters[i]).
 */
async function playByHand(call: Call, id: string, teams: string[], letters: string, matches: Match[], played: string[]) {
  const team = (l: string) => teams[letters.indexOf(l)];
  await Promise.all(played.map(async (p) => {
    const [a, score, b] = p.split(" ");
    const m = matches.find((x) => [x.team1_id, x.team2_id].sort().join() === [team(a), team(b)].sort().join());
    if (!m) throw new Error(`no match ${a}-${b}`);
    const aFirst = m.team1_id === team(a);
    let body: Body;
    if (score === "ff") body = { forfeit: aFirst ? "team1" : "team2" };
    else {
      const [sa, sb] = score.split("-").map(Number);
      body = aFirst ? { team1_score: sa, team2_score: sb } : { team1_score: sb, team2_score: sa };
    }
    await report(call, id, m, body);
  }));
}

/**
 * A round robin of `letters` (seeds in that order) with the results `played` (playByHand);
 * matches not named stay unplayed. Returns the standings as [letter, points, separated_by] rows,
 * by the API and by the oracle.
 */
async function decided(letters: string, options: Record<string, unknown>, played: string[]) {
  const teams = pool.slice(0, letters.length);
  const { call, id } = await startedTournament({ format: "round_robin", format_options: options }, teams);
  await playByHand(call, id, teams, letters, (await results(call, id)).matches, played);
  const after = await results(call, id);
  const letter = (t: string) => letters[teams.indexOf(t)];
  return {
    api: after.standings.map((s) => [letter(s.team_id), s.points, s.separated_by]),
    oracle: standingsOf("round_robin", after.matches, options).map((s) => [letter(s.team_id), s.points, s.separated_by]),
  };
}

describe("scoring: each tie-breaker alone decides between two teams", () => {
  const cases: [string, string, Record<string, unknown>, string[], (string | number | null)[][]][] = [
    [
      // A4 B3 C3 D2 (win 2, draw 1) in the matches among A-D, all on 4 points; E 6, F 0. Among
      // {A, B, C, D}: A 4, B 3, C 3, D 2. B beat C, but head-to-head is taken once for the set
      // of four, so B and C stay level on it and the seed puts C (seed 2) above B (seed 3).
      "head_to_head (taken once for the tied set, not again for the two left level)",
      "ACBDEF",
      { draws: true, points: { win: 2, draw: 1, loss: 0 }, tie_breakers: ["head_to_head"] },
      ["A 1-0 B", "C 1-0 A", "A 1-0 D", "B 1-0 C", "B 0-0 D", "C 0-0 D", "E 1-0 A", "B 0-0 E", "C 0-0 E", "D 1-0 E", "E 1-0 F"],
      [["E", 6, null], ["A", 4, "points"], ["C", 4, "head_to_head"], ["B", 4, "seed"], ["D", 4, "head_to_head"], ["F", 0, "points"]],
    ],
    [
      // win 1, draw 1: X draws Y and Z (2 points, no win); Y draws X and beats Z (2 points, 1 win);
      // Z 1. Y (seed 2) above X (seed 1) on wins.
      "wins",
      "XYZ",
      { draws: true, points: { win: 1, draw: 1, loss: 0 }, tie_breakers: ["wins"] },
      ["X 1-1 Y", "X 0-0 Z", "Y 2-1 Z"],
      [["Y", 2, null], ["X", 2, "wins"], ["Z", 1, "points"]],
    ],
    [
      // A cycle, 3 points each: X beats Y 1-0, Y beats Z 5-0, Z beats X 3-0. Differences: X -2,
      // Y +4, Z -2. Y first; X and Z level on it, so the seed (X 1, Z 3).
      "score_difference",
      "XYZ",
      { tie_breakers: ["score_difference"] },
      ["X 1-0 Y", "Y 5-0 Z", "Z 3-0 X"],
      [["Y", 3, null], ["X", 3, "score_difference"], ["Z", 3, "seed"]],
    ],
    [
      // A cycle with every difference 0: X beats Y 1-0, Y beats Z 3-2, Z beats X 2-1. Scores for:
      // X 2, Y 3, Z 4. score_difference is level, so score_for separates.
      "score_for",
      "XYZ",
      { tie_breakers: ["score_difference", "score_for"] },
      ["X 1-0 Y", "Y 3-2 Z", "Z 2-1 X"],
      [["Z", 3, null], ["Y", 3, "score_for"], ["X", 3, "score_for"]],
    ],
    [
      // Three played (3/1/0): X beats A, Y beats B, B beats A. X, Y, B on 3, A 0. Buchholz: X = A's
      // 0; Y = B's 3; B = A's 0 + Y's 3 = 3. Y (seed 2) above X (seed 1); B level with Y, seed.
      "buchholz",
      "XYAB",
      { tie_breakers: ["buchholz"] },
      ["X 1-0 A", "Y 1-0 B", "B 1-0 A"],
      [["Y", 3, null], ["B", 3, "seed"], ["X", 3, "buchholz"], ["A", 0, "points"]],
    ],
    [
      // X and Y lose all three (0 points). P 3, Q 3 (each beat X, lost to R); R 3 + 9 + 1 = 13
      // (beat X, P, Q, S; drew U); S 4 (beat Y, lost to R, drew T), T 4 (beat Y, drew S),
      // U 4 (beat Y, drew R). Buchholz X = 3 + 3 + 13 = 19 > Y = 12, but the median (without
      // one highest and one lowest) X = 3 < Y = 4: Y above X.
      // The rest, by median (plain buchholz under three opponents): R met X 0, P 3, Q 3, S 4, U 4
      // → 3 + 3 + 4 = 10; S met Y 0, R 13, T 4 → 4; T met Y 0, S 4 (two) → 4; U met Y 0, R 13
      // (two) → 13; P met X 0, R 13 → 13; Q the same. So R 13; S, T, U 4 (U 13, then S and T 4
      // by seed); P, Q 3 (13 each, seed); Y 0 (4), X 0 (3).
      "median_buchholz",
      "XYPQRSTU",
      { draws: true, tie_breakers: ["median_buchholz"] },
      ["P 1-0 X", "Q 1-0 X", "R 1-0 X", "S 1-0 Y", "T 1-0 Y", "U 1-0 Y", "R 1-0 P", "R 1-0 Q", "R 1-0 S", "S 0-0 T", "U 0-0 R"],
      [
        ["R", 13, null],
        ["U", 4, "points"],
        ["S", 4, "median_buchholz"],
        ["T", 4, "seed"],
        ["P", 3, "points"],
        ["Q", 3, "seed"],
        ["Y", 0, "points"],
        ["X", 0, "median_buchholz"],
      ],
    ],
    [
      // win 2, draw 1: Y beats A (2); X draws B and E (2). A 4 (lost to Y, beat F and G), B 3 (drew X,
      // beat F), E 3 (drew X, beat G), F 0, G 0. Sonneborn-Berger: Y = A's 4 = 4; X = half of B's 3
      // + half of E's 3 = 3 (drawn opponents counted in full would give X 6, above Y). So Y (seed 2)
      // above X (seed 1). B and E: 1 each (half of X's 2), seed; F and G 0, seed.
      "sonneborn_berger (a drawn opponent counts half)",
      "XYABEFG",
      { draws: true, points: { win: 2, draw: 1, loss: 0 }, tie_breakers: ["sonneborn_berger"] },
      ["Y 1-0 A", "X 0-0 B", "X 1-1 E", "A 1-0 F", "A 2-0 G", "B 1-0 F", "E 1-0 G"],
      [
        ["A", 4, null],
        ["B", 3, "points"],
        ["E", 3, "seed"],
        ["Y", 2, "points"],
        ["X", 2, "sonneborn_berger"],
        ["F", 0, "points"],
        ["G", 0, "seed"],
      ],
    ],
    [
      // forfeit_loss = loss = 0: X forfeits to A and beats B; Y loses to B and beats A: all four on
      // 3. X has one forfeit loss: last of the four; the others by seed.
      "forfeits",
      "XYAB",
      { tie_breakers: ["forfeits"] },
      ["X ff A", "X 1-0 B", "B 1-0 Y", "Y 1-0 A"],
      [["Y", 3, null], ["A", 3, "seed"], ["B", 3, "seed"], ["X", 3, "forfeits"]],
    ],
  ];
  for (const [name, letters, options, played, byHand] of cases) {
    it(`${name}: the API, the oracle and the hand agree`, async () => {
      const { api, oracle } = await decided(letters, options, played);
      expect(oracle, "the oracle against the hand").toEqual(byHand);
      expect(api, `the API (oracle: ${JSON.stringify(oracle)})`).toEqual(byHand);
    });
  }
});

// ============================================================================
// advancement
// ============================================================================
const groupsAdvanceArb = fc.record({
  groups: fc.integer({ min: 2, max: 3 }),
  size: fc.integer({ min: 3, max: 4 }),
  extra: fc.nat({ max: 2 }),
  perGroup: fc.integer({ min: 1, max: 3 }),
  bestNext: fc.nat({ max: 3 }),
  scoring: scoringArb,
  seed: fc.integer(),
});
const swissAdvanceArb = fc.record({
  n: fc.integer({ min: 5, max: 10 }),
  rounds: fc.integer({ min: 1, max: 3 }),
  top: fc.integer({ min: 2, max: 8 }),
  scoring: scoringArb,
  seed: fc.integer(),
});

interface ApiQualifier {
  team_id: string;
  seed: number;
  from_group: number | null;
  from_position: number;
  tied: boolean;
}

/**
 * Compares stage 2's qualifiers with the oracle's: the same teams with the same from_group and
 * from_position, seeds 1..K, and the same order, unless the elimination stage must move teams of
 * one group apart (section 12's separation: then the order is not the tier order, and only the
 * teams are compared).
 */
async function checkQualifiers(label: string, call: Call, id: string, want: OracleQualifier[], grouped: boolean, done: boolean) {
  const res = await call("GET", `/tournaments/${id}/stages/2`);
  expectStatus(res, 200);
  const got = (res.body.data.qualifiers ?? []) as ApiQualifier[];
  seen.qualifierLists++;
  seen.qualifiers += got.length;
  const groupOf = new Map(want.map((q) => [q.team_id, q.from_group ?? 0]));
  const moved = grouped && separationViolations(standardSlots(want.map((q) => q.team_id)), groupOf).length > 0;
  if (moved) seen.moved++;
  const show = (q: OracleQualifier | ApiQualifier) => `${q.team_id.slice(0, 8)} g${q.from_group} p${q.from_position}`;
  const order = (qs: (OracleQualifier | ApiQualifier)[]) => (moved ? qs.map(show).sort() : qs.map(show));
  const problems: string[] = [];
  if (JSON.stringify(order(got)) !== JSON.stringify(order(want))) {
    problems.push(
      `qualifiers${moved ? " (as a set: the separation moves seeds)" : ""}:\n  API ${order(got).join(", ")}\n  ORA ${
        order(want).join(", ")
      }`,
    );
  }
  if (got.some((q, i) => q.seed !== i + 1)) problems.push(`seeds ${got.map((q) => q.seed).join(",")}`);
  if (done && got.some((q) => q.tied)) problems.push(`tied after stage 1 completed: ${got.filter((q) => q.tied).map(show).join(", ")}`);
  if (problems.length) disagreements.push(`${label} (SCORING_PROPS_SEED=${SEED}):\n${problems.join("\n")}`);
}

/** Stage 1's own standings, as GET /stages/1 shows them. */
async function stageStandings(call: Call, id: string): Promise<ApiStanding[]> {
  const res = await call("GET", `/tournaments/${id}/stages/1`);
  expectStatus(res, 200);
  return res.body.data.standings;
}

/** A round robin in groups into a single elimination: qualifiers halfway through stage 1 and at its end. */
async function groupsAdvanceEvent(e: typeof groupsAdvanceArb extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
  const n = e.groups * e.size + (e.extra % e.groups);
  const advance = { per_group: Math.min(e.perGroup, e.size - 1), best_next: e.bestNext % (e.groups + 1) };
  const options = { groups: e.groups, ...scoringOptions(e.scoring) };
  const label = `groups → single elimination n=${n} groups=${e.groups} advance=${JSON.stringify(advance)}`;
  const { call, id } = await startedTournament(
    { stages: [{ format: "round_robin", format_options: options, advance }, { format: "single_elimination" }] },
    pool.slice(0, n),
  );
  const random = mulberry32(e.seed);
  const { matches } = await results(call, id, 1);
  const bodies = matches.map((m) => [m, randomResult(random, e.scoring.draws === true)] as const);
  const half = Math.ceil(bodies.length / 2);
  for (const [part, done] of [[bodies.slice(0, half), false], [bodies.slice(half), true]] as const) {
    await inParallel([...part], 4, ([m, body]) => report(call, id, m, body));
    const now = await results(call, id, 1);
    checkStandings(`${label} stage 1${done ? "" : " halfway"}`, "round_robin", options, now.matches, now.standings);
    checkStandings(`${label} GET /stages/1${done ? "" : " halfway"}`, "round_robin", options, now.matches, await stageStandings(call, id));
    await checkQualifiers(label + (done ? "" : " halfway"), call, id, roundRobinQualifiers(now.matches, options, advance), true, done);
  }
  seen.tournaments++;
}

/** A swiss stage into a single elimination with top n: qualifiers after each round. */
async function swissAdvanceEvent(e: typeof swissAdvanceArb extends fc.Arbitrary<infer T> ? T : never): Promise<void> {
  const rounds = Math.min(e.rounds, e.n - 1);
  const top = Math.min(e.top, e.n);
  const options = { rounds, ...scoringOptions(e.scoring) };
  const label = `swiss → single elimination n=${e.n} rounds=${rounds} top=${top}`;
  const { call, id } = await startedTournament(
    { stages: [{ format: "swiss", format_options: options, advance: { top } }, { format: "single_elimination" }] },
    pool.slice(0, e.n),
  );
  const random = mulberry32(e.seed);
  for (let round = 1; round <= rounds; round++) {
    const ready = (await results(call, id, 1)).matches.filter((m) => m.status === "ready");
    const bodies = ready.map((m) => [m, randomResult(random, e.scoring.draws === true)] as const);
    const last = bodies.pop()!;
    await inParallel(bodies, 4, ([m, body]) => report(call, id, m, body));
    await report(call, id, last[0], last[1]);
    const now = await results(call, id, 1);
    checkStandings(`${label} stage 1 round ${round}`, "swiss", options, now.matches, now.standings);
    checkStandings(`${label} GET /stages/1 round ${round}`, "swiss", options, now.matches, await stageStandings(call, id));
    await checkQualifiers(`${label} round ${round}`, call, id, swissQualifiers(now.matches, options, top), false, round === rounds);
  }
  seen.tournaments++;
}

/**
 * Two groups of `letters` (seeds in that order: snake, so seeds 1, 4, 5 in group 1 and 2, 3, 6, 7
 * in group 2) into a round robin stage 2 (no separation rule, so its seeds are exactly the
 * qualifiers' order); returns stage 2's qualifiers as [letter, from_group, from_position], by the
 * API and by the oracle.
 */
async function advancedByHand(
  letters: string,
  options: Record<string, unknown>,
  advance: { per_group: number; best_next: number },
  played: string[],
) {
  const teams = pool.slice(0, letters.length);
  const stage1 = { groups: 2, ...options };
  const { call, id } = await startedTournament(
    { stages: [{ format: "round_robin", format_options: stage1, advance }, { format: "round_robin" }] },
    teams,
  );
  await playByHand(call, id, teams, letters, (await results(call, id, 1)).matches, played);
  const { matches } = await results(call, id, 1);
  const res = await call("GET", `/tournaments/${id}/stages/2`);
  expectStatus(res, 200);
  const letter = (t: string) => letters[teams.indexOf(t)];
  const row = (q: OracleQualifier | ApiQualifier) => [letter(q.team_id), q.from_group, q.from_position];
  return { api: (res.body.data.qualifiers as ApiQualifier[]).map(row), oracle: roundRobinQualifiers(matches, stage1, advance).map(row) };
}

describe("scoring: best_next ranks per match", () => {
  it("by points per match, not total points", async () => {
    // Group 2 (B, C, F, G), 3/1/0 with draws: B beats C, F, G (9); C draws F, beats G (4); G beats
    // F (3); F 1. Group 1 (A, D, E): A beats D and E (6); D beats E (3); E 0. Next after the
    // winners: C 4 points in 3 matches (1.33 a match), D 3 in 2 (1.5): D goes, though C has more.
    // Tier 1 by the stage's order: B (9), A (6); then D.
    const { api, oracle } = await advancedByHand("ABCDEFG", { draws: true }, { per_group: 1, best_next: 1 }, [
      "B 1-0 C",
      "B 1-0 F",
      "B 1-0 G",
      "C 1-1 F",
      "C 1-0 G",
      "G 1-0 F",
      "A 1-0 D",
      "A 1-0 E",
      "D 1-0 E",
    ]);
    const byHand = [["B", 2, 1], ["A", 1, 1], ["D", 1, 2]];
    expect(oracle, "the oracle against the hand").toEqual(byHand);
    expect(api, `the API (oracle: ${JSON.stringify(oracle)})`).toEqual(byHand);
  });

  it("then by each tie-breaker per match (score_difference here; head_to_head skipped), then seed", async () => {
    // Group 2 (B, C, F, G): B beats C 3-0, F and G (9); C beats F 1-0 and G 3-0 (6, difference +1
    // in 3 matches); F beats G (3); G 0. Group 1 (A, D, E): A draws E 0-0 and beats D 2-0 (4, +2);
    // E beats D 1-0 (4, +1 in 2 matches); D 0. A above E on score_difference (head-to-head is
    // level: a draw). Next: C 6 in 3 and E 4 in 2, both 2 a match; differences +1 each in total
    // (the seed would take C, seed 3), but per match E's +0.5 beats C's +0.33: E goes.
    const { api, oracle } = await advancedByHand(
      "ABCDEFG",
      { draws: true, tie_breakers: ["head_to_head", "score_difference"] },
      { per_group: 1, best_next: 1 },
      ["B 3-0 C", "B 1-0 F", "B 1-0 G", "C 1-0 F", "C 3-0 G", "F 1-0 G", "A 0-0 E", "A 2-0 D", "E 1-0 D"],
    );
    const byHand = [["B", 2, 1], ["A", 1, 1], ["E", 1, 2]];
    expect(oracle, "the oracle against the hand").toEqual(byHand);
    expect(api, `the API (oracle: ${JSON.stringify(oracle)})`).toEqual(byHand);
  });
});

describe("scoring: advancement follows the same order", () => {
  it("property: groups → single elimination (per_group, best_next) and swiss → top: stage 2's qualifiers are the oracle's", async () => {
    disagreements.length = 0;
    const before = { ...seen };
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.tuple(groupsAdvanceArb, groupsAdvanceArb, swissAdvanceArb), async ([g1, g2, s]) => {
        await Promise.all([groupsAdvanceEvent(g1), groupsAdvanceEvent(g2), swissAdvanceEvent(s)]);
      }),
      { numRuns: 15, seed: SEED, endOnFailure: true },
    );
    console.log(
      `advancement property: ${seen.tournaments - before.tournaments} tournaments, ${
        seen.qualifierLists - before.qualifierLists
      } qualifier lists (${seen.qualifiers - before.qualifiers} qualifiers; ${
        seen.moved - before.moved
      } moved by the separation rule) and ${seen.standings - before.standings} standings compared in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s; ${disagreements.length} disagreements`,
    );
    if (disagreements.length) console.log(disagreements.join("\n\n"));
    expect(disagreements, "disagreements with the oracle").toEqual([]);
  }, 120_000);
});

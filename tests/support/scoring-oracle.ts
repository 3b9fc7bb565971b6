// An oracle for scoring (contract section 19, with sections 10 and 12), written from the contract
// alone: the standings of a round robin or swiss stage recomputed from its matches and its
// `format_options` (points per result, draws, forfeits, the tie-breakers in order, then seed),
// what separated each entry from the one above, and the qualifiers such a stage sends on
// (per_group tiers, best_next per match, top). Pure functions: no API calls; the tests feed it
// the matches the API returned and compare its answers with the API's.
import type { Match } from "./helpers.ts";
import { TIE_BREAKERS } from "../../functions/api/contract.ts"; // (the contract's list of names: its rules are this file's own)

export { TIE_BREAKERS };
export type TieBreaker = (typeof TIE_BREAKERS)[number];
/** What separated_by may name: points, a tie-breaker, or the seed that always ends the order. */
export type Criterion = "points" | TieBreaker | "seed";
export type ScoringFormat = "round_robin" | "swiss";

export interface Points {
  win: number;
  draw: number;
  loss: number;
  forfeit_loss: number;
}

/** A stage's scoring with every default filled in. */
export interface Scoring {
  draws: boolean;
  points: Points;
  tie_breakers: TieBreaker[];
}

/** The fields of a match (as GET /results returns it) the oracle reads. */
export type ScoredMatch = Pick<
  Match,
  "group" | "status" | "team1_id" | "team2_id" | "team1_seed" | "team2_seed" | "team1_score" | "team2_score" | "forfeit"
>;

/**
 * Section 19's defaults: draws off; points {3, 1, 0} for round robin, and for swiss {1, 0, 0}
 * without draws or {3, 1, 0} with them; a points object given without `draw` (section 10's
 * {win, loss}) takes draw 1, and `forfeit_loss` defaults to `loss`; tie-breakers
 * [head_to_head, score_difference, score_for] (round robin) or [buchholz] (swiss).
 */
export function scoringOf(format: ScoringFormat, options: Record<string, unknown> = {}): Scoring {
  const draws = options.draws === true;
  const base = format === "swiss" && !draws ? { win: 1, draw: 0, loss: 0 } : { win: 3, draw: 1, loss: 0 };
  const given = options.points as Partial<Points> | undefined;
  const win = given?.win ?? base.win;
  const draw = given ? given.draw ?? 1 : base.draw;
  const loss = given?.loss ?? base.loss;
  const defaults: TieBreaker[] = format === "swiss" ? ["buchholz"] : ["head_to_head", "score_difference", "score_for"];
  return {
    draws,
    points: { win, draw, loss, forfeit_loss: given?.forfeit_loss ?? loss },
    tie_breakers: (options.tie_breakers as TieBreaker[] | undefined) ?? defaults,
  };
}

type Outcome = "win" | "draw" | "loss" | "forfeit_loss";

/** One team's record in a stage: everything the criteria read. */
export interface Tally {
  team: string;
  seed: number;
  group: number | null;
  /** Completed matches (a bye is none). */
  played: number;
  wins: number;
  draws: number;
  losses: number;
  forfeitLosses: number;
  points: number;
  scoreFor: number;
  scoreAgainst: number;
  /** One row per completed match: the opponent, what this team earned and how. */
  met: { opponent: string; earned: number; outcome: Outcome }[];
}

/**
 * Each team's record from the completed matches: a result decided by the scores (equal scores
 * are a draw, section 19), a forfeit a forfeit loss for the side that forfeits (forfeit_loss
 * points, no score) and a win for the other; a swiss bye a win with no opponent and no score.
 */
export function tallies(matches: ScoredMatch[], points: Points): Map<string, Tally> {
  const rows = new Map<string, Tally>();
  const row = (team: string, seed: number | null, group: number | null) => {
    if (!rows.has(team)) {
      rows.set(team, {
        team,
        seed: seed!,
        group,
        played: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        forfeitLosses: 0,
        points: 0,
        scoreFor: 0,
        scoreAgainst: 0,
        met: [],
      });
    }
    return rows.get(team)!;
  };
  for (const m of matches) {
    if (m.team1_id) row(m.team1_id, m.team1_seed, m.group);
    if (m.team2_id) row(m.team2_id, m.team2_seed, m.group);
  }
  for (const m of matches) {
    if (m.status === "bye") {
      const t = rows.get((m.team1_id ?? m.team2_id)!)!;
      t.wins++;
      t.points += points.win;
      continue;
    }
    if (m.status !== "completed") continue;
    const [a, b] = [rows.get(m.team1_id!)!, rows.get(m.team2_id!)!];
    let outcomes: [Outcome, Outcome];
    if (m.forfeit === "team1") outcomes = ["forfeit_loss", "win"];
    else if (m.forfeit === "team2") outcomes = ["win", "forfeit_loss"];
    else if (m.team1_score! > m.team2_score!) outcomes = ["win", "loss"];
    else if (m.team1_score! < m.team2_score!) outcomes = ["loss", "win"];
    else outcomes = ["draw", "draw"];
    const sides: [Tally, Tally, Outcome, number, number][] = [
      [a, b, outcomes[0], m.team1_score ?? 0, m.team2_score ?? 0],
      [b, a, outcomes[1], m.team2_score ?? 0, m.team1_score ?? 0],
    ];
    for (const [t, o, outcome, own, their] of sides) {
      t.played++;
      if (outcome === "win") t.wins++;
      else if (outcome === "draw") t.draws++;
      else t.losses++;
      if (outcome === "forfeit_loss") t.forfeitLosses++;
      t.points += points[outcome];
      t.scoreFor += own;
      t.scoreAgainst += their;
      t.met.push({ opponent: o.team, earned: points[outcome], outcome });
    }
  }
  return rows;
}

/**
 * A criterion's value for a team, larger ranks higher (head_to_head is computed per tied set by
 * rank()). buchholz: the opponents' points, once per match met; median_buchholz: the same
 * without one highest and one lowest, plain buchholz under three opponents; sonneborn_berger:
 * the points of the opponents beaten plus half those drawn; forfeits: fewer ranks higher.
 */
export function valueOf(c: Exclude<Criterion, "head_to_head" | "seed">, t: Tally, all: Map<string, Tally>): number {
  const their = t.met.map((x) => all.get(x.opponent)!.points);
  const sum = their.reduce((s, p) => s + p, 0);
  switch (c) {
    case "points":
      return t.points;
    case "wins":
      return t.wins;
    case "score_difference":
      return t.scoreFor - t.scoreAgainst;
    case "score_for":
      return t.scoreFor;
    case "buchholz":
      return sum;
    case "median_buchholz":
      return their.length < 3 ? sum : sum - Math.max(...their) - Math.min(...their);
    case "sonneborn_berger":
      return t.met.reduce((s, x) => s + (x.outcome === "win" ? 1 : x.outcome === "draw" ? 0.5 : 0) * all.get(x.opponent)!.points, 0);
    case "forfeits":
      return -t.forfeitLosses;
  }
}

/** A team in a ranking: its values in criterion order (seed aside) and what separated it from the one above. */
export interface Ranked {
  tally: Tally;
  values: number[];
  position: number;
  separated_by: Criterion | null;
}

/**
 * Ranks `teams` together: points, then the tie-breakers in order, then seed. head_to_head is
 * the points a team earned in the completed matches among the teams level with it on every
 * criterion before it (that set taken once, not narrowed again), counting only matches played,
 * so teams of different groups ranked together add nothing for each other.
 * separated_by: the first criterion on which an entry differs from the one above ("seed" when
 * none does), null for the first.
 */
export function rank(teams: Tally[], all: Map<string, Tally>, tieBreakers: TieBreaker[]): Ranked[] {
  const criteria: Criterion[] = ["points", ...tieBreakers];
  const values = new Map<string, number[]>(teams.map((t) => [t.team, []]));
  for (const [i, c] of criteria.entries()) {
    for (const t of teams) {
      if (c !== "head_to_head") {
        values.get(t.team)!.push(valueOf(c as Exclude<Criterion, "head_to_head" | "seed">, t, all));
        continue;
      }
      const key = JSON.stringify(values.get(t.team)!.slice(0, i));
      const tied = new Set(teams.filter((o) => JSON.stringify(values.get(o.team)!.slice(0, i)) === key).map((o) => o.team));
      values.get(t.team)!.push(t.met.filter((x) => tied.has(x.opponent)).reduce((s, x) => s + x.earned, 0));
    }
  }
  const cmp = (a: Tally, b: Tally) => {
    const [va, vb] = [values.get(a.team)!, values.get(b.team)!];
    for (let i = 0; i < va.length; i++) if (va[i] !== vb[i]) return vb[i] - va[i];
    return a.seed - b.seed;
  };
  const sorted = [...teams].sort(cmp);
  return sorted.map((tally, i) => {
    const v = values.get(tally.team)!;
    let separated_by: Criterion | null = null;
    if (i > 0) {
      const above = values.get(sorted[i - 1].team)!;
      const at = v.findIndex((x, j) => x !== above[j]);
      separated_by = at < 0 ? "seed" : criteria[at];
    }
    return { tally, values: v, position: i + 1, separated_by };
  });
}

/** A standing entry as the oracle computes it (the fields section 19's entries carry). */
export interface OracleStanding {
  team_id: string;
  seed: number;
  position: number;
  /** Round robin: the team's group and its place in it. */
  group: number | null;
  group_position: number | null;
  wins: number;
  draws: number;
  losses: number;
  points: number;
  buchholz: number;
  separated_by: Criterion | null;
  /** For advancement (best_next): the record and the values the criteria compare. */
  tally: Tally;
}

/**
 * A round robin stage's standings, in position order: `position` ranks every team together by
 * the stage's order (section 19 through section 10's "per group and overall"), `group_position`
 * ranks a group's teams among themselves, and separated_by compares an entry with the one above
 * it in its group (the whole stage when there is one group).
 */
export function roundRobinStandings(matches: ScoredMatch[], scoring: Scoring): OracleStanding[] {
  const all = tallies(matches, scoring.points);
  const overall = rank([...all.values()], all, scoring.tie_breakers);
  const inGroup = new Map<string, Ranked>();
  for (const g of new Set([...all.values()].map((t) => t.group))) {
    for (const r of rank([...all.values()].filter((t) => t.group === g), all, scoring.tie_breakers)) inGroup.set(r.tally.team, r);
  }
  return overall.map((r) => ({
    ...entry(r, all),
    group: r.tally.group,
    group_position: inGroup.get(r.tally.team)!.position,
    separated_by: inGroup.get(r.tally.team)!.separated_by,
  }));
}

/** A swiss stage's standings, in position order. */
export function swissStandings(matches: ScoredMatch[], scoring: Scoring): OracleStanding[] {
  const all = tallies(matches, scoring.points);
  return rank([...all.values()], all, scoring.tie_breakers).map((r) => entry(r, all));
}

function entry(r: Ranked, all: Map<string, Tally>): OracleStanding {
  const t = r.tally;
  return {
    team_id: t.team,
    seed: t.seed,
    position: r.position,
    group: null,
    group_position: null,
    wins: t.wins,
    draws: t.draws,
    losses: t.losses,
    points: t.points,
    buchholz: valueOf("buchholz", t, all),
    separated_by: r.separated_by,
    tally: t,
  };
}

/** A stage's standings by its format. */
export function standingsOf(format: ScoringFormat, matches: ScoredMatch[], options: Record<string, unknown> = {}): OracleStanding[] {
  const scoring = scoringOf(format, options);
  return format === "swiss" ? swissStandings(matches, scoring) : roundRobinStandings(matches, scoring);
}

/** A qualifier as GET /stages/{n} shows it (its seed is its index + 1). */
export interface OracleQualifier {
  team_id: string;
  from_group: number | null;
  from_position: number;
}

/**
 * The teams placed next after the per_group cut, best first (section 12's best_next by section
 * 19's order, per match): points per match, then each tie-breaker but head_to_head per match
 * (forfeits: fewer per match ranks higher), then seed. A team with no completed match counts as
 * one match played (its values are all 0). Per-match values are compared as fractions
 * (cross-multiplied), not as floats.
 */
export function bestNextOrder(next: Tally[], all: Map<string, Tally>, scoring: Scoring): Tally[] {
  const criteria = ["points", ...scoring.tie_breakers.filter((c) => c !== "head_to_head")] as Exclude<Criterion, "head_to_head" | "seed">[];
  const values = new Map(next.map((t) => [t.team, criteria.map((c) => valueOf(c, t, all))]));
  const played = (t: Tally) => Math.max(t.played, 1);
  return [...next].sort((a, b) => {
    const [va, vb] = [values.get(a.team)!, values.get(b.team)!];
    for (let i = 0; i < va.length; i++) {
      const d = vb[i] * played(a) - va[i] * played(b);
      if (d !== 0) return d;
    }
    return a.seed - b.seed;
  });
}

/**
 * What a round robin stage sends on with `{per_group: n, best_next?: m}` (section 12 by section
 * 19's order), in seed order: tier t (t = 1..n) is every group's t-th, ordered within the tier by
 * the stage's own order (the overall position), then the m best of the teams placed n + 1
 * (bestNextOrder). Seed ends the order, so there is never a tie at the cut.
 */
export function roundRobinQualifiers(
  matches: ScoredMatch[],
  options: Record<string, unknown>,
  advance: { per_group: number; best_next?: number },
): OracleQualifier[] {
  const scoring = scoringOf("round_robin", options);
  const all = tallies(matches, scoring.points);
  const standings = roundRobinStandings(matches, scoring);
  const q = (s: OracleStanding): OracleQualifier => ({ team_id: s.team_id, from_group: s.group, from_position: s.group_position! });
  const out: OracleQualifier[] = [];
  for (let tier = 1; tier <= advance.per_group; tier++) out.push(...standings.filter((s) => s.group_position === tier).map(q));
  const next = standings.filter((s) => s.group_position === advance.per_group + 1);
  const best = bestNextOrder(next.map((s) => s.tally), all, scoring).slice(0, advance.best_next ?? 0);
  out.push(...best.map((t) => q(next.find((s) => s.team_id === t.team)!)));
  return out;
}

/** What a swiss stage sends on with `{top: n}`: its first n, in its order. */
export function swissQualifiers(matches: ScoredMatch[], options: Record<string, unknown>, top: number): OracleQualifier[] {
  return swissStandings(matches, scoringOf("swiss", options)).slice(0, top)
    .map((s) => ({ team_id: s.team_id, from_group: null, from_position: s.position }));
}

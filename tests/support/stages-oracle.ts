// An oracle for stages (contract section 12), written from the contract alone: each format's
// standings recomputed from a stage's matches (sections 5 and 10), the qualifiers a stage sends
// on (tiers, best_next, ties at the cut), the overall standings block by block, the standard
// seeding of an elimination bracket (brackets-manager's `inner_outer` ordering, which is
// section 5's standard seeding) and the same-group separation rule. No API calls here: the
// tests feed it the matches the API returned and compare its answers with the API's.
import type { Match } from "./helpers.ts";
import { ordering } from "brackets-manager";

export type Format = "single_elimination" | "double_elimination" | "round_robin" | "swiss";

/** A match as GET /results returns it (with the `stage` section 12 adds). */
export type StageMatch = Match;

/** One team's place in a stage, as this oracle computes it. */
export interface Place {
  team: string;
  seed: number;
  position: number;
  /** Round robin only: the team's group and its place in it. */
  group?: number;
  groupPlace?: number;
  /** Round robin only: the numbers the tiers and best_next compare. */
  played?: number;
  points?: number;
  diff?: number;
  scoreFor?: number;
  wins?: number;
  losses?: number;
  buchholz?: number;
}

/** A stage's seeds (1..N), read from its matches' team1_seed/team2_seed. */
export function seedsOf(matches: StageMatch[]): Map<string, number> {
  const seeds = new Map<string, number>();
  for (const m of matches) {
    if (m.team1_id !== null && m.team1_seed !== null) seeds.set(m.team1_id, m.team1_seed);
    if (m.team2_id !== null && m.team2_seed !== null) seeds.set(m.team2_id, m.team2_seed);
  }
  return seeds;
}

const loserOf = (m: StageMatch) => (m.winner_id === m.team1_id ? m.team2_id : m.team1_id)!;

/** Competition ranking: each team's position is 1 + the number of teams strictly better. */
function rankBy<T>(items: T[], better: (a: T, b: T) => number): { item: T; position: number }[] {
  const sorted = [...items].sort(better);
  return sorted.map((item) => ({ item, position: 1 + sorted.filter((o) => better(o, item) < 0).length }));
}

/**
 * Round robin (section 10): points, then head-to-head points among the teams level on points,
 * then score difference, then score for, then seed; overall and within the group. Forfeits
 * count as a win and a loss with no score.
 */
export function roundRobinPlaces(matches: StageMatch[], seeds: Map<string, number>, win = 3, loss = 0): Place[] {
  const rows = new Map<string, Place & { h2h: number }>();
  const row = (team: string, group: number) => {
    if (!rows.has(team)) {
      rows.set(team, {
        team,
        seed: seeds.get(team)!,
        position: 0,
        group,
        played: 0,
        wins: 0,
        losses: 0,
        points: 0,
        diff: 0,
        scoreFor: 0,
        h2h: 0,
      });
    }
    return rows.get(team)!;
  };
  for (const m of matches) {
    const [a, b] = [row(m.team1_id!, m.group!), row(m.team2_id!, m.group!)];
    if (m.status !== "completed") continue;
    const [w, l] = m.winner_id === m.team1_id ? [a, b] : [b, a];
    w.wins!++;
    l.losses!++;
    a.played!++;
    b.played!++;
    a.scoreFor! += m.team1_score ?? 0;
    b.scoreFor! += m.team2_score ?? 0;
    a.diff! += (m.team1_score ?? 0) - (m.team2_score ?? 0);
    b.diff! += (m.team2_score ?? 0) - (m.team1_score ?? 0);
  }
  for (const r of rows.values()) r.points = r.wins! * win + r.losses! * loss;
  for (const m of matches) {
    if (m.status !== "completed") continue;
    const [a, b] = [rows.get(m.team1_id!)!, rows.get(m.team2_id!)!];
    if (a.points !== b.points) continue;
    a.h2h += m.winner_id === m.team1_id ? win : loss;
    b.h2h += m.winner_id === m.team2_id ? win : loss;
  }
  const cmp = (x: Place & { h2h: number }, y: Place & { h2h: number }) =>
    y.points! - x.points! || y.h2h - x.h2h || y.diff! - x.diff! || y.scoreFor! - x.scoreFor! || x.seed - y.seed;
  const overall = [...rows.values()].sort(cmp);
  return overall.map((r, i) => {
    const { h2h: _, ...place } = r;
    return { ...place, position: i + 1, groupPlace: overall.filter((x) => x.group === r.group).indexOf(r) + 1 };
  });
}

/** Swiss (section 10): wins (a bye is a win), then Buchholz (sum of the opponents' wins), then seed. */
export function swissPlaces(matches: StageMatch[], seeds: Map<string, number>): Place[] {
  const wins = new Map<string, number>([...seeds.keys()].map((t) => [t, 0]));
  const losses = new Map<string, number>([...seeds.keys()].map((t) => [t, 0]));
  const opponents = new Map<string, string[]>([...seeds.keys()].map((t) => [t, []]));
  for (const m of matches) {
    if (m.status === "bye" && m.team1_id) wins.set(m.team1_id, wins.get(m.team1_id)! + 1);
    if (m.status !== "completed") continue;
    wins.set(m.winner_id!, wins.get(m.winner_id!)! + 1);
    losses.set(loserOf(m), losses.get(loserOf(m))! + 1);
    opponents.get(m.team1_id!)!.push(m.team2_id!);
    opponents.get(m.team2_id!)!.push(m.team1_id!);
  }
  const rows = [...seeds.keys()].map((team) => ({
    team,
    seed: seeds.get(team)!,
    position: 0,
    wins: wins.get(team)!,
    losses: losses.get(team)!,
    buchholz: opponents.get(team)!.reduce((s, o) => s + wins.get(o)!, 0),
  }));
  rows.sort((a, b) => b.wins - a.wins || b.buchholz - a.buchholz || a.seed - b.seed);
  return rows.map((r, i) => ({ ...r, position: i + 1 }));
}

/**
 * Single elimination (section 5, section 10's third-place match): the champion 1, the final's
 * loser 2, a loser in a round with 2^k teams left 2^(k-1) + 1; with a third-place match its
 * winner 3 and loser 4. Only teams whose place is decided.
 */
export function singleEliminationPlaces(matches: StageMatch[], seeds: Map<string, number>): Place[] {
  const winners = matches.filter((m) => m.bracket === "winners");
  const rounds = Math.max(...winners.map((m) => m.round));
  const third = matches.find((m) => m.bracket === "third_place");
  const placed = new Map<string, number>();
  for (const m of winners) {
    if (m.status !== "completed") continue;
    if (third && m.round === rounds - 1) continue;
    placed.set(loserOf(m), 2 ** (rounds - m.round) + 1);
    if (m.round === rounds) placed.set(m.winner_id!, 1);
  }
  if (third?.status === "completed") {
    placed.set(third.winner_id!, 3);
    placed.set(loserOf(third), 4);
  }
  return [...placed].map(([team, position]) => ({ team, seed: seeds.get(team)!, position }))
    .sort((a, b) => a.position - b.position || a.seed - b.seed);
}

/**
 * Double elimination (section 10): 1 champion, 2 grand-final loser, then teams eliminated in
 * the same losers-bracket round share the next position, later rounds first (3 the
 * losers-bracket final's loser, 4 its semi-final's, ...). Computed once every match is decided.
 */
export function doubleEliminationPlaces(matches: StageMatch[], seeds: Map<string, number>): Place[] {
  const gf = matches.filter((m) => m.bracket === "grand_final").sort((a, b) => a.round - b.round);
  const decider = gf.length > 1 && gf[1].status === "completed" ? gf[1] : gf[0];
  if (!decider || decider.status !== "completed") return [];
  const champion = decider.winner_id!;
  // Each other team's elimination: the last match it lost (its second loss, or the grand final).
  const out = new Map<string, number>(); // team -> rank key (smaller is better)
  const order = (m: StageMatch) => (m.bracket === "grand_final" ? 0 : m.bracket === "losers" ? 1_000 - m.round : 10_000);
  for (const m of matches) {
    if (m.status !== "completed") continue;
    const l = loserOf(m);
    if (l === champion) continue;
    const key = order(m);
    if (!out.has(l) || key < out.get(l)!) out.set(l, key);
  }
  const ranked = rankBy([...out], (a, b) => a[1] - b[1]);
  return [
    { team: champion, seed: seeds.get(champion)!, position: 1 },
    ...ranked.map(({ item: [team], position }) => ({ team, seed: seeds.get(team)!, position: position + 1 })),
  ];
}

/** A stage's places, by its format. */
export function placesOf(format: Format, matches: StageMatch[], options: Record<string, unknown> = {}): Place[] {
  const seeds = seedsOf(matches);
  switch (format) {
    case "round_robin": {
      const points = (options.points ?? {}) as { win?: number; loss?: number };
      return roundRobinPlaces(matches, seeds, points.win ?? 3, points.loss ?? 0);
    }
    case "swiss":
      return swissPlaces(matches, seeds);
    case "single_elimination":
      return singleEliminationPlaces(matches, seeds);
    case "double_elimination":
      return doubleEliminationPlaces(matches, seeds);
  }
}

/** One qualifier the oracle expects, with what GET /stages/{n} shows of it. */
export interface ExpectedQualifier {
  team: string;
  from_group: number | null;
  from_position: number;
}

/**
 * What a stage sends on: `blocks` of qualifiers in seed order (a block of more than one team
 * shares a place the criteria do not break, e.g. single elimination's semi-final losers without
 * a third-place match: the contract does not order them, so the test checks the block as a set),
 * and, when the last qualifying place is shared with a team that does not qualify, the `tie`
 * (section 12: 409 stage_tie without `advancing`).
 */
export interface QualifierPlan {
  blocks: ExpectedQualifier[][];
  tie: null | { tied: string[]; sure: ExpectedQualifier[][]; open: number };
}

/**
 * The qualifiers by the contract (section 12):
 * - after round robin, `{per_group: n, best_next?: m}`: tier t (t = 1..n) is every group's t-th,
 *   ordered by the stage's own criteria, read as the stage's overall standings order (section
 *   10: points, head-to-head points among the teams level on points, score difference, score
 *   for, seed; so a team level on points with a group-mate it beat goes before a team alone on
 *   its points, and totals are compared even when groups differ in size), then group number;
 *   then the m best of the teams placed n + 1 by points per match, score difference per match,
 *   score for per match, seed. Round robin always ends on the seed, so it never ties at the cut.
 * - after the other formats, `{top: n}`: the stage's own order; a place shared across the cut
 *   is a tie.
 */
export function qualifiersOf(format: Format, places: Place[], advance: Record<string, number>): QualifierPlan {
  if (format === "round_robin") {
    const perGroup = advance.per_group;
    const bestNext = advance.best_next ?? 0;
    const q = (p: Place): ExpectedQualifier => ({ team: p.team, from_group: p.group!, from_position: p.groupPlace! });
    const blocks: ExpectedQualifier[][] = [];
    for (let t = 1; t <= perGroup; t++) {
      const tier = places.filter((p) => p.groupPlace === t).sort((a, b) => a.position - b.position || a.group! - b.group!);
      blocks.push(...tier.map((p) => [q(p)]));
    }
    const per = (p: Place, v: number) => v / Math.max(p.played!, 1);
    const next = places.filter((p) => p.groupPlace === perGroup + 1).sort((a, b) =>
      per(b, b.points!) - per(a, a.points!) || per(b, b.diff!) - per(a, a.diff!) ||
      per(b, b.scoreFor!) - per(a, a.scoreFor!) || a.seed - b.seed
    );
    blocks.push(...next.slice(0, bestNext).map((p) => [q(p)]));
    return { blocks, tie: null };
  }
  const top = advance.top;
  const sorted = [...places].sort((a, b) => a.position - b.position || a.seed - b.seed);
  const byPosition = new Map<number, Place[]>();
  for (const p of sorted) byPosition.set(p.position, [...(byPosition.get(p.position) ?? []), p]);
  const blocks: ExpectedQualifier[][] = [];
  let taken = 0;
  for (const [position, teams] of byPosition) {
    if (taken >= top) break;
    const block = teams.map((p) => ({ team: p.team, from_group: null, from_position: position }));
    if (taken + teams.length > top) {
      return { blocks, tie: { tied: teams.map((p) => p.team), sure: blocks, open: top - taken } };
    }
    blocks.push(block);
    taken += teams.length;
  }
  return { blocks, tie: null };
}

/**
 * Overall standings (section 12): the last started stage's places first, then the teams each
 * earlier stage did not send on, stage by stage backwards; positions continue after the
 * previous block (1 + the number of teams above). Within a block of a stage with groups (round
 * robin) one shared position per place in the group; otherwise the stage's own order and
 * sharing. "Within a block" is read as every block, the first (the last stage's) included: a
 * last stage of round robin groups gives its group winners one shared 1st place, and so on.
 * `stages[k]` holds stage k + 1's places (its teams) and format.
 */
export function overallStandings(stages: { format: Format; places: Place[] }[]): Map<string, number> {
  const result = new Map<string, number>();
  let base = 0;
  for (let k = stages.length - 1; k >= 0; k--) {
    const went = new Set(k === stages.length - 1 ? [] : stages[k + 1].places.map((p) => p.team));
    const block = stages[k].places.filter((p) => !went.has(p.team));
    const key = (p: Place) => (stages[k].format === "round_robin" ? p.groupPlace! : p.position);
    for (const p of block) result.set(p.team, base + 1 + block.filter((o) => key(o) < key(p)).length);
    base += block.length;
  }
  return result;
}

/** The next power of two ≥ n. */
export function pow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * Section 5's standard seeding of a bracket of size P = pow2(K) for teams in seed order: the
 * teams by bracket slot (slot 2p - 1 and 2p are round 1's match p), null where a bye is.
 * This is brackets-manager's `inner_outer` ordering (its default for an elimination stage).
 */
export function standardSlots(teams: string[]): (string | null)[] {
  const size = pow2(teams.length);
  const padded: (string | null)[] = [...teams, ...Array(size - teams.length).fill(null)];
  return size < 2 ? padded : ordering.inner_outer(padded);
}

/** Round 1 of an elimination bracket (the winners bracket) as slots, from the API's matches. */
export function firstRoundSlots(matches: StageMatch[]): (string | null)[] {
  return matches.filter((m) => m.bracket === "winners" && m.round === 1).sort((a, b) => a.position - b.position)
    .flatMap((m) => [m.team1_id, m.team2_id]);
}

/**
 * The separation rule (section 12) on a bracket's slots: a group with k ≥ 2 teams in a bracket of
 * size P has them in k' = pow2(k) equal sections, at most one per section; and no round-1 match
 * pairs two teams of one group. Returns what breaks it (empty when it holds).
 */
export function separationViolations(slots: (string | null)[], groupOf: Map<string, number>): string[] {
  const size = slots.length;
  const problems: string[] = [];
  const byGroup = new Map<number, number[]>();
  slots.forEach((team, i) => {
    if (team === null) return;
    const g = groupOf.get(team)!;
    byGroup.set(g, [...(byGroup.get(g) ?? []), i]);
  });
  for (const [g, at] of byGroup) {
    if (at.length < 2) continue;
    const width = size / pow2(at.length);
    const sections = at.map((i) => Math.floor(i / width));
    if (new Set(sections).size !== sections.length) {
      problems.push(`group ${g}: ${at.length} teams at slots ${at.map((i) => i + 1).join(",")} share a section of ${width}`);
    }
  }
  for (let i = 0; i < size; i += 2) {
    const [a, b] = [slots[i], slots[i + 1]];
    if (a !== null && b !== null && groupOf.get(a) === groupOf.get(b)) {
      problems.push(`round 1 match ${i / 2 + 1} pairs two teams of group ${groupOf.get(a)}`);
    }
  }
  return problems;
}

/**
 * Whether some placement of these teams (group per team) in a bracket of size P satisfies the
 * separation rule (sections, and no round-1 match of one group), seeds aside: a backtracking
 * search (largest groups first), null when it gives up after `budget` steps.
 */
export function separable(groups: number[], size: number, budget = 200_000): boolean | null {
  const count = new Map<number, number>();
  for (const g of groups) count.set(g, (count.get(g) ?? 0) + 1);
  const order = [...groups].sort((a, b) => count.get(b)! - count.get(a)! || a - b);
  const slots: (number | null)[] = Array(size).fill(null);
  let steps = 0;
  const fits = (g: number, i: number) => {
    const width = size / pow2(count.get(g)!);
    if (slots[i ^ 1] === g) return false;
    if (count.get(g)! < 2) return true;
    return !slots.some((o, j) => o === g && Math.floor(j / width) === Math.floor(i / width));
  };
  const place = (t: number): boolean | null => {
    if (t === order.length) return true;
    for (let i = 0; i < size; i++) {
      if (++steps > budget) return null;
      if (slots[i] !== null || !fits(order[t], i)) continue;
      slots[i] = order[t];
      const r = place(t + 1);
      if (r !== false) return r;
      slots[i] = null;
    }
    return false;
  };
  return place(0);
}

/** Section 10's snake order: seeds 1..G to groups 1..G, then G..1, and so on. */
export function snakeGroup(seed: number, groups: number): number {
  const row = Math.floor((seed - 1) / groups);
  const col = (seed - 1) % groups;
  return row % 2 === 0 ? col + 1 : groups - col;
}

export { mulberry32 } from "./helpers.ts";

/** Every UUID in a value (e.g. the team ids an error's `details` name). */
export function uuidsIn(value: unknown): Set<string> {
  return new Set((JSON.stringify(value ?? null).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi) ?? [])
    .map((s) => s.toLowerCase()));
}

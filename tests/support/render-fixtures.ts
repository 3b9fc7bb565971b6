// Public views (contract section 15) for the bracket renderer's tests, built without a database
// and laid out as the database lays them out: single elimination (10_single_elimination.sql),
// double elimination (12_double_elimination.sql: winners, losers in brackets-manager's crossover
// order, byes passed through, grand final and reset), round robin (11_round_robin.sql: snake
// groups, circle-method rounds), swiss (13_swiss_pairing.sql, 14_swiss.sql: only the rounds drawn
// so far, byes last), and stages (16_stages.sql). Results are played in the order a real event
// plays them, with best-of series and their games, forfeits, draws (round robin and swiss with
// format_options.draws, contract section 19: points, draws and points-first swiss standings) and
// scheduled times. Free-for-all stages (14_free_for_all.sql: lobbies, their games and the standings)
// are built in render-ffa.ts.
import type {
  Format,
  PublicView,
  ViewGame,
  ViewMatch,
  ViewRegistration,
  ViewStage,
  ViewStanding,
  ViewTeam,
} from "../../functions/api/render/view.ts";

import { mulberry32 } from "./random.ts";
import { buildFfa, type FfaPlay } from "./render-ffa.ts";

/** A well-formed UUID from a namespace digit and a counter. */
function uuid(kind: number, n: number): string {
  return `${kind.toString(16).padStart(8, "0")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

const WORDS = [
  "Aurora",
  "Blue",
  "Crimson",
  "Delta",
  "Echo",
  "Falcon",
  "Golden",
  "Harbor",
  "Iron",
  "Jade",
  "Kinetic",
  "Lunar",
  "Midnight",
  "Nova",
  "Onyx",
  "Phoenix",
  "Quantum",
  "Rogue",
  "Silver",
  "Titan",
  "Umbra",
  "Vortex",
  "Wild",
  "Xenon",
  "Yellow",
  "Zenith",
];
const NOUNS = ["Gaming", "Esports", "Wolves", "Dragons", "Knights", "Squad", "Collective", "Academy", "Five", "Club"];

/** Teams with realistic names and tags (unique), `custom` replacing some. */
export function makeTeams(n: number, custom: Record<number, Partial<ViewTeam>> = {}): ViewTeam[] {
  return Array.from({ length: n }, (_, i) => {
    const word = WORDS[i % WORDS.length], noun = NOUNS[Math.floor(i / WORDS.length) % NOUNS.length];
    const round = Math.floor(i / (WORDS.length * NOUNS.length));
    const name = `${word} ${noun}${round ? ` ${round + 1}` : ""}`;
    const tag = `${word.slice(0, 2).toUpperCase()}${noun[0]}${i >= WORDS.length ? i : ""}`;
    return { id: uuid(1, i + 1), name, tag, logo_url: null, ...custom[i] };
  });
}

/** The standard seeding order of a bracket of `size` slots (app.seed_order). */
export function seedOrder(size: number): number[] {
  let order = [1];
  for (let m = 2; m <= size; m *= 2) order = order.flatMap((s) => [s, m + 1 - s]);
  return order;
}

export function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** A match as the builder keeps it: the view's fields and the slots its teams go to. */
interface M extends ViewMatch {
  next_slot: 1 | 2 | null;
  loser_next_slot: 1 | 2 | null;
}

export interface PlayOptions {
  /** How many matches to decide (default: all). */
  decide?: number;
  seed?: number;
  /** Every n-th decided match is a forfeit. */
  forfeitEvery?: number;
  /** The chance that the worse seed wins. */
  upsets?: number;
  /** Every n-th decided match that is no forfeit is a draw (round robin and swiss with format_options.draws only). */
  drawEvery?: number;
  /** Match with `pick` decides who wins (1 or 2) or that it is drawn, before upsets. */
  pick?: (m: ViewMatch) => 1 | 2 | "draw" | undefined;
}

const MAPS = ["Mirage", "Inferno", "Nuke", "Ancient", "Anubis", "Vertigo", "Overpass", "Dust II", "Train"];

/** A stage being built: its matches, entries (team → seed) and a clock for results. */
class StageBuilder {
  matches: M[] = [];
  byId = new Map<string, M>();
  seeds = new Map<string, number>();
  decided = 0;
  private clock = Date.parse("2027-03-01T17:00:00Z");

  constructor(readonly number: number, entries: ViewTeam[], private idBase: number) {
    entries.forEach((t, i) => this.seeds.set(t.id, i + 1));
  }

  add(fields: Partial<M> & Pick<M, "round" | "position">): M {
    const m: M = {
      id: uuid(this.idBase, this.matches.length + 1),
      stage: this.number,
      bracket: null,
      group: null,
      team1_id: null,
      team2_id: null,
      team1_seed: null,
      team2_seed: null,
      team1_score: null,
      team2_score: null,
      winner_id: null,
      draw: false,
      status: "pending",
      forfeit: null,
      best_of: 1,
      games: [],
      next_match_id: null,
      loser_next_match_id: null,
      scheduled_at: null,
      completed_at: null,
      report: null,
      opponents: null,
      next_slot: null,
      loser_next_slot: null,
      ...fields,
    };
    this.matches.push(m);
    this.byId.set(m.id, m);
    return m;
  }

  /** Puts a team into a slot (app.advance); a losers-bracket bye passes it on at once. */
  place(m: M, slot: 1 | 2, team: string | null): void {
    if (slot === 1) {
      m.team1_id = team;
      m.team1_seed = team ? this.seeds.get(team)! : null;
    } else {
      m.team2_id = team;
      m.team2_seed = team ? this.seeds.get(team)! : null;
    }
    if (m.status === "bye") {
      m.winner_id = team;
      if (team && m.next_match_id) this.place(this.byId.get(m.next_match_id)!, m.next_slot!, team);
    } else if (m.team1_id && m.team2_id && m.status === "pending") m.status = "ready";
  }

  /** Plays `m` (ready): the winner's side, scores or games, maybe a forfeit; advances both teams. */
  decide(m: M, side: 1 | 2, random: () => number, forfeit: boolean): void {
    const winner = side === 1 ? m.team1_id! : m.team2_id!;
    this.clock += 45 * 60_000;
    const at = new Date(this.clock).toISOString();
    const bestOf = m.best_of ?? 1;
    if (bestOf > 1) {
      const need = Math.ceil(bestOf / 2);
      const lost = Math.floor(random() * need);
      const order = [...Array(need - 1).fill(side), ...Array(lost).fill(3 - side)].sort(() => random() - 0.5);
      order.push(side);
      const played = forfeit ? order.slice(0, Math.floor(random() * order.length)) : order;
      m.games = played.map((s, i): ViewGame => {
        const high = 13 + (random() < 0.2 ? 3 : 0), low = Math.floor(random() * (high - 1));
        return {
          number: i + 1,
          team1_score: s === 1 ? high : low,
          team2_score: s === 1 ? low : high,
          winner_id: s === 1 ? m.team1_id! : m.team2_id!,
          map: MAPS[i % MAPS.length],
          lineups: null,
          reported_at: at,
        };
      });
      const w1 = played.filter((s) => s === 1).length;
      m.team1_score = forfeit ? null : w1;
      m.team2_score = forfeit ? null : played.length - w1;
    } else if (!forfeit) {
      const high = 1 + Math.floor(random() * 3), low = Math.floor(random() * high);
      m.team1_score = side === 1 ? high : low;
      m.team2_score = side === 1 ? low : high;
    }
    m.forfeit = forfeit ? (side === 1 ? "team2" : "team1") : null;
    m.winner_id = winner;
    m.status = "completed";
    m.completed_at = at;
    this.decided++;
    const loser = side === 1 ? m.team2_id : m.team1_id;
    if (m.next_match_id) this.place(this.byId.get(m.next_match_id)!, m.next_slot!, winner);
    if (m.loser_next_match_id) this.place(this.byId.get(m.loser_next_match_id)!, m.loser_next_slot!, loser);
  }

  /**
   * Draws `m` (ready): level scores, or on a series of an even best_of every game played, half
   * won by each side (section 19); neither side wins and no team moves on.
   */
  level(m: M, random: () => number): void {
    const bestOf = m.best_of ?? 1;
    if (bestOf % 2 === 1 && bestOf > 1) throw new Error(`a best of ${bestOf} cannot end level`);
    this.clock += 45 * 60_000;
    const at = new Date(this.clock).toISOString();
    if (bestOf > 1) {
      m.games = Array.from({ length: bestOf }, (_, i): ViewGame => {
        const side = i % 2 === 0 ? 1 : 2, high = 13, low = Math.floor(random() * 12);
        return {
          number: i + 1,
          team1_score: side === 1 ? high : low,
          team2_score: side === 1 ? low : high,
          winner_id: side === 1 ? m.team1_id! : m.team2_id!,
          map: MAPS[i % MAPS.length],
          lineups: null,
          reported_at: at,
        };
      });
      m.team1_score = m.team2_score = bestOf / 2;
    } else m.team1_score = m.team2_score = Math.floor(random() * 3);
    m.winner_id = null;
    m.draw = true;
    m.status = "completed";
    m.completed_at = at;
    this.decided++;
  }

  /** Plays ready matches, earliest round first, until none is left or `decide` are decided. */
  play(options: PlayOptions, after?: (m: M) => void): void {
    const random = mulberry32(options.seed ?? 7);
    const limit = options.decide ?? Infinity;
    const rank: Record<string, number> = { winners: 0, third_place: 1, losers: 1, grand_final: 2 };
    for (;;) {
      const ready = this.matches.filter((m) => m.status === "ready")
        .sort((x, y) =>
          x.round - y.round || (rank[x.bracket ?? ""] ?? 0) - (rank[y.bracket ?? ""] ?? 0) ||
          x.position - y.position
        );
      if (ready.length === 0 || this.decided >= limit) return;
      const m = ready[0];
      const forfeit = !!options.forfeitEvery && (this.decided + 1) % options.forfeitEvery === 0;
      let side = options.pick?.(m);
      if (side === "draw" || !side && !forfeit && !!options.drawEvery && (this.decided + 1) % options.drawEvery === 0) {
        this.level(m, random);
        after?.(m);
        continue;
      }
      if (!side) {
        side = (m.team1_seed ?? 0) <= (m.team2_seed ?? 0) ? 1 : 2;
        if (random() < (options.upsets ?? 0.25)) side = side === 1 ? 2 : 1;
      }
      this.decide(m, side, random, forfeit);
      after?.(m);
    }
  }

  /** Sets scheduled times on every match but byes (round r at 18:00 + r - 1 hours). */
  schedule(): void {
    for (const m of this.matches) {
      if (m.status !== "bye") {
        m.scheduled_at = new Date(Date.parse("2027-03-01T18:00:00Z") + (m.round - 1) * 3_600_000).toISOString();
      }
    }
  }

  view(): ViewMatch[] {
    return this.matches.map(({ next_slot: _n, loser_next_slot: _l, ...m }) => m);
  }
}

export interface BracketOptions extends PlayOptions {
  third?: boolean;
  grandFinal?: "single" | "reset";
  bestOf?: number;
  finalBestOf?: number;
  schedule?: boolean;
}

/** Single elimination's matches (app.generate_single_elimination, app.add_third_place_match). */
function buildSingle(s: StageBuilder, entries: ViewTeam[], o: BracketOptions): void {
  const n = entries.length, size = nextPowerOfTwo(n), k = Math.log2(size);
  const rounds: M[][] = [];
  for (let r = 1; r <= k; r++) {
    rounds.push(Array.from({ length: size >> r }, (_, i) =>
      s.add({
        bracket: "winners",
        round: r,
        position: i + 1,
        best_of: r === k ? o.finalBestOf ?? o.bestOf ?? 1 : o.bestOf ?? 1,
      })));
  }
  link(rounds);
  seedRoundOne(s, rounds[0], entries, size);
  if (o.third && k >= 2 && n >= 4) {
    const third = s.add({ bracket: "third_place", round: k, position: 1, best_of: o.bestOf ?? 1 });
    for (const m of rounds[k - 2]) {
      m.loser_next_match_id = third.id;
      m.loser_next_slot = m.position % 2 === 1 ? 1 : 2;
    }
  }
}

function link(rounds: M[][]): void {
  rounds.forEach((list, r) => {
    for (const m of list) {
      const next = rounds[r + 1]?.[Math.ceil(m.position / 2) - 1];
      if (next) {
        m.next_match_id = next.id;
        m.next_slot = m.position % 2 === 1 ? 1 : 2;
      }
    }
  });
}

/** Round 1 in standard seeding order; a missing seed makes a bye whose team goes straight on. */
function seedRoundOne(s: StageBuilder, round1: M[], entries: ViewTeam[], size: number): void {
  const order = seedOrder(size);
  for (const m of round1) {
    const t1 = entries[order[2 * m.position - 2] - 1]?.id ?? null, t2 = entries[order[2 * m.position - 1] - 1]?.id ?? null;
    s.place(m, 1, t1);
    s.place(m, 2, t2);
    if (!t2) {
      m.status = "bye";
      m.winner_id = t1;
      if (m.next_match_id) s.place(s.byId.get(m.next_match_id)!, m.next_slot!, t1);
    }
  }
}

// brackets-manager's crossover orderings (app.double_elimination_minor_ordering / _drop_position).
function minorOrdering(size: number, index: number): string {
  const table: Record<number, string[]> = {
    8: ["reverse"],
    16: ["reverse_half_shift", "reverse"],
    32: ["reverse", "half_shift", "natural"],
    64: ["reverse", "half_shift", "reverse", "natural"],
    128: ["reverse", "half_shift", "pair_flip", "pair_flip", "pair_flip"],
  };
  const named = table[size]?.[index];
  if (named) return named;
  if (size <= 128) return "natural";
  return index === 0 ? "reverse" : index === 1 ? "half_shift" : "pair_flip";
}

function dropPosition(ordering: string, x: number, m: number): number {
  const half = Math.floor(m / 2);
  switch (ordering) {
    case "reverse":
      return m - 1 - x;
    case "half_shift":
      return (x + half) % m;
    case "reverse_half_shift":
      return x < half ? half - 1 - x : 3 * half - 1 - x;
    case "pair_flip":
      return x ^ 1;
    default:
      return x;
  }
}

/** Double elimination's matches (app.generate_double_elimination). */
function buildDouble(s: StageBuilder, entries: ViewTeam[], o: BracketOptions): void {
  const size = Math.max(2, nextPowerOfTwo(entries.length)), k = Math.log2(size);
  const bo = o.bestOf ?? 1, finalBo = o.finalBestOf ?? bo;
  const winners: M[][] = [], losers: M[][] = [];
  for (let r = 1; r <= k; r++) {
    winners.push(Array.from({ length: size >> r }, (_, i) => s.add({ bracket: "winners", round: r, position: i + 1, best_of: bo })));
  }
  for (let l = 1; l <= 2 * (k - 1); l++) {
    const count = size >> (Math.ceil(l / 2) + 1);
    losers.push(Array.from({ length: count }, (_, i) => s.add({ bracket: "losers", round: l, position: i + 1, best_of: bo })));
  }
  const gf = s.add({ bracket: "grand_final", round: 1, position: 1, best_of: finalBo });
  const reset = (o.grandFinal ?? "reset") === "reset"
    ? s.add({ bracket: "grand_final", round: 2, position: 1, best_of: finalBo })
    : undefined;
  link(winners);
  const wFinal = winners[k - 1][0];
  wFinal.next_match_id = gf.id;
  wFinal.next_slot = 1;
  losers.forEach((list, i) => {
    const l = i + 1;
    for (const m of list) {
      const target = l % 2 === 1 ? losers[i + 1]?.[m.position - 1] : l === 2 * (k - 1) ? gf : losers[i + 1][Math.ceil(m.position / 2) - 1];
      const slot: 1 | 2 = l % 2 === 1 || l === 2 * (k - 1) ? 2 : m.position % 2 === 1 ? 1 : 2;
      if (target) {
        m.next_match_id = target.id;
        m.next_slot = slot;
      }
    }
  });
  if (reset) {
    gf.next_match_id = reset.id;
    gf.next_slot = 1;
  }
  seedRoundOne(s, winners[0], entries, size);
  winners.forEach((list, i) => {
    const r = i + 1;
    for (const m of list) {
      if (m.status === "bye") continue;
      if (k === 1) {
        m.loser_next_match_id = gf.id;
        m.loser_next_slot = 2;
      } else if (r === 1) {
        m.loser_next_match_id = losers[0][Math.ceil(m.position / 2) - 1].id;
        m.loser_next_slot = m.position % 2 === 1 ? 1 : 2;
      } else {
        const ordering = r === k ? "natural" : minorOrdering(size, r - 2);
        m.loser_next_match_id = losers[2 * (r - 1) - 1][dropPosition(ordering, m.position - 1, size >> r)].id;
        m.loser_next_slot = 1;
      }
    }
  });
  // Losers matches fed by byes: a bye from the start; fed by two, no team at all, and the match
  // it feeds gets one team only.
  for (const m of losers[0] ?? []) {
    const a = winners[0][2 * m.position - 2], b = winners[0][2 * m.position - 1];
    if (a.status === "bye" || b.status === "bye") m.status = "bye";
    if (a.status === "bye" && b.status === "bye") s.byId.get(m.next_match_id!)!.status = "bye";
  }
}

/** After a grand final: its reset is played (same teams) when the losers champion won, else a bye. */
function settleReset(s: StageBuilder, m: M): void {
  if (m.bracket !== "grand_final" || m.round !== 1 || !m.next_match_id) return;
  const reset = s.byId.get(m.next_match_id)!;
  if (m.winner_id === m.team2_id) {
    s.place(reset, 1, m.team1_id);
    s.place(reset, 2, m.team2_id);
  } else {
    reset.team1_id = reset.team2_id = null;
    reset.team1_seed = reset.team2_seed = null;
    reset.status = "bye";
  }
}

/** Single and double elimination standings (app.single_elimination_standings, _double_). */
function eliminationStandings(s: StageBuilder, teams: Map<string, ViewTeam>, double: boolean): ViewStanding[] {
  const placed: Array<[string, number]> = [];
  const loser = (m: M) => (m.winner_id === m.team1_id ? m.team2_id : m.team1_id)!;
  if (!double) {
    const k = Math.max(...s.matches.filter((m) => m.bracket === "winners").map((m) => m.round));
    const third = s.matches.find((m) => m.bracket === "third_place");
    for (const m of s.matches) {
      if (m.bracket !== "winners" || m.status !== "completed") continue;
      if (third && m.round === k - 1) continue;
      placed.push([loser(m), (1 << (k - m.round)) + 1]);
      if (!m.next_match_id) placed.push([m.winner_id!, 1]);
    }
    if (third?.status === "completed") placed.push([third.winner_id!, 3], [loser(third), 4]);
  } else {
    const [gf1, gf2] = s.matches.filter((m) => m.bracket === "grand_final").sort((x, y) => x.round - y.round);
    const final = gf2?.status === "completed" ? gf2 : gf1.status === "completed" && (!gf2 || gf2.status === "bye") ? gf1 : null;
    const played = new Map<number, number>();
    for (const m of s.matches) if (m.bracket === "losers" && m.status !== "bye") played.set(m.round, (played.get(m.round) ?? 0) + 1);
    for (const m of s.matches) {
      if (m.bracket !== "losers" || m.status !== "completed") continue;
      let later = 0;
      for (const [r, c] of played) if (r > m.round) later += c;
      placed.push([loser(m), 3 + later]);
    }
    if (final) placed.push([final.winner_id!, 1], [loser(final), 2]);
  }
  return placed.map(([id, position]) => ({
    position,
    team_id: id,
    team_name: teams.get(id)!.name,
    team_tag: teams.get(id)!.tag,
    disqualified: false,
  }))
    .sort((x, y) => x.position - y.position || x.team_name.localeCompare(y.team_name));
}

/** Round robin's matches (app.generate_round_robin): snake groups, circle method. */
function buildRoundRobin(s: StageBuilder, entries: ViewTeam[], groups: number, bestOf: number): void {
  const members = new Map<number, ViewTeam[]>();
  entries.forEach((t, i) => {
    const g = Math.floor(i / groups) % 2 === 0 ? (i % groups) + 1 : groups - (i % groups);
    members.set(g, [...members.get(g) ?? [], t]);
  });
  for (const [g, list] of [...members].sort((x, y) => x[0] - y[0])) {
    const m = list.length + (list.length % 2);
    for (let r = 0; r <= m - 2; r++) {
      let position = 0;
      for (let i = 0; i < m / 2; i++) {
        const a = i === 0 ? 0 : 1 + ((i - 1 + r) % (m - 1)), b = 1 + ((m - 2 - i + r) % (m - 1));
        if (a >= list.length || b >= list.length) continue;
        const [t1, t2] = [list[a], list[b]].sort((x, y) => s.seeds.get(x.id)! - s.seeds.get(y.id)!);
        const match = s.add({ group: g, round: r + 1, position: ++position, best_of: bestOf, status: "ready" });
        s.place(match, 1, t1.id);
        s.place(match, 2, t2.id);
      }
    }
  }
}

interface Points {
  win: number;
  draw: number;
  loss: number;
}

/**
 * Round-robin standings (app.round_robin_table): points, head-to-head, difference, score for, seed;
 * each entry's `separated_by`, the first of them on which it differs from the entry above it in its group.
 */
function roundRobinStandings(s: StageBuilder, teams: Map<string, ViewTeam>, points: Points): ViewStanding[] {
  type Row = { id: string; group: number; seed: number; w: number; d: number; l: number; pts: number; sf: number; sa: number; h2h: number };
  const rows = new Map<string, Row>();
  for (const m of s.matches) {
    for (const id of [m.team1_id!, m.team2_id!]) {
      if (!rows.has(id)) rows.set(id, { id, group: m.group!, seed: s.seeds.get(id)!, w: 0, d: 0, l: 0, pts: 0, sf: 0, sa: 0, h2h: 0 });
    }
  }
  const done = s.matches.filter((m) => m.status === "completed");
  for (const m of done) {
    for (const [id, own, other] of [[m.team1_id!, m.team1_score, m.team2_score], [m.team2_id!, m.team2_score, m.team1_score]] as const) {
      const r = rows.get(id)!;
      if (m.draw) {
        r.d++;
        r.pts += points.draw;
      } else if (m.winner_id === id) {
        r.w++;
        r.pts += points.win;
      } else {
        r.l++;
        r.pts += points.loss;
      }
      r.sf += own ?? 0;
      r.sa += other ?? 0;
    }
  }
  for (const m of done) {
    const [a, b] = [rows.get(m.team1_id!)!, rows.get(m.team2_id!)!];
    if (a.pts !== b.pts) continue;
    if (m.draw) {
      a.h2h += points.draw;
      b.h2h += points.draw;
      continue;
    }
    (m.winner_id === a.id ? a : b).h2h += points.win;
    (m.winner_id === a.id ? b : a).h2h += points.loss;
  }
  const criteria: Array<[NonNullable<ViewStanding["separated_by"]>, (r: Row) => number]> = [
    ["points", (r) => -r.pts],
    ["head_to_head", (r) => -r.h2h],
    ["score_difference", (r) => r.sa - r.sf],
    ["score_for", (r) => -r.sf],
    ["seed", (r) => r.seed],
  ];
  const order = (x: Row, y: Row) => criteria.reduce((c, [, key]) => c || key(x) - key(y), 0);
  const all = [...rows.values()].sort(order);
  return all.map((r, i) => {
    const group = all.filter((x) => x.group === r.group);
    const above = group[group.indexOf(r) - 1];
    return {
      position: i + 1,
      group: r.group,
      group_position: group.indexOf(r) + 1,
      team_id: r.id,
      team_name: teams.get(r.id)!.name,
      team_tag: teams.get(r.id)!.tag,
      disqualified: false,
      wins: r.w,
      draws: r.d,
      losses: r.l,
      points: r.pts,
      separated_by: above ? criteria.find(([, key]) => key(above) !== key(r))![0] : null,
    };
  });
}

/** Swiss records from the rounds before `before` (app.swiss_records): a bye scores as a win; Buchholz sums the opponents' points. */
function swissRecords(s: StageBuilder, before: number, points: Points) {
  type SwissRecord = { wins: number; draws: number; losses: number; points: number; bye: boolean; met: string[]; buchholz: number };
  const rec = new Map<string, SwissRecord>();
  for (const id of s.seeds.keys()) rec.set(id, { wins: 0, draws: 0, losses: 0, points: 0, bye: false, met: [], buchholz: 0 });
  for (const m of s.matches) {
    if (m.round >= before) continue;
    if (m.status === "bye") {
      rec.get(m.team1_id!)!.wins++;
      rec.get(m.team1_id!)!.points += points.win;
      rec.get(m.team1_id!)!.bye = true;
      continue;
    }
    if (m.status !== "completed") continue;
    for (const [id, other] of [[m.team1_id!, m.team2_id!], [m.team2_id!, m.team1_id!]]) {
      const r = rec.get(id)!;
      if (m.draw) r.draws++;
      else if (m.winner_id === id) r.wins++;
      else r.losses++;
      r.points += m.draw ? points.draw : m.winner_id === id ? points.win : points.loss;
      r.met.push(other);
    }
  }
  for (const r of rec.values()) r.buchholz = r.met.reduce((sum, o) => sum + rec.get(o)!.points, 0);
  return rec;
}

/** Draws swiss round `round` (app.swiss_pairings / app.swiss_draw): within points, no rematch, bye last. */
function swissDraw(s: StageBuilder, round: number, bestOf: number, points: Points): void {
  const ids = [...s.seeds.keys()].sort((x, y) => s.seeds.get(x)! - s.seeds.get(y)!);
  const pairs: Array<[string, string | null]> = [];
  if (round === 1) {
    const half = Math.floor(ids.length / 2);
    for (let i = 0; i < half; i++) pairs.push([ids[i], ids[i + half]]);
    if (ids.length % 2) pairs.push([ids[ids.length - 1], null]);
  } else {
    const rec = swissRecords(s, round, points);
    let bye: string | undefined;
    if (ids.length % 2) {
      bye = ids.filter((id) => !rec.get(id)!.bye)
        .sort((x, y) =>
          rec.get(x)!.points - rec.get(y)!.points || rec.get(x)!.buchholz - rec.get(y)!.buchholz ||
          s.seeds.get(y)! - s.seeds.get(x)!
        )[0];
    }
    const order = ids.filter((id) => id !== bye).sort((x, y) =>
      rec.get(y)!.points - rec.get(x)!.points || s.seeds.get(x)! - s.seeds.get(y)!
    );
    const pair = (left: string[]): Array<[string, string]> | null => {
      if (left.length === 0) return [];
      const [a, ...rest] = left;
      for (const b of rest) {
        if (rec.get(a)!.met.includes(b)) continue;
        const more = pair(rest.filter((x) => x !== b));
        if (more) return [[a, b], ...more];
      }
      return null;
    };
    const drawn = pair(order) ?? order.reduce<Array<[string, string]>>((acc, id, i) => i % 2 ? [...acc, [order[i - 1], id]] : acc, []);
    pairs.push(...drawn);
    if (bye) pairs.push([bye, null]);
  }
  pairs.forEach(([a, b], i) => {
    const m = s.add({ round, position: i + 1, best_of: bestOf, status: b ? "ready" : "bye" });
    s.place(m, 1, a);
    if (b) s.place(m, 2, b);
    else m.winner_id = a;
  });
}

/** Swiss standings: points, Buchholz, seed (the default tie-breakers), each entry's `separated_by`. */
function swissStandings(s: StageBuilder, teams: Map<string, ViewTeam>, points: Points): ViewStanding[] {
  const rec = swissRecords(s, Number.MAX_SAFE_INTEGER, points);
  const sorted = [...rec].sort(([x, a], [y, b]) => b.points - a.points || b.buchholz - a.buchholz || s.seeds.get(x)! - s.seeds.get(y)!);
  return sorted.map(([id, r], i) => {
    const above = sorted[i - 1]?.[1];
    return {
      position: i + 1,
      team_id: id,
      team_name: teams.get(id)!.name,
      team_tag: teams.get(id)!.tag,
      disqualified: false,
      wins: r.wins,
      draws: r.draws,
      losses: r.losses,
      points: r.points,
      buchholz: r.buchholz,
      separated_by: !above
        ? null
        : above.points !== r.points
        ? "points" as const
        : above.buchholz !== r.buchholz
        ? "buchholz" as const
        : "seed" as const,
    };
  });
}

export interface StageSpec {
  name?: string;
  format: Format;
  options?: Record<string, unknown>;
  advance?: Record<string, unknown> | null;
  play?: BracketOptions & { groups?: number; rounds?: number };
  /** Not started yet. */
  pending?: boolean;
}

/** format_options.points with the format's defaults filled in (a `draw` left out is 1, section 19). */
function pointsOf(options: Record<string, unknown>, defaults: Points): Points {
  const set = options.points as Partial<Points> | undefined;
  return set ? { win: set.win ?? defaults.win, draw: set.draw ?? 1, loss: set.loss ?? defaults.loss } : defaults;
}

/** Builds one stage from its entries (in seed order): matches, played as asked, and standings. */
function buildStage(number: number, spec: StageSpec, entries: ViewTeam[], teams: Map<string, ViewTeam>): {
  stage: ViewStage;
  matches: ViewMatch[];
} {
  const o = spec.play ?? {};
  const options = { ...spec.options };
  const stage: ViewStage = {
    number,
    name: spec.name ?? `Stage ${number}`,
    format: spec.format,
    format_options: options,
    advance: spec.advance ?? null,
    status: "pending",
    team_count: null,
    started_at: null,
    completed_at: null,
    standings: [],
  };
  if (spec.pending) return { stage, matches: [] };
  const s = new StageBuilder(number, entries, 0x100 + number);
  let complete = false;
  if (spec.format === "ffa") {
    const built = buildFfa(number, 0x100 + number, entries, options, o);
    s.matches = built.matches as M[];
    stage.standings = built.standings;
    complete = built.complete;
  } else if (spec.format === "single_elimination" || spec.format === "double_elimination") {
    const double = spec.format === "double_elimination";
    if (double) buildDouble(s, entries, o);
    else buildSingle(s, entries, o);
    s.play(o, (m) => settleReset(s, m));
    stage.standings = eliminationStandings(s, teams, double);
    complete = s.matches.every((m) => m.status === "completed" || m.status === "bye");
  } else if (spec.format === "round_robin") {
    buildRoundRobin(s, entries, Number(options.groups ?? 1), o.bestOf ?? 1);
    s.play(o);
    stage.standings = roundRobinStandings(s, teams, pointsOf(options, { win: 3, draw: 1, loss: 0 }));
    complete = s.matches.every((m) => m.status === "completed");
  } else {
    const rounds = Number(options.rounds ?? Math.ceil(Math.log2(entries.length)));
    const limit = o.decide ?? Infinity;
    const points = pointsOf(options, options.draws === true ? { win: 3, draw: 1, loss: 0 } : { win: 1, draw: 0, loss: 0 });
    swissDraw(s, 1, o.bestOf ?? 1, points);
    for (let r = 1; r <= rounds; r++) {
      s.play({ ...o, decide: limit });
      const open = s.matches.some((m) => m.status === "ready");
      if (open || r === rounds) break;
      swissDraw(s, r + 1, o.bestOf ?? 1, points);
    }
    stage.standings = swissStandings(s, teams, points);
    complete = s.matches.every((m) => m.status !== "ready") && Math.max(...s.matches.map((m) => m.round)) === rounds;
  }
  if (o.schedule && spec.format !== "ffa") s.schedule();
  stage.status = complete ? "completed" : "ongoing";
  stage.team_count = entries.length;
  stage.started_at = "2027-03-01T17:00:00.000Z";
  stage.completed_at = complete ? "2027-03-02T22:00:00.000Z" : null;
  return { stage, matches: s.view() };
}

/** The qualifiers of a finished stage, in seed order for the next (tiers: every group's 1st, then 2nd, …). */
function qualifiers(stage: ViewStage, entries: ViewTeam[], teams: Map<string, ViewTeam>): ViewTeam[] {
  const adv = stage.advance ?? {};
  if (typeof adv.per_group === "number") {
    const n = adv.per_group;
    return stage.standings.filter((s) => (s.group_position ?? 0) <= n)
      .sort((x, y) => x.group_position! - y.group_position! || x.position - y.position || x.group! - y.group!)
      .map((s) => teams.get(s.team_id)!);
  }
  const top = Number(adv.top ?? entries.length);
  return stage.standings.filter((s) => s.position <= top).map((s) => teams.get(s.team_id)!).slice(0, top);
}

export interface EventSpec {
  teams: number | ViewTeam[];
  name?: string;
  stages: StageSpec[];
}

/** A whole public view: teams registered in order, every stage built (a pending stage stops the chain). */
export function buildView(spec: EventSpec): PublicView {
  const teamList = typeof spec.teams === "number" ? makeTeams(spec.teams) : spec.teams;
  const teams = new Map(teamList.map((t) => [t.id, t]));
  const registrations: ViewRegistration[] = teamList.map((t, i) => ({
    id: uuid(2, i + 1),
    tournament_id: uuid(3, 1),
    team_id: t.id,
    registered_at: new Date(Date.parse("2027-02-01T10:00:00Z") + i * 60_000).toISOString(),
    seed: null,
    checked_in_at: null,
    teams: t,
    lineup: Array.from({ length: 5 }, (_, k) => ({
      player_id: uuid(5, (i + 1) * 10 + k),
      handle: `${t.tag.toLowerCase()}_${["ace", "blaze", "echo", "nova", "vex"][k]}`,
      country: k % 2 ? "SE" : null,
      role: "player" as const,
      captain: k === 0,
    })),
    state: "accepted" as const,
    disqualified_at: null,
  }));
  const stages: ViewStage[] = [];
  const matches: ViewMatch[] = [];
  let entries = teamList;
  let open = false;
  spec.stages.forEach((st, i) => {
    const built = buildStage(i + 1, { ...st, pending: st.pending || open }, entries, teams);
    stages.push(built.stage);
    matches.push(...built.matches);
    if (built.stage.status !== "completed") open = true;
    else entries = qualifiers(built.stage, entries, teams);
  });
  const started = stages.filter((s) => s.status !== "pending");
  const last = stages[stages.length - 1];
  const status = started.length === 0 ? "registration" : last.status === "completed" ? "completed" : "ongoing";
  return {
    tournament: {
      id: uuid(3, 1),
      name: spec.name ?? "Spring Cup 2027",
      slug: "spring-cup-2027-x7k2q9",
      description: "",
      game_id: uuid(4, 1),
      status,
      format: stages[0].format,
      format_options: stages[0].format_options,
      stages: stages.map((s) => ({ name: s.name, format: s.format, format_options: s.format_options, advance: s.advance })),
      team_size: 5,
      substitutes_max: 0,
      lineups: "off",
      max_teams: teamList.length,
      approval: false,
      waitlist: false,
      participant_reporting: "off",
      report_confirm_minutes: 15,
      entry_fee: 0,
      prize_pool: 0,
      starts_at: "2027-03-01T17:00:00.000Z",
      registration_closes: "2027-03-01T16:00:00.000Z",
      check_in_opens: null,
      rules: "",
      visibility: "public",
      created_at: "2027-01-15T10:00:00.000Z",
      updated_at: "2027-01-15T10:00:00.000Z",
      version: 1 + matches.length,
    },
    stages,
    registrations,
    matches: matches.sort((x, y) => x.stage - y.stage || x.round - y.round || x.position - y.position),
    standings: started.length ? started[started.length - 1].standings : [],
  };
}

// Shorthands for one-stage events.
export const single = (n: number, play: BracketOptions = {}, third = false) =>
  buildView({ teams: n, stages: [{ format: "single_elimination", options: { third_place_match: third }, play: { ...play, third } }] });
export const double = (n: number, play: BracketOptions = {}, grandFinal: "single" | "reset" = "reset") =>
  buildView({ teams: n, stages: [{ format: "double_elimination", options: { grand_final: grandFinal }, play: { ...play, grandFinal } }] });
export const roundRobin = (n: number, groups: number, play: BracketOptions = {}) =>
  buildView({ teams: n, stages: [{ format: "round_robin", options: { groups, points: { win: 3, loss: 0 } }, play }] });
export const swiss = (n: number, play: BracketOptions = {}, rounds?: number) =>
  buildView({ teams: n, stages: [{ format: "swiss", options: rounds ? { rounds } : {}, play }] });
/** A free-for-all stage (format_options as sent; the defaults of contract section 20 fill the rest). */
export const ffa = (n: number, options: Record<string, unknown> = {}, play: FfaPlay = {}) =>
  buildView({ teams: n, name: "Battle Royale Scrims", stages: [{ format: "ffa", options, play }] });
export const registration = (n: number, format: Format = "single_elimination") =>
  buildView({ teams: n, stages: [{ format, pending: true }] });

/**
 * Gives ready match `m` an open participants' report (contract section 18) as the database
 * writes it: team 1 reported a 2–0 win (a series score on a best of n), and, when `disputed`,
 * team 2 disputed it. The match itself stays as it was: ready, no score, no winner.
 */
export function withReport(m: ViewMatch, state: "awaiting_confirmation" | "disputed"): ViewMatch {
  if (m.status !== "ready") throw new Error(`only a ready match takes a report (this one is ${m.status})`);
  const need = ((m.best_of ?? 1) + 1) / 2;
  const entry = (
    result: Record<string, unknown> | null,
    dispute: { note: string | null; evidence_url: string | null; at: string } | null,
  ) => ({
    result,
    evidence_url: result ? "https://example.com/scoreboard.png" : null,
    note: null,
    reported_at: result ? "2027-03-01T18:40:00.000Z" : null,
    dispute,
  });
  m.report = {
    state,
    team1: entry({ team1_score: need, team2_score: 0 }, null),
    team2: state === "disputed"
      ? entry(null, { note: "They played a substitute", evidence_url: null, at: "2027-03-01T18:45:00.000Z" })
      : null,
    confirm_by: state === "awaiting_confirmation" ? "2027-03-01T18:55:00.000Z" : null,
    resolved_by: null,
    note: null,
  };
  return m;
}

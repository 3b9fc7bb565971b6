// An oracle for free-for-all (contract section 20, with section 19's separated_by), written from
// the contract alone: the options with their defaults, placement points from their ranges, the
// snake deal into lobbies, a game's points, a lobby's table (placement by the lobby's points,
// ties by the tie-breakers over the lobby's games, then seed), a stage's standings with every
// tie-breaker and what separated each entry from the one above, and the order a round is dealt
// again from (draw "standings"). Pure functions: no API calls; the tests feed it the games they
// reported and compare its answers with the API's.

/** The tie-breakers a free-for-all stage may list (section 20); seed always ends the order. */
export const FFA_TIE_BREAKERS = ["first_places", "best_placement", "kills", "last_game"] as const;
export type FfaTieBreaker = (typeof FFA_TIE_BREAKERS)[number];
/** What separated_by may name in a free-for-all stage. */
export type FfaCriterion = "points" | FfaTieBreaker | "seed";

/** A free-for-all stage's options with every default filled in. */
export interface FfaOptions {
  lobby_size: number;
  games: number;
  rounds: number;
  draw: "seed" | "standings";
  placement_points: Record<string, number>;
  kill_points: number;
  tie_breakers: FfaTieBreaker[];
}

/** Section 20's defaults, under the fields given. */
export function ffaOptionsOf(given: Partial<FfaOptions> = {}): FfaOptions {
  return {
    lobby_size: given.lobby_size ?? 20,
    games: given.games ?? 1,
    rounds: given.rounds ?? 1,
    draw: given.draw ?? "seed",
    placement_points: given.placement_points ?? { 1: 10, 2: 6, 3: 5, 4: 4, 5: 3, 6: 2, 7: 1, 8: 1 },
    kill_points: given.kill_points ?? 1,
    tie_breakers: given.tie_breakers ?? ["first_places", "kills", "last_game"],
  };
}

/**
 * placement_points as a function: a key "n" names placement n, "a-b" placements a to b; a
 * placement no key names scores 0. Ranges do not overlap (the API refuses it), so the first key
 * that covers a placement is the only one.
 */
export function placementPointsOf(spec: Record<string, number>): (placement: number) => number {
  const ranges = Object.entries(spec).map(([key, points]) => {
    const [a, b] = key.split("-").map(Number);
    return { from: a, to: b ?? a, points };
  });
  return (p) => ranges.find((r) => r.from <= p && p <= r.to)?.points ?? 0;
}

/**
 * The snake deal: N teams (in dealing order) into L = ceil(N / lobbySize) lobbies; the 1st goes
 * to lobby 1, the 2nd to lobby 2, …, the L-th to lobby L, the (L+1)-th to lobby L again, back to
 * lobby 1, and so on. Returns the lobbies in number order, each with its teams in dealing order.
 */
export function deal<T>(order: T[], lobbySize: number): T[][] {
  const count = Math.ceil(order.length / lobbySize);
  const lobbies: T[][] = Array.from({ length: count }, () => []);
  let lobby = 0;
  let step = 1;
  for (const team of order) {
    lobbies[lobby].push(team);
    // At either end the snake stays put for one team, then turns.
    if (lobby + step < 0 || lobby + step >= count) step = -step;
    else lobby += step;
  }
  return lobbies;
}

/** One team's line of a reported game. */
export interface GameLine {
  team_id: string;
  placement: number;
  kills: number;
}

/** A game as reported: where it was played (round, lobby number), its number and its lines. */
export interface PlayedGame {
  round: number;
  lobby: number;
  number: number;
  results: GameLine[];
}

/** A game's points for one line: the placement's points plus kill_points per kill. */
export function gamePoints(options: FfaOptions, line: { placement: number; kills: number }): number {
  return placementPointsOf(options.placement_points)(line.placement) + options.kill_points * line.kills;
}

/** A game's lines as the API shows them: in placement order, each with its points. */
export function gameRows(options: FfaOptions, results: GameLine[]) {
  return [...results].sort((a, b) => a.placement - b.placement).map((l) => ({ ...l, points: gamePoints(options, l) }));
}

/** A team's record over a set of games: everything the criteria read. */
export interface FfaTally {
  team_id: string;
  seed: number;
  points: number;
  kills: number;
  first_places: number;
  games_played: number;
  best_placement: number | null;
  /** Its placement in its most recent game (highest round, then game number); null before a game. */
  last_game: number | null;
  lastAt: [number, number] | null;
}

/** Each team's record over `games` (teams that played none keep zeros and nulls). */
export function tallies(options: FfaOptions, teams: { team_id: string; seed: number }[], games: PlayedGame[]): FfaTally[] {
  const rows = new Map<string, FfaTally>(teams.map((t) => [t.team_id, {
    team_id: t.team_id,
    seed: t.seed,
    points: 0,
    kills: 0,
    first_places: 0,
    games_played: 0,
    best_placement: null,
    last_game: null,
    lastAt: null,
  }]));
  for (const g of games) {
    for (const line of g.results) {
      const t = rows.get(line.team_id);
      if (!t) throw new Error(`oracle: team ${line.team_id} of a game is not among the teams`);
      t.points += gamePoints(options, line);
      t.kills += line.kills;
      t.games_played++;
      if (line.placement === 1) t.first_places++;
      if (t.best_placement === null || line.placement < t.best_placement) t.best_placement = line.placement;
      const later = t.lastAt === null || g.round > t.lastAt[0] || (g.round === t.lastAt[0] && g.number > t.lastAt[1]);
      if (later) {
        t.lastAt = [g.round, g.number];
        t.last_game = line.placement;
      }
    }
  }
  return [...rows.values()];
}

/**
 * A criterion's value, larger ranks higher: points, first_places and kills as they are;
 * best_placement and last_game negated (a lower placement ranks higher), with no placement
 * (no game yet) below every placement.
 */
export function valueOf(c: "points" | FfaTieBreaker, t: FfaTally): number {
  switch (c) {
    case "points":
      return t.points;
    case "first_places":
      return t.first_places;
    case "kills":
      return t.kills;
    case "best_placement":
      return t.best_placement === null ? -Infinity : -t.best_placement;
    case "last_game":
      return t.last_game === null ? -Infinity : -t.last_game;
  }
}

/** A team in a ranking, with its position (1-based) and what separated it from the one above. */
export interface FfaRanked {
  tally: FfaTally;
  position: number;
  separated_by: FfaCriterion | null;
}

/**
 * Ranks teams: points, then the tie-breakers in order, then seed (so positions are never shared).
 * separated_by: the first criterion on which an entry differs from the one above ("seed" when
 * none does), null for the first.
 */
export function rank(rows: FfaTally[], tieBreakers: FfaTieBreaker[]): FfaRanked[] {
  const criteria: ("points" | FfaTieBreaker)[] = ["points", ...tieBreakers];
  const values = new Map(rows.map((t) => [t.team_id, criteria.map((c) => valueOf(c, t))]));
  const sorted = [...rows].sort((a, b) => {
    const [va, vb] = [values.get(a.team_id)!, values.get(b.team_id)!];
    for (let i = 0; i < va.length; i++) if (va[i] !== vb[i]) return va[i] > vb[i] ? -1 : 1;
    return a.seed - b.seed;
  });
  return sorted.map((tally, i) => {
    if (i === 0) return { tally, position: 1, separated_by: null };
    const [v, above] = [values.get(tally.team_id)!, values.get(sorted[i - 1].team_id)!];
    const at = v.findIndex((x, j) => x !== above[j]);
    return { tally, position: i + 1, separated_by: at < 0 ? "seed" : criteria[at] };
  });
}

/** A standings entry as the oracle computes it (the fields section 20's entries carry). */
export interface FfaStanding {
  position: number;
  team_id: string;
  seed: number;
  points: number;
  kills: number;
  first_places: number;
  games_played: number;
  best_placement: number | null;
  separated_by: FfaCriterion | null;
}

/** A stage's standings over every game reported in it (all rounds, all lobbies). */
export function standings(options: FfaOptions, teams: { team_id: string; seed: number }[], games: PlayedGame[]): FfaStanding[] {
  return rank(tallies(options, teams, games), options.tie_breakers).map(({ tally: t, position, separated_by }) => ({
    position,
    team_id: t.team_id,
    seed: t.seed,
    points: t.points,
    kills: t.kills,
    first_places: t.first_places,
    games_played: t.games_played,
    best_placement: t.best_placement,
    separated_by,
  }));
}

/** A lobby's line as the oracle computes it (a lobby's `opponents`, section 20). */
export interface FfaOpponent {
  team_id: string;
  seed: number;
  placement: number | null;
  kills: number;
  points: number;
}

/**
 * A lobby's table: its teams ranked by the lobby's total points, ties broken by the stage's
 * tie-breakers computed over the lobby's games only, then seed; placement is that rank. Before
 * the lobby's first game: by seed, placement null, kills 0, points 0.
 */
export function lobbyTable(options: FfaOptions, teams: { team_id: string; seed: number }[], games: PlayedGame[]): FfaOpponent[] {
  if (games.length === 0) {
    return [...teams].sort((a, b) => a.seed - b.seed).map((t) => ({
      team_id: t.team_id,
      seed: t.seed,
      placement: null,
      kills: 0,
      points: 0,
    }));
  }
  return rank(tallies(options, teams, games), options.tie_breakers).map(({ tally: t, position }) => ({
    team_id: t.team_id,
    seed: t.seed,
    placement: position,
    kills: t.kills,
    points: t.points,
  }));
}

/** A lobby's status and winner: completed (won by the team placed first) once all its games are in. */
export function lobbyOutcome(options: FfaOptions, teams: { team_id: string; seed: number }[], games: PlayedGame[]) {
  const done = games.length === options.games;
  return { status: done ? "completed" : "ready", winner_id: done ? lobbyTable(options, teams, games)[0].team_id : null };
}

/**
 * The order a round is dealt from: the seeds (round 1, and every round with draw "seed"), or the
 * stage's standings over the games so far (draw "standings", rounds after the first).
 */
export function dealOrder(
  options: FfaOptions,
  round: number,
  teams: { team_id: string; seed: number }[],
  gamesSoFar: PlayedGame[],
): string[] {
  if (round === 1 || options.draw === "seed") return [...teams].sort((a, b) => a.seed - b.seed).map((t) => t.team_id);
  return standings(options, teams, gamesSoFar).map((s) => s.team_id);
}

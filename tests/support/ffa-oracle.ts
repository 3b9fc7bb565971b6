// Free-for-all (contract section 20), written from the contract alone: placement points from a
// table of placements and ranges, snake-order dealing, a game's points, and the ranking of a lobby
// or a stage (points, then the tie-breakers, then seed; disqualified teams last in a stage) with
// separated_by (section 19). Pure: no database, no import of the implementation.

export const FFA_TIE_BREAKERS = ["first_places", "best_placement", "kills", "last_game"] as const;
export type FfaTieBreaker = (typeof FFA_TIE_BREAKERS)[number];

/** The points of a placement under `table` ({"1": 10, "2-3": 5, …}): 0 when no entry names it. */
export function placementPoints(table: Record<string, number>, placement: number): number {
  for (const [key, points] of Object.entries(table)) {
    const [a, b = a] = key.split("-").map(Number);
    if (placement >= a && placement <= b) return points;
  }
  return 0;
}

/** A game's points for a team: its placement's points plus kill_points per kill. */
export function gamePoints(table: Record<string, number>, killPoints: number, placement: number, kills: number): number {
  return placementPoints(table, placement) + killPoints * kills;
}

/** Deals `order` (team ids, first = seed 1 or standing 1) into ceil(N / size) lobbies in snake order. */
export function deal(order: string[], size: number): string[][] {
  const count = Math.ceil(order.length / size);
  const lobbies: string[][] = Array.from({ length: count }, () => []);
  order.forEach((team, i) => {
    const pass = Math.floor(i / count);
    const k = pass % 2 === 0 ? i % count : count - 1 - (i % count);
    lobbies[k].push(team);
  });
  return lobbies;
}

/** One team's game: its round, the game's number, placement, kills and points. */
export interface PlayedGame {
  round: number;
  number: number;
  placement: number;
  kills: number;
  points: number;
}

export interface Ranked {
  team_id: string;
  seed: number;
  disqualified: boolean;
  points: number;
  kills: number;
  first_places: number;
  best_placement: number | null;
  last_game: number | null;
  games_played: number;
  position: number;
  separated_by: string | null;
}

/**
 * Ranks teams by their games: disqualified last, then points (more first), then each tie-breaker in
 * order (first_places more first; best_placement lower first; kills more first; last_game, the
 * placement in the team's latest game by round then number, lower first; a team without a game
 * has neither placement and comes after those with one), then seed. separated_by: the first of
 * "points", the tie-breakers, "seed" on which an entry differs from the one above; "disqualified"
 * for the first disqualified entry; null for the first.
 */
export function rank(
  teams: { team_id: string; seed: number; games: PlayedGame[]; disqualified?: boolean }[],
  tieBreakers: readonly FfaTieBreaker[],
): Ranked[] {
  const records = teams.map((t) => {
    const latest = [...t.games].sort((a, b) => b.round - a.round || b.number - a.number)[0];
    return {
      team_id: t.team_id,
      seed: t.seed,
      disqualified: t.disqualified ?? false,
      points: t.games.reduce((s, g) => s + g.points, 0),
      kills: t.games.reduce((s, g) => s + g.kills, 0),
      first_places: t.games.filter((g) => g.placement === 1).length,
      best_placement: t.games.length ? Math.min(...t.games.map((g) => g.placement)) : null,
      last_game: latest ? latest.placement : null,
      games_played: t.games.length,
    };
  });
  // Each criterion as a number where larger is better.
  const value = (r: (typeof records)[number], c: "points" | FfaTieBreaker): number => {
    switch (c) {
      case "points":
        return r.points;
      case "first_places":
        return r.first_places;
      case "kills":
        return r.kills;
      case "best_placement":
        return r.best_placement === null ? -Infinity : -r.best_placement;
      case "last_game":
        return r.last_game === null ? -Infinity : -r.last_game;
    }
  };
  const criteria: ("points" | FfaTieBreaker)[] = ["points", ...tieBreakers];
  const sorted = [...records].sort((a, b) => {
    if (a.disqualified !== b.disqualified) return a.disqualified ? 1 : -1;
    for (const c of criteria) {
      const d = value(b, c) - value(a, c);
      if (d !== 0 && !Number.isNaN(d)) return d;
    }
    return a.seed - b.seed;
  });
  return sorted.map((r, i) => {
    const above = sorted[i - 1];
    let separated: string | null = null;
    if (above) {
      if (above.disqualified !== r.disqualified) separated = "disqualified";
      else separated = criteria.find((c) => value(above, c) !== value(r, c)) ?? "seed";
    }
    return { ...r, position: i + 1, separated_by: separated };
  });
}

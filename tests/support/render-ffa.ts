// A free-for-all stage (contract section 20) for the bracket renderer's tests, laid out as
// 14_free_for_all.sql lays it out (/tmp/ffa/shape.md): N teams dealt in snake order into
// ceil(N / lobby_size) lobbies, every round from seeds (draw "seed": all rounds at the start) or
// each round after the first from the standings so far (draw "standings": a round appears when the
// one before completes); a lobby is a match with `opponents` (by placement, by seed before a game)
// and games of placements and kills; the standings by points, the tie-breakers, then seed.
import type { ViewLobbyGame, ViewMatch, ViewStanding, ViewTeam } from "../../functions/api/render/view.ts";
import { mulberry32 } from "./random.ts";

export const FFA_DEFAULTS = {
  lobby_size: 20,
  games: 1,
  rounds: 1,
  draw: "seed",
  placement_points: { "1": 10, "2": 6, "3": 5, "4": 4, "5": 3, "6": 2, "7": 1, "8": 1 } as Record<string, number>,
  kill_points: 1,
  tie_breakers: ["first_places", "kills", "last_game"],
};

export interface FfaPlay {
  /** How many lobby games to report (default: all), round by round, game by game, lobby by lobby. */
  decide?: number;
  seed?: number;
  /** Sets scheduled times (round r at 18:00 + r - 1 hours). */
  schedule?: boolean;
}

interface Totals {
  team: ViewTeam;
  seed: number;
  points: number;
  kills: number;
  first_places: number;
  games_played: number;
  best_placement: number | null;
  /** [round, game, placement] of the team's most recent game. */
  last: [number, number, number] | null;
}

type Key = "points" | "first_places" | "best_placement" | "kills" | "last_game" | "seed";

/** The value ordered on (lower ranks higher) for `key`. */
function keyOf(r: Totals, key: Key): number {
  switch (key) {
    case "points":
      return -r.points;
    case "first_places":
      return -r.first_places;
    case "kills":
      return -r.kills;
    case "best_placement":
      return r.best_placement ?? Infinity;
    case "last_game":
      return r.last ? r.last[2] : Infinity;
    case "seed":
      return r.seed;
  }
}

function uuid(kind: number, n: number): string {
  return `${kind.toString(16).padStart(8, "0")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

const empty = (team: ViewTeam, seed: number): Totals => ({
  team,
  seed,
  points: 0,
  kills: 0,
  first_places: 0,
  games_played: 0,
  best_placement: null,
  last: null,
});

function add(r: Totals, round: number, game: number, placement: number, kills: number, points: number): void {
  r.points += points;
  r.kills += kills;
  r.games_played++;
  if (placement === 1) r.first_places++;
  r.best_placement = r.best_placement === null ? placement : Math.min(r.best_placement, placement);
  if (!r.last || round > r.last[0] || (round === r.last[0] && game >= r.last[1])) r.last = [round, game, placement];
}

/** Builds a free-for-all stage from its entries (in seed order). */
export function buildFfa(number: number, idBase: number, entries: ViewTeam[], options: Record<string, unknown>, play: FfaPlay): {
  matches: ViewMatch[];
  standings: ViewStanding[];
  complete: boolean;
} {
  const o = { ...FFA_DEFAULTS, ...options } as typeof FFA_DEFAULTS;
  const keys: Key[] = ["points", ...o.tie_breakers as Key[], "seed"];
  const order = (a: Totals, b: Totals) => {
    for (const k of keys) if (keyOf(a, k) !== keyOf(b, k)) return keyOf(a, k) - keyOf(b, k);
    return 0;
  };
  const pointsFor = (placement: number) => {
    for (const [k, v] of Object.entries(o.placement_points)) {
      const [a, b] = k.split("-").map(Number);
      if (placement >= a && placement <= (b ?? a)) return v;
    }
    return 0;
  };
  const random = mulberry32(play.seed ?? 7);
  const limit = play.decide ?? Infinity;
  const stage = new Map(entries.map((t, i) => [t.id, empty(t, i + 1)]));
  const matches: ViewMatch[] = [];
  let clock = Date.parse("2027-03-01T17:00:00Z");
  let decided = 0;

  const deal = (round: number, teams: ViewTeam[]) => {
    const count = Math.ceil(teams.length / o.lobby_size);
    const lobbies: ViewTeam[][] = Array.from({ length: count }, () => []);
    teams.forEach((t, i) => lobbies[Math.floor(i / count) % 2 === 0 ? i % count : count - 1 - (i % count)].push(t));
    return lobbies.map((list, k): ViewMatch => ({
      id: uuid(idBase, matches.length + k + 1),
      stage: number,
      bracket: null,
      group: null,
      round,
      position: k + 1,
      team1_id: null,
      team2_id: null,
      team1_seed: null,
      team2_seed: null,
      team1_score: null,
      team2_score: null,
      winner_id: null,
      draw: false,
      status: "ready",
      forfeit: null,
      best_of: null,
      games: [],
      next_match_id: null,
      loser_next_match_id: null,
      scheduled_at: play.schedule ? new Date(Date.parse("2027-03-01T18:00:00Z") + (round - 1) * 3_600_000).toISOString() : null,
      completed_at: null,
      report: null,
      opponents: list.map((t) => stage.get(t.id)!).sort((a, b) => a.seed - b.seed).map((r) => ({
        team_id: r.team.id,
        team_name: r.team.name,
        team_tag: r.team.tag,
        seed: r.seed,
        placement: null,
        kills: 0,
        points: 0,
      })),
    }));
  };
  const standingsOrder = () => [...stage.values()].sort(order).map((r) => r.team);

  /** Reports game `g` of lobby `m`: a random order leaning to the better seeds, kills 0-8. */
  const report = (m: ViewMatch, g: number) => {
    clock += 20 * 60_000;
    const teams = m.opponents!.map((op) => ({ id: op.team_id, w: random() * 3 + op.seed / entries.length }))
      .sort((a, b) => a.w - b.w);
    const results = teams.map((t, i) => {
      const kills = Math.floor(random() * 9);
      return { team_id: t.id, placement: i + 1, kills, points: pointsFor(i + 1) + o.kill_points * kills };
    });
    (m.games as ViewLobbyGame[]).push({ number: g, results, reported_at: new Date(clock).toISOString() });
    for (const r of results) add(stage.get(r.team_id)!, m.round, g, r.placement, r.kills, r.points);
    // The lobby's own ranking: its games alone, the same criteria.
    const lobby = new Map(m.opponents!.map((op) => [op.team_id, empty(stage.get(op.team_id)!.team, op.seed)]));
    for (const game of m.games as ViewLobbyGame[]) {
      for (const r of game.results) add(lobby.get(r.team_id)!, m.round, game.number, r.placement, r.kills, r.points);
    }
    m.opponents = [...lobby.values()].sort(order).map((r, i) => ({
      team_id: r.team.id,
      team_name: r.team.name,
      team_tag: r.team.tag,
      seed: r.seed,
      placement: i + 1,
      kills: r.kills,
      points: r.points,
    }));
    if (g === o.games) {
      m.status = "completed";
      m.winner_id = m.opponents[0].team_id;
      m.completed_at = new Date(clock).toISOString();
    }
    decided++;
  };

  let complete = false;
  for (let r = 1; r <= o.rounds; r++) {
    // Draw "seed": round 1's lobbies again in every round, all dealt at the start.
    const lobbies = r === 1 || o.draw !== "seed" ? deal(r, r === 1 ? entries : standingsOrder()) : [];
    matches.push(...lobbies);
    if (o.draw === "seed" && r === 1) {
      for (let k = 2; k <= o.rounds; k++) {
        matches.push(...lobbies.map((m, i) => ({
          ...structuredClone(m),
          id: uuid(idBase, matches.length + i + 1),
          round: k,
          scheduled_at: play.schedule ? new Date(Date.parse("2027-03-01T18:00:00Z") + (k - 1) * 3_600_000).toISOString() : null,
        })));
      }
    }
    const round = matches.filter((m) => m.round === r);
    for (let g = 1; g <= o.games; g++) {
      for (const m of round) if (decided < limit) report(m, g);
    }
    if (round.some((m) => m.status !== "completed")) break;
    if (r === o.rounds) complete = true;
  }

  const ranked = [...stage.values()].sort(order);
  const standings = ranked.map((r, i): ViewStanding => ({
    position: i + 1,
    team_id: r.team.id,
    team_name: r.team.name,
    team_tag: r.team.tag,
    disqualified: false,
    points: r.points,
    kills: r.kills,
    first_places: r.first_places,
    games_played: r.games_played,
    best_placement: r.best_placement,
    separated_by: i === 0 ? null : keys.find((k) => keyOf(ranked[i - 1], k) !== keyOf(r, k)) ?? "seed",
  }));
  return { matches, standings, complete };
}

// Shared by tests/ffa/contract-*.test.ts (contract section 20, written from the contract alone):
// an event of lettered teams (A = seed 1, B = seed 2, …), a lobby's game written as a compact
// script ("C:2 A B:1": C placed 1st with 2 kills, A 2nd with none, B 3rd with 1), the snake deal
// and an independent model of placement points and the standings' order to compute expectations.
import { expect } from "vitest";
import { type ApiResponse, type Call, createTeams, expectStatus, startedTournament, type Tenant } from "../support/helpers.ts";

/** The ffa options as GET shows them with nothing given (contract section 20). */
export const FFA_DEFAULTS = {
  lobby_size: 20,
  games: 1,
  rounds: 1,
  draw: "seed",
  placement_points: { "1": 10, "2": 6, "3": 5, "4": 4, "5": 3, "6": 2, "7": 1, "8": 1 },
  kill_points: 1,
  tie_breakers: ["first_places", "kills", "last_game"],
};

export interface Event {
  t: Tenant;
  call: Call;
  id: string;
  /** teams[i] is seed i + 1. */
  teams: string[];
  /** The platform names and tags the teams were made with, by id. */
  names: Map<string, { name: string; tag: string }>;
  team: (label: string) => string;
  label: (teamId: string) => string;
}

/** A = seed 1 … Z = seed 26, then a = seed 27 …. */
export const labelOf = (i: number) => String.fromCharCode(i < 26 ? 65 + i : 97 + i - 26);

/** A tournament made of `fields` with `n` fresh teams registered in seed order (A = seed 1), started. */
export async function event(fields: Record<string, unknown>, n: number): Promise<Event> {
  const prefix = `Ffa${crypto.randomUUID().slice(0, 8)}`;
  const teams = await createTeams(n, prefix);
  const { t, call, id } = await startedTournament(fields, teams);
  const labels = new Map(teams.map((team, i) => [team, labelOf(i)]));
  const names = new Map(teams.map((team, i) => [team, { name: `${prefix} ${String(i + 1).padStart(4, "0")}`, tag: `T${i + 1}` }]));
  return {
    t,
    call,
    id,
    teams,
    names,
    team: (l) => {
      const i = l.charCodeAt(0) < 97 ? l.charCodeAt(0) - 65 : l.charCodeAt(0) - 97 + 26;
      if (!teams[i]) throw new Error(`no team ${l}`);
      return teams[i];
    },
    label: (teamId) => labels.get(teamId) ?? `?${teamId}`,
  };
}

export const ffa = (format_options: Record<string, unknown> = {}) => ({ format: "ffa", format_options });

export interface Opponent {
  team_id: string;
  team_name: string;
  team_tag: string;
  seed: number;
  placement: number | null;
  kills: number;
  points: number;
}

export interface Lobby {
  id: string;
  stage: number;
  round: number;
  position: number;
  status: string;
  winner_id: string | null;
  completed_at: string | null;
  best_of: number | null;
  opponents: Opponent[];
  games: { number: number; results: { team_id: string; placement: number; kills: number; points: number }[]; reported_at: string }[];
  // deno-lint-ignore no-explicit-any
  [k: string]: any;
}

export interface Results {
  tournament: { id: string; format: string; status: string; version: number; stage?: number };
  matches: Lobby[];
  // deno-lint-ignore no-explicit-any
  standings: any[];
}

/** GET …/results (`query` such as "?stage=1"), 200 expected. */
export async function results(ev: Event, query = ""): Promise<Results> {
  const res = await ev.call("GET", `/tournaments/${ev.id}/results${query}`);
  expectStatus(res, 200);
  return res.body.data;
}

/** The lobbies of a round (of `stage` when given), by position. */
export function lobbiesOf(matches: Lobby[], round: number, stage?: number): Lobby[] {
  return matches.filter((m) => m.round === round && (stage === undefined || m.stage === stage)).sort((a, b) => a.position - b.position);
}

/** The lobby's teams as a sorted string of labels, e.g. "ADE". */
export function teamsOf(ev: Event, lobby: Lobby): string {
  return lobby.opponents.map((o) => ev.label(o.team_id)).sort().join("");
}

/**
 * The snake deal of contract section 20: `order` (seeds or standings, best first) into
 * ceil(N / size) lobbies; 1 to lobby 1, 2 to lobby 2, …, then back.
 */
export function snake<T>(order: T[], size: number): T[][] {
  const l = Math.ceil(order.length / size);
  const lobbies: T[][] = Array.from({ length: l }, () => []);
  order.forEach((x, i) => {
    const pass = Math.floor(i / l);
    const k = pass % 2 === 0 ? i % l : l - 1 - (i % l);
    lobbies[k].push(x);
  });
  return lobbies;
}

/** A game script's body: "C:2 A B:1" → results in placement order. */
export function gameBody(ev: Event, script: string): { results: { team_id: string; placement: number; kills: number }[] } {
  return {
    results: script.trim().split(/\s+/).map((entry, i) => {
      const [l, k] = entry.split(":");
      return { team_id: ev.team(l), placement: i + 1, kills: Number(k ?? 0) };
    }),
  };
}

/** PUT a lobby's game `number` from a script; returns the answer (status not checked). */
export function putGame(
  ev: Event,
  lobby: Lobby | string,
  number: number,
  body: unknown,
  headers?: Record<string, string>,
): Promise<ApiResponse> {
  const id = typeof lobby === "string" ? lobby : lobby.id;
  return ev.call("PUT", `/tournaments/${ev.id}/matches/${id}/games/${number}`, { body, headers });
}

/** PUT a game from a script, 200 expected; returns the lobby as the answer shows it. */
export async function game(ev: Event, lobby: Lobby | string, number: number, script: string): Promise<Lobby> {
  const res = await putGame(ev, lobby, number, gameBody(ev, script));
  expectStatus(res, 200);
  return res.body.data;
}

// --- an independent model of the scoring (contract section 20) ---------------------------------

/** Placement points from a table such as {"1": 10, "2-3": 6}: an unnamed placement scores 0. */
export function placementPoints(table: Record<string, number>, placement: number): number {
  for (const [key, pts] of Object.entries(table)) {
    const [a, b] = key.split("-").map(Number);
    if (placement >= a && placement <= (b ?? a)) return pts;
  }
  return 0;
}

export interface Tally {
  label: string;
  seed: number;
  points: number;
  kills: number;
  first_places: number;
  games_played: number;
  best_placement: number | null;
  /** [round, game number, placement] of the team's most recent game. */
  last: [number, number, number] | null;
}

export interface Scoring {
  placement_points: Record<string, number>;
  kill_points: number;
  tie_breakers: string[];
}

/** Sums played games ({round, number, script}) into one tally per label; `seeds` maps label → seed. */
export function tally(
  scoring: Scoring,
  seeds: Record<string, number>,
  played: { round: number; number: number; script: string }[],
): Tally[] {
  const by = new Map<string, Tally>(
    Object.entries(seeds).map((
      [label, seed],
    ) => [label, { label, seed, points: 0, kills: 0, first_places: 0, games_played: 0, best_placement: null, last: null }]),
  );
  for (const g of played) {
    g.script.trim().split(/\s+/).forEach((entry, i) => {
      const [l, k] = entry.split(":");
      const t = by.get(l)!;
      const placement = i + 1;
      const kills = Number(k ?? 0);
      t.points += placementPoints(scoring.placement_points, placement) + scoring.kill_points * kills;
      t.kills += kills;
      t.games_played += 1;
      if (placement === 1) t.first_places += 1;
      t.best_placement = t.best_placement === null ? placement : Math.min(t.best_placement, placement);
      if (!t.last || g.round > t.last[0] || (g.round === t.last[0] && g.number > t.last[1])) t.last = [g.round, g.number, placement];
    });
  }
  return [...by.values()];
}

/** The value of one criterion, oriented so that smaller ranks higher. */
function key(t: Tally, criterion: string): number {
  switch (criterion) {
    case "points":
      return -t.points;
    case "first_places":
      return -t.first_places;
    case "kills":
      return -t.kills;
    case "best_placement":
      return t.best_placement ?? Number.MAX_SAFE_INTEGER;
    case "last_game":
      return t.last ? t.last[2] : Number.MAX_SAFE_INTEGER;
    case "seed":
      return t.seed;
  }
  throw new Error(criterion);
}

/** Ranks tallies: points, the tie-breakers, then seed; each with the criterion that separated it from the one above. */
export function rank(scoring: Scoring, tallies: Tally[]): { label: string; separated_by: string | null; t: Tally }[] {
  const criteria = ["points", ...scoring.tie_breakers, "seed"];
  const sorted = [...tallies].sort((a, b) => {
    for (const c of criteria) {
      const d = key(a, c) - key(b, c);
      if (d !== 0) return d;
    }
    return 0;
  });
  return sorted.map((t, i) => ({
    label: t.label,
    t,
    separated_by: i === 0 ? null : criteria.find((c) => key(t, c) !== key(sorted[i - 1], c)) ?? null,
  }));
}

/** Standing rows [label, position, points, kills, first_places, games_played, separated_by]. */
export function rows(ev: Event, standings: { team_id: string }[]): unknown[][] {
  // deno-lint-ignore no-explicit-any
  return standings.map((s: any) => [ev.label(s.team_id), s.position, s.points, s.kills, s.first_places, s.games_played, s.separated_by]);
}

/** The model's rows, for comparison with rows(). */
export function modelRows(ranked: ReturnType<typeof rank>): unknown[][] {
  return ranked.map((r, i) => [r.label, i + 1, r.t.points, r.t.kills, r.t.first_places, r.t.games_played, r.separated_by]);
}

/** Asserts a 400 validation_error whose details name a field starting with one of `prefixes`. */
export function expectInvalid(res: ApiResponse, prefixes: string[], ctx = ""): void {
  expect(res.status, `${ctx}: ${res.text}`).toBe(400);
  expect(res.body?.error?.code, `${ctx}: ${res.text}`).toBe("validation_error");
  const fields: string[] = (res.body.error.details ?? []).map((d: { field: string }) => d.field);
  expect(fields.some((f) => prefixes.some((p) => f === p || f.startsWith(p + ".") || f.startsWith(p + "["))), `${ctx}: ${res.text}`).toBe(
    true,
  );
}

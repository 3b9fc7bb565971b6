// Shared by tests/scoring/contract-*.test.ts (contract section 19, written from the contract
// alone): a league of lettered teams (A = seed 1, B = seed 2, …, names sorting by seed), results
// written as a compact script ("A 2-1 B": A scored 2, B 1; "A ff B": A forfeits against B), and
// standings read back as rows of letters.
import { expect } from "vitest";
import {
  type ApiResponse,
  type Call,
  createKey,
  createTeams,
  expectStatus,
  type Match,
  request,
  startedTournament,
  type Tenant,
} from "../support/helpers.ts";

export interface League {
  t: Tenant;
  call: Call;
  id: string;
  /** teams[i] is seed i + 1, letter "A" + i. */
  teams: string[];
  /** A team's id from its letter. */
  team: (letter: string) => string;
  /** A team's letter from its id. */
  letter: (teamId: string) => string;
}

/** A tournament made of `fields` with `n` fresh teams registered in seed order (A = seed 1), started. */
export async function league(fields: Record<string, unknown>, n: number): Promise<League> {
  const teams = await createTeams(n, `Sc${crypto.randomUUID().slice(0, 8)}`);
  const { t, call, id } = await startedTournament(fields, teams);
  const letters = new Map(teams.map((team, i) => [team, String.fromCharCode(65 + i)]));
  return {
    t,
    call,
    id,
    teams,
    team: (l) => teams[l.charCodeAt(0) - 65],
    letter: (teamId) => letters.get(teamId) ?? `?${teamId}`,
  };
}

export interface Results {
  tournament: { id: string; format: string; status: string; version: number; stage?: number };
  matches: Match[];
  // deno-lint-ignore no-explicit-any
  standings: any[];
}

/** GET …/results (`query` such as "?since=3"), 200 expected. */
export async function results(lg: League, query = ""): Promise<Results> {
  const res = await lg.call("GET", `/tournaments/${lg.id}/results${query}`);
  expectStatus(res, 200);
  return res.body.data;
}

/** The match between two lettered teams (in `round` when given). */
export function matchOf(lg: League, matches: Match[], a: string, b: string, round?: number): Match {
  const [x, y] = [lg.team(a), lg.team(b)];
  const m = matches.find((m) =>
    (round === undefined || m.round === round) &&
    ((m.team1_id === x && m.team2_id === y) || (m.team1_id === y && m.team2_id === x))
  );
  if (!m) throw new Error(`no match ${a} v ${b}${round ? ` in round ${round}` : ""}`);
  return m;
}

/** The PATCH body of one script line for match `m` ("A 2-1 B" or "A ff B"). */
export function bodyOf(lg: League, m: Match, line: string): Record<string, unknown> {
  const ff = /^([A-Z]) ff ([A-Z])$/.exec(line);
  if (ff) return { forfeit: m.team1_id === lg.team(ff[1]) ? "team1" : "team2" };
  const s = /^([A-Z]) (\d+)-(\d+) ([A-Z])$/.exec(line);
  if (!s) throw new Error(`bad script line: ${line}`);
  const [a, sa, sb] = [s[1], Number(s[2]), Number(s[3])];
  return m.team1_id === lg.team(a) ? { team1_score: sa, team2_score: sb } : { team1_score: sb, team2_score: sa };
}

/** The two letters of a script line. */
export function sidesOf(line: string): [string, string] {
  const m = /^([A-Z]) (?:ff|\d+-\d+) ([A-Z])$/.exec(line);
  if (!m) throw new Error(`bad script line: ${line}`);
  return [m[1], m[2]];
}

/** Reports one script line (200 expected) and returns the answer. */
export async function report(lg: League, line: string, round?: number): Promise<ApiResponse> {
  const [a, b] = sidesOf(line);
  const m = matchOf(lg, (await results(lg)).matches, a, b, round);
  const res = await lg.call("PATCH", `/tournaments/${lg.id}/matches/${m.id}`, { body: bodyOf(lg, m, line) });
  expectStatus(res, 200);
  return res;
}

/** Reports every line of a script, in order, on the matches as they are now (200 each). */
export async function play(lg: League, script: string[], round?: number): Promise<void> {
  const { matches } = await results(lg);
  for (const line of script) {
    const [a, b] = sidesOf(line);
    const m = matchOf(lg, matches, a, b, round);
    const res = await lg.call("PATCH", `/tournaments/${lg.id}/matches/${m.id}`, { body: bodyOf(lg, m, line) });
    expectStatus(res, 200);
  }
}

/** Round robin rows: [letter, position, wins, draws, losses, points, separated_by]. */
export function rrRows(lg: League, standings: { team_id: string }[]): unknown[][] {
  // deno-lint-ignore no-explicit-any
  return standings.map((s: any) => [lg.letter(s.team_id), s.position, s.wins, s.draws, s.losses, s.points, s.separated_by]);
}

/** Swiss rows: [letter, position, wins, draws, losses, points, buchholz, separated_by]. */
export function swissRows(lg: League, standings: { team_id: string }[]): unknown[][] {
  return standings.map((
    // deno-lint-ignore no-explicit-any
    s: any,
  ) => [lg.letter(s.team_id), s.position, s.wins, s.draws, s.losses, s.points, s.buchholz, s.separated_by]);
}

/** The order of the standings as letters, e.g. "C B A D". */
export function order(lg: League, standings: { team_id: string }[]): string {
  return standings.map((s) => lg.letter(s.team_id)).join(" ");
}

/** A swiss round as sorted pairs of letters ("A-C", byes as "E bye"), sorted. */
export function pairings(lg: League, matches: Match[], round: number): string[] {
  return matches.filter((m) => m.round === round).map((m) => {
    if (m.status === "bye" || !m.team2_id) return `${lg.letter(m.team1_id!)} bye`;
    return [lg.letter(m.team1_id!), lg.letter(m.team2_id)].sort().join("-");
  }).sort();
}

/** `n` fresh keys of the league's account, for parallel requests. */
export async function freshKeys(lg: League, n: number): Promise<string[]> {
  return (await Promise.all(Array.from({ length: n }, () => createKey(lg.t.accountId)))).map((k) => k.key);
}

/** Sends `body` as PATCH of match `m` with a given key. */
export function patchMatch(lg: League, m: Match, body: unknown, key: string): Promise<ApiResponse> {
  return request("PATCH", `/tournaments/${lg.id}/matches/${m.id}`, { body, key });
}

/** Asserts the answer is a match completed as a draw: no winner, `draw: true`. */
export function expectDrawn(m: Match, ctx = ""): void {
  expect({ status: m.status, winner_id: m.winner_id, draw: m.draw }, ctx).toEqual({ status: "completed", winner_id: null, draw: true });
}

// Match reporting and results (contract section 5) and the status transitions of section 3:
// whole tournaments run through the API, corrections, every 409, scopes, tenancy, races.
import { describe, expect, it } from "vitest";
import {
  createTournament,
  expectError,
  expectStatus,
  type Match,
  request,
  sql,
  type Standing,
  type Tenant,
  tenant,
} from "../support/helpers.ts";

interface Team {
  id: string;
  name: string;
  tag: string;
}

const MATCH_FIELDS = [
  "best_of",
  "bracket",
  "completed_at",
  "draw",
  "forfeit",
  "games",
  "group",
  "id",
  "loser_next_match_id",
  "next_match_id",
  "opponents",
  "position",
  "report",
  "round",
  "scheduled_at",
  "stage",
  "status",
  "team1_id",
  "team1_score",
  "team1_seed",
  "team2_id",
  "team2_score",
  "team2_seed",
  "winner_id",
];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

let teamBatch = 0;
/**
 * Creates `n` teams whose names do not sort in seed order (a permutation of letters), so
 * that the standings' tie-break by name is visible.
 */
async function namedTeams(n: number): Promise<Team[]> {
  const batch = ++teamBatch;
  const teams: Team[] = [];
  for (let i = 0; i < n; i++) {
    const letter = String.fromCharCode(65 + ((i * 7 + 3) % 26));
    const name = `${letter}${String(i).padStart(3, "0")} Squad ${batch}`;
    const tag = `${letter}${i}`;
    const [{ id }] = await sql<{ id: string }>("select admin.create_team($1, $2) as id", [name, tag]);
    teams.push({ id, name, tag });
  }
  return teams;
}

async function getResults(t: Tenant, tournamentId: string, key = t.key) {
  const res = await request("GET", `/tournaments/${tournamentId}/results`, { key });
  expectStatus(res, 200);
  return res.body.data as { tournament: { id: string; format: string; status: string }; matches: Match[]; standings: Standing[] };
}

function report(t: Tenant, tournamentId: string, matchId: string, team1_score: number, team2_score: number, key = t.key) {
  return request("PATCH", `/tournaments/${tournamentId}/matches/${matchId}`, { key, body: { team1_score, team2_score } });
}

function setStatus(t: Tenant, tournamentId: string, status: string) {
  return t.request("PATCH", `/tournaments/${tournamentId}`, { body: { status } });
}

function find(matches: Match[], round: number, position: number): Match {
  const m = matches.find((x) => x.round === round && x.position === position);
  if (!m) throw new Error(`no match ${round}:${position}`);
  return m;
}

/** Creates a tournament, registers the teams in order through the API and starts it. */
async function started(teamCount: number, options: { keys?: number } = {}) {
  const t = await tenant();
  const teams = await namedTeams(teamCount);
  const tournament = await createTournament(t, { max_teams: Math.max(teamCount, 2) });
  const keys = [
    t.key,
    ...(await Promise.all(Array.from({ length: options.keys ?? 0 }, () => t.newKey())))
      .map((k) => k.key),
  ];
  for (const [i, team] of teams.entries()) {
    const res = await request("POST", `/tournaments/${tournament.id}/registrations`, {
      key: keys[i % keys.length],
      body: { team_id: team.id },
    });
    expectStatus(res, 201);
  }
  const start = await setStatus(t, tournament.id, "ongoing");
  expectStatus(start, 200);
  expect(start.body.data.status).toBe("ongoing");
  const { matches } = await getResults(t, tournament.id);
  return { t, tournament, teams, matches, keys };
}

/** Checks that a bracket holds together: winners follow scores and sit where their match leads. */
function expectConsistent(matches: Match[]): void {
  const byId = new Map(matches.map((m) => [m.id, m]));
  for (const m of matches) {
    if (m.status === "completed") {
      expect(m.team1_id && m.team2_id).toBeTruthy();
      expect(m.team1_score).not.toBe(m.team2_score);
      expect(m.winner_id).toBe(m.team1_score! > m.team2_score! ? m.team1_id : m.team2_id);
      expect(m.completed_at).toMatch(ISO_UTC);
    } else if (m.status !== "bye") {
      expect([m.winner_id, m.team1_score, m.team2_score, m.completed_at]).toEqual([null, null, null, null]);
      expect(m.status).toBe(m.team1_id && m.team2_id ? "ready" : "pending");
    }
    if (m.round > 1) {
      const feeders = matches.filter((f) => f.next_match_id === m.id).sort((a, b) => a.position - b.position);
      expect(feeders).toHaveLength(2);
      expect(m.team1_id).toBe(feeders[0].winner_id);
      expect(m.team2_id).toBe(feeders[1].winner_id);
    }
    if (m.next_match_id) expect(byId.has(m.next_match_id)).toBe(true);
  }
}

/**
 * Standings by the contract's rule, from the test's own record of who lost in which round:
 * the champion 1, and a loser in a round with 2^k teams left 2^(k-1) + 1. Ordered by position,
 * then team name (byte order, as the database's C collation sorts).
 */
function expectedStandings(lostIn: Map<string, number>, champion: string | null, size: number, teams: Team[]) {
  const byId = new Map(teams.map((t) => [t.id, t]));
  const rows = [...lostIn].map(([id, round]) => ({ id, position: (size >> (round - 1)) / 2 + 1 }));
  if (champion) rows.push({ id: champion, position: 1 });
  return rows
    .map(({ id, position }) => ({ position, team_id: id, team_name: byId.get(id)!.name, team_tag: byId.get(id)!.tag, disqualified: false }))
    .sort((a, b) => a.position - b.position || (a.team_name < b.team_name ? -1 : a.team_name > b.team_name ? 1 : 0));
}

/** Competition ranking: each team's place is one more than the number of teams that went further. */
function competitionPositions(lostIn: Map<string, number>, rounds: number): number[] {
  const wentTo = [...lostIn.values(), rounds + 1];
  return wentTo.map((r) => 1 + wentTo.filter((other) => other > r).length).sort((a, b) => a - b);
}

/**
 * Plays a started tournament to its final through the API, round by round, checking after
 * every report that the winner moved on and the next match became ready only when both of
 * its teams were known. `team1Wins` decides each match. Returns who lost where.
 */
async function playOut(
  t: Tenant,
  tournamentId: string,
  teams: Team[],
  team1Wins: (m: Match) => boolean,
  beforeFinal?: () => Promise<void>,
) {
  let matches = (await getResults(t, tournamentId)).matches;
  const size = matches.length + 1;
  const rounds = Math.log2(size);
  const lostIn = new Map<string, number>();
  let champion: string | null = null;
  for (let round = 1; round <= rounds; round++) {
    if (round === rounds && beforeFinal) await beforeFinal();
    for (const m of matches.filter((x) => x.round === round)) {
      if (m.status === "bye") {
        expect(round).toBe(1);
        continue;
      }
      expect(m.status).toBe("ready");
      const first = team1Wins(m);
      // Varied scores, the winner's always higher.
      const [s1, s2] = first ? [10 + m.position, m.round - 1] : [m.position % 5, 7 + m.round];
      const res = await report(t, tournamentId, m.id, s1, s2);
      expectStatus(res, 200);
      const winner = first ? m.team1_id! : m.team2_id!;
      const loser = first ? m.team2_id! : m.team1_id!;
      const reported: Match = res.body.data;
      expect(reported).toEqual({
        ...m,
        team1_score: s1,
        team2_score: s2,
        winner_id: winner,
        status: "completed",
        completed_at: reported.completed_at,
      });
      expect(Math.abs(Date.parse(reported.completed_at!) - Date.now())).toBeLessThan(60_000);
      lostIn.set(loser, round);

      matches = (await getResults(t, tournamentId)).matches;
      expect(find(matches, m.round, m.position)).toEqual(reported);
      if (m.next_match_id === null) {
        champion = winner;
        continue;
      }
      const next = matches.find((x) => x.id === m.next_match_id)!;
      expect(next.round).toBe(round + 1);
      expect(next.position).toBe(Math.ceil(m.position / 2));
      expect(m.position % 2 === 1 ? next.team1_id : next.team2_id).toBe(winner);
      expect(next.status).toBe(next.team1_id && next.team2_id ? "ready" : "pending");
      expectConsistent(matches);
    }
    const data = await getResults(t, tournamentId);
    expect(data.standings).toEqual(expectedStandings(lostIn, champion, size, teams));
  }
  return { lostIn, champion: champion!, size };
}

describe("GET /tournaments/{id}/results", () => {
  it("returns empty matches and standings while registration is open", async () => {
    const t = await tenant();
    const teams = await namedTeams(3);
    const tournament = await createTournament(t);
    const empty = {
      tournament: { id: tournament.id, format: "single_elimination", status: "registration", stage: 1, version: 1 },
      matches: [],
      standings: [],
    };
    expect(await getResults(t, tournament.id)).toEqual(empty);
    for (const team of teams) {
      expectStatus(await t.request("POST", `/tournaments/${tournament.id}/registrations`, { body: { team_id: team.id } }), 201);
    }
    // Each registration raised the version by one (contract section 14).
    expect(await getResults(t, tournament.id)).toEqual({ ...empty, tournament: { ...empty.tournament, version: 1 + teams.length } });
  });

  it("lists the matches by round, then position, with every field", async () => {
    const { t, tournament, matches } = await started(8);
    expect(matches).toHaveLength(7);
    const sorted = [...matches].sort((a, b) => a.round - b.round || a.position - b.position);
    expect(matches.map((m) => m.id)).toEqual(sorted.map((m) => m.id));
    for (const m of matches) expect(Object.keys(m).sort()).toEqual(MATCH_FIELDS);
    // Order holds after later rounds fill in too.
    expectStatus(await report(t, tournament.id, find(matches, 1, 4).id, 1, 0), 200);
    expectStatus(await report(t, tournament.id, find(matches, 1, 3).id, 0, 1), 200);
    const after = (await getResults(t, tournament.id)).matches;
    expect(after.map((m) => [m.round, m.position])).toEqual(matches.map((m) => [m.round, m.position]));
  });

  it("returns 404 for an unknown tournament and for another account's", async () => {
    const { tournament } = await started(2);
    const other = await tenant();
    expectError(await other.request("GET", `/tournaments/${tournament.id}/results`), 404, "not_found");
    expectError(await other.request("GET", `/tournaments/${UNKNOWN_ID}/results`), 404, "not_found");
  });

  it("returns 403 insufficient_scope without read:results", async () => {
    const { t, tournament } = await started(2);
    const noRead = await t.newKey(["read:tournaments", "write:results"]);
    const res = await request("GET", `/tournaments/${tournament.id}/results`, { key: noRead.key });
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("read:results");
  });
});

describe("running a whole tournament", () => {
  it("runs 8 teams from registration to completed standings 1, 2, 3, 3, 5, 5, 5, 5", async () => {
    const t = await tenant();
    const teams = await namedTeams(8);
    const tournament = await createTournament(t, { max_teams: 8 });
    for (const team of teams) {
      expectStatus(await t.request("POST", `/tournaments/${tournament.id}/registrations`, { body: { team_id: team.id } }), 201);
    }
    expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);

    // Upsets in every round: team1 wins when round + position is even.
    const { lostIn, champion, size } = await playOut(t, tournament.id, teams, (m) => (m.round + m.position) % 2 === 0, async () => {
      const early = await setStatus(t, tournament.id, "completed");
      expectError(early, 409, "invalid_status_transition");
    });

    const data = await getResults(t, tournament.id);
    expect(data.tournament).toEqual({
      id: tournament.id,
      format: "single_elimination",
      status: "ongoing",
      stage: 1,
      version: (await t.request("GET", `/tournaments/${tournament.id}`)).body.data.version,
    });
    expect(data.matches.every((m) => m.status === "completed")).toBe(true);
    expectConsistent(data.matches);

    // Competition ranking: one more than the number of teams that went further.
    const wentTo = new Map<string, number>([...lostIn, [champion, Math.log2(size) + 1]]);
    const ranking = teams.map((team) => ({
      id: team.id,
      position: 1 + [...wentTo.values()].filter((r) => r > wentTo.get(team.id)!).length,
    }));
    expect(data.standings).toHaveLength(8);
    expect(data.standings.map((s) => s.position)).toEqual(ranking.map((r) => r.position).sort((a, b) => a - b));
    for (const s of data.standings) {
      expect(s.position).toBe(ranking.find((r) => r.id === s.team_id)!.position);
      const team = teams.find((x) => x.id === s.team_id)!;
      expect([s.team_name, s.team_tag]).toEqual([team.name, team.tag]);
      expect(Object.keys(s).sort()).toEqual(["disqualified", "position", "team_id", "team_name", "team_tag"]);
    }
    expect(data.standings).toEqual(expectedStandings(lostIn, champion, size, teams));
    expect(data.standings[0].team_id).toBe(champion);

    const done = await setStatus(t, tournament.id, "completed");
    expectStatus(done, 200);
    expect(done.body.data.status).toBe("completed");
    const final = await getResults(t, tournament.id);
    expect(final.tournament.status).toBe("completed");
    expect(final.matches).toEqual(data.matches);
    expect(final.standings).toEqual(data.standings);
  });

  it.each([5, 6])("runs %i teams with byes to the right standings", async (n) => {
    const { t, tournament, teams, matches } = await started(n);
    const byes = matches.filter((m) => m.status === "bye");
    expect(byes).toHaveLength(8 - n);

    const { lostIn, champion, size } = await playOut(t, tournament.id, teams, (m) => m.position % 2 === 1);
    const data = await getResults(t, tournament.id);
    expectConsistent(data.matches);
    // The byes stay byes and decide no place; every team gets one.
    expect(data.matches.filter((m) => m.status === "bye").map((m) => m.id)).toEqual(byes.map((m) => m.id));
    expect(data.standings).toHaveLength(n);
    expect(new Set(data.standings.map((s) => s.team_id))).toEqual(new Set(teams.map((x) => x.id)));
    expect(data.standings).toEqual(expectedStandings(lostIn, champion, size, teams));
    expect(data.standings.map((s) => s.position)).toEqual(competitionPositions(lostIn, Math.log2(size)));

    expectStatus(await setStatus(t, tournament.id, "completed"), 200);
    expect((await getResults(t, tournament.id)).standings).toEqual(data.standings);
  });

  it("runs a 2-team tournament: one match, the final, places 1 and 2", async () => {
    const { t, tournament, teams, matches } = await started(2);
    expect(matches).toHaveLength(1);
    const [final] = matches;
    expect(final.next_match_id).toBeNull();
    expectStatus(await report(t, tournament.id, final.id, 0, 3), 200);
    const data = await getResults(t, tournament.id);
    expect(data.standings).toEqual([
      { position: 1, team_id: final.team2_id, team_name: teams[1].name, team_tag: teams[1].tag, disqualified: false },
      { position: 2, team_id: final.team1_id, team_name: teams[0].name, team_tag: teams[0].tag, disqualified: false },
    ]);
  });
});

describe("PATCH /tournaments/{id}/matches/{match_id}: validation", () => {
  const cases: [string, unknown, string[]][] = [
    ["a negative score", { team1_score: -1, team2_score: 3 }, ["team1_score"]],
    ["a non-integer score", { team1_score: 2.5, team2_score: 1 }, ["team1_score"]],
    ["a score given as a string", { team1_score: "3", team2_score: 1 }, ["team1_score"]],
    ["a null score", { team1_score: 3, team2_score: null }, ["team2_score"]],
    ["a missing score", { team1_score: 3 }, ["team2_score"]],
    ["an empty body", {}, ["body"]],
    ["an unknown field", { team1_score: 3, team2_score: 1, winner_id: UNKNOWN_ID }, ["winner_id"]],
    ["a score beyond a 32-bit integer", { team1_score: 2 ** 31, team2_score: 0 }, ["team1_score"]],
  ];
  it.each(cases)("returns 400 validation_error for %s and changes nothing", async (_what, body, fields) => {
    const { t, tournament, matches } = await started(2);
    const res = await t.request("PATCH", `/tournaments/${tournament.id}/matches/${matches[0].id}`, { body });
    expectError(res, 400, "validation_error");
    const named = res.body.error.details.map((d: { field: string }) => d.field);
    for (const f of fields) expect(named).toContain(f);
    expect((await getResults(t, tournament.id)).matches).toEqual(matches);
  });

  it("returns 400 validation_error for equal scores: a match needs a winner", async () => {
    const { t, tournament, matches } = await started(2);
    const res = await report(t, tournament.id, matches[0].id, 2, 2);
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.length).toBeGreaterThan(0);
    expect((await getResults(t, tournament.id)).matches).toEqual(matches);
  });

  it("returns 400 invalid_json for a body that is not a JSON object", async () => {
    const { t, tournament, matches } = await started(2);
    const res = await t.request("PATCH", `/tournaments/${tournament.id}/matches/${matches[0].id}`, {
      rawBody: "[1, 0]",
      headers: { "content-type": "application/json" },
    });
    expectError(res, 400, "invalid_json");
    expect((await getResults(t, tournament.id)).matches).toEqual(matches);
  });

  it("accepts 0 as a score", async () => {
    const { t, tournament, matches } = await started(2);
    const res = await report(t, tournament.id, matches[0].id, 0, 1);
    expectStatus(res, 200);
    expect(res.body.data.team1_score).toBe(0);
    expect(res.body.data.winner_id).toBe(matches[0].team2_id);
  });
});

describe("corrections", () => {
  it("moves the new winner into the next match when a result is corrected", async () => {
    const { t, tournament, matches } = await started(8);
    const m11 = find(matches, 1, 1);
    const m12 = find(matches, 1, 2);
    const m21 = find(matches, 2, 1);

    expectStatus(await report(t, tournament.id, m11.id, 3, 1), 200);
    let now = (await getResults(t, tournament.id)).matches;
    expect(find(now, 2, 1)).toMatchObject({ team1_id: m11.team1_id, team2_id: null, status: "pending" });

    // Flip the winner while the next match still waits for its other team.
    const flipped = await report(t, tournament.id, m11.id, 1, 3);
    expectStatus(flipped, 200);
    expect(flipped.body.data).toMatchObject({ winner_id: m11.team2_id, team1_score: 1, team2_score: 3, status: "completed" });
    now = (await getResults(t, tournament.id)).matches;
    expect(find(now, 2, 1)).toMatchObject({ team1_id: m11.team2_id, team2_id: null, status: "pending" });

    expectStatus(await report(t, tournament.id, m12.id, 0, 2), 200);
    now = (await getResults(t, tournament.id)).matches;
    expect(find(now, 2, 1)).toMatchObject({ team1_id: m11.team2_id, team2_id: m12.team2_id, status: "ready" });

    // Flip it back while the next match is ready: it stays ready with the new team.
    expectStatus(await report(t, tournament.id, m11.id, 5, 4), 200);
    now = (await getResults(t, tournament.id)).matches;
    expect(find(now, 2, 1)).toMatchObject({ team1_id: m11.team1_id, team2_id: m12.team2_id, status: "ready" });

    // Same winner, other scores: only the scores change.
    const rescored = await report(t, tournament.id, m11.id, 6, 0);
    expectStatus(rescored, 200);
    expect(rescored.body.data).toMatchObject({ team1_score: 6, team2_score: 0, winner_id: m11.team1_id });
    const after = (await getResults(t, tournament.id)).matches;
    expect(find(after, 2, 1)).toEqual(find(now, 2, 1));
    expectConsistent(after);
    // Nothing else moved.
    expect(after.filter((m) => ![m11.id, m12.id, m21.id].includes(m.id)))
      .toEqual(matches.filter((m) => ![m11.id, m12.id, m21.id].includes(m.id)));
  });

  it("returns 409 match_locked for a correction once the next match is completed", async () => {
    const { t, tournament, matches } = await started(8);
    const m11 = find(matches, 1, 1);
    const m12 = find(matches, 1, 2);
    expectStatus(await report(t, tournament.id, m11.id, 2, 0), 200);
    expectStatus(await report(t, tournament.id, m12.id, 2, 0), 200);
    const m21 = find((await getResults(t, tournament.id)).matches, 2, 1);
    expectStatus(await report(t, tournament.id, m21.id, 2, 1), 200);
    const before = (await getResults(t, tournament.id)).matches;

    for (const [id, s1, s2] of [[m11.id, 0, 2], [m11.id, 3, 0], [m12.id, 0, 2]] as const) {
      const res = await report(t, tournament.id, id, s1, s2);
      expectError(res, 409, "match_locked");
    }
    expect((await getResults(t, tournament.id)).matches).toEqual(before);

    // The semi-final itself can still be corrected: the final is not completed.
    expectStatus(await report(t, tournament.id, m21.id, 1, 2), 200);
    const after = (await getResults(t, tournament.id)).matches;
    expect(find(after, 3, 1).team1_id).toBe(m12.team1_id);
    expectConsistent(after);
  });

  it("changes the champion when the final is corrected while the tournament is ongoing", async () => {
    const { t, tournament, teams, matches } = await started(2);
    const [final] = matches;
    expectStatus(await report(t, tournament.id, final.id, 2, 1), 200);
    expect((await getResults(t, tournament.id)).standings.map((s) => s.team_id)).toEqual([teams[0].id, teams[1].id]);
    expectStatus(await report(t, tournament.id, final.id, 1, 2), 200);
    expect((await getResults(t, tournament.id)).standings.map((s) => [s.position, s.team_id]))
      .toEqual([[1, teams[1].id], [2, teams[0].id]]);
  });
});

describe("409 conflicts", () => {
  it("returns 409 match_not_ready for a match still waiting for a team and for a bye", async () => {
    const { t, tournament, matches } = await started(5);
    const bye = matches.find((m) => m.status === "bye")!;
    const pending = matches.find((m) => m.status === "pending")!;
    const waitingForBoth = find(matches, 3, 1);
    expect(pending.team1_id ?? pending.team2_id).not.toBeNull(); // half-known: a bye winner waits
    expect(waitingForBoth.status).toBe("pending");
    for (const m of [bye, pending, waitingForBoth]) {
      expectError(await report(t, tournament.id, m.id, 1, 0), 409, "match_not_ready");
    }
    expect((await getResults(t, tournament.id)).matches).toEqual(matches);
  });

  it("returns 409 match_locked for any match of a completed tournament", async () => {
    const { t, tournament, matches } = await started(3);
    // 3 teams: seed 1 has a bye, 2 meets 3; then the final.
    const semi = matches.find((m) => m.status === "ready")!;
    expectStatus(await report(t, tournament.id, semi.id, 4, 2), 200);
    const final = find((await getResults(t, tournament.id)).matches, 2, 1);
    expectStatus(await report(t, tournament.id, final.id, 1, 0), 200);
    expectStatus(await setStatus(t, tournament.id, "completed"), 200);
    const before = await getResults(t, tournament.id);
    for (const m of before.matches.filter((x) => x.status === "completed")) {
      expectError(await report(t, tournament.id, m.id, 0, 9), 409, "match_locked");
    }
    expect(await getResults(t, tournament.id)).toEqual(before);
  });

  it("returns 409 invalid_status_transition for completed before the final is decided", async () => {
    const t = await tenant();
    const teams = await namedTeams(4);
    const tournament = await createTournament(t, { max_teams: 4 });
    for (const team of teams) {
      expectStatus(await t.request("POST", `/tournaments/${tournament.id}/registrations`, { body: { team_id: team.id } }), 201);
    }
    // registration -> completed skips a step.
    expectError(await setStatus(t, tournament.id, "completed"), 409, "invalid_status_transition");
    expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
    expectError(await setStatus(t, tournament.id, "completed"), 409, "invalid_status_transition");
    const { matches } = await getResults(t, tournament.id);
    expectStatus(await report(t, tournament.id, find(matches, 1, 1).id, 1, 0), 200);
    expectStatus(await report(t, tournament.id, find(matches, 1, 2).id, 1, 0), 200);
    expectError(await setStatus(t, tournament.id, "completed"), 409, "invalid_status_transition");
    const got = await t.request("GET", `/tournaments/${tournament.id}`);
    expect(got.body.data.status).toBe("ongoing");
  });

  it("returns 409 invalid_status_transition for going back: ongoing -> registration, completed -> ongoing", async () => {
    const { t, tournament, matches } = await started(2);
    expectError(await setStatus(t, tournament.id, "registration"), 409, "invalid_status_transition");
    expectStatus(await report(t, tournament.id, matches[0].id, 3, 0), 200);
    expectStatus(await setStatus(t, tournament.id, "completed"), 200);
    expectError(await setStatus(t, tournament.id, "ongoing"), 409, "invalid_status_transition");
    expectError(await setStatus(t, tournament.id, "registration"), 409, "invalid_status_transition");
    // Setting the current status again is a no-op.
    const again = await setStatus(t, tournament.id, "completed");
    expectStatus(again, 200);
    expect(again.body.data.status).toBe("completed");
    expect((await getResults(t, tournament.id)).tournament.status).toBe("completed");
  });

  it("returns 409 tournament_locked for fields that cannot change while ongoing", async () => {
    const { t, tournament } = await started(2);
    const later = new Date(Date.now() + 60 * 86_400_000).toISOString();
    const locked: Record<string, unknown>[] = [
      { max_teams: 16 },
      { entry_fee: 5 },
      { team_size: 3 },
      { game_id: UNKNOWN_ID },
      { starts_at: later },
      { registration_closes: new Date(Date.now() + 86_400_000).toISOString() },
      { name: "Renamed", max_teams: 32 },
    ];
    for (const body of locked) {
      const res = await t.request("PATCH", `/tournaments/${tournament.id}`, { body });
      expectError(res, 409, "tournament_locked");
    }
    const unchanged = await t.request("GET", `/tournaments/${tournament.id}`);
    expect(unchanged.body.data).toEqual(expect.objectContaining({ name: tournament.name, max_teams: tournament.max_teams }));
    const allowed = { name: "Spring Cup", description: "Now playing", rules: "Best of three", prize_pool: 1500.5 };
    const res = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: allowed });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ ...allowed, status: "ongoing" });
  });

  it("returns 409 tournament_locked for fields that cannot change once completed", async () => {
    const { t, tournament, matches } = await started(2);
    expectStatus(await report(t, tournament.id, matches[0].id, 3, 0), 200);
    expectStatus(await setStatus(t, tournament.id, "completed"), 200);
    for (const body of [{ prize_pool: 99 }, { max_teams: 4 }, { entry_fee: 1 }]) {
      expectError(await t.request("PATCH", `/tournaments/${tournament.id}`, { body }), 409, "tournament_locked");
    }
    const allowed = { name: "Autumn Cup", description: "Finished", rules: "Archived" };
    const res = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: allowed });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ ...allowed, status: "completed", prize_pool: tournament.prize_pool });
  });
});

describe("PATCH /tournaments/{id}/matches/{match_id}: access", () => {
  it("returns 403 insufficient_scope without write:results and changes nothing", async () => {
    const { t, tournament, matches } = await started(2);
    const noWrite = await t.newKey(["read:tournaments", "write:tournaments", "read:results", "read:registrations", "write:registrations"]);
    const res = await report(t, tournament.id, matches[0].id, 1, 0, noWrite.key);
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:results");
    expect((await getResults(t, tournament.id)).matches).toEqual(matches);
    // write:results alone is enough to report.
    const writer = await t.newKey(["write:results"]);
    expectStatus(await report(t, tournament.id, matches[0].id, 1, 0, writer.key), 200);
  });

  it("returns 404 for another account's match and changes nothing", async () => {
    const { t, tournament, matches } = await started(2);
    const other = await started(2);
    const id = matches[0].id;
    expectError(await report(other.t, tournament.id, id, 1, 0), 404, "not_found");
    expectError(await report(other.t, other.tournament.id, id, 1, 0), 404, "not_found");
    expect((await getResults(t, tournament.id)).matches).toEqual(matches);
  });

  it("returns 404 for a match of another tournament of the same account", async () => {
    const first = await started(2);
    const t = first.t;
    const teams = await namedTeams(2);
    const second = await createTournament(t, { max_teams: 2 });
    for (const team of teams) {
      expectStatus(await t.request("POST", `/tournaments/${second.id}/registrations`, { body: { team_id: team.id } }), 201);
    }
    expectStatus(await setStatus(t, second.id, "ongoing"), 200);
    const secondMatches = (await getResults(t, second.id)).matches;
    expectError(await report(t, first.tournament.id, secondMatches[0].id, 1, 0), 404, "not_found");
    expect((await getResults(t, second.id)).matches).toEqual(secondMatches);
    expect((await getResults(t, first.tournament.id)).matches).toEqual(first.matches);
  });

  it("returns 404 for an unknown match, a malformed id and an unknown tournament", async () => {
    const { t, tournament, matches } = await started(2);
    expectError(await report(t, tournament.id, UNKNOWN_ID, 1, 0), 404, "not_found");
    expectError(
      await t.request("PATCH", `/tournaments/${tournament.id}/matches/not-a-uuid`, { body: { team1_score: 1, team2_score: 0 } }),
      404,
      "not_found",
    );
    expectError(await report(t, UNKNOWN_ID, matches[0].id, 1, 0), 404, "not_found");
  });

  it("returns 404 for a match id while the tournament is still in registration", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    expectError(await report(t, tournament.id, UNKNOWN_ID, 1, 0), 404, "not_found");
  });
});

// Requests on one key queue behind its rate-limit row, so parallel requests use distinct keys.
describe("concurrency", () => {
  it("settles 12 parallel reports of one match on one consistent result", async () => {
    const { t, tournament, matches } = await started(4);
    const m = find(matches, 1, 2);
    const keys = await Promise.all(Array.from({ length: 12 }, () => t.newKey()));
    const bodies = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? [i + 1, 0] : [0, i + 1]));
    const responses = await Promise.all(bodies.map(([s1, s2], i) => report(t, tournament.id, m.id, s1, s2, keys[i % keys.length].key)));
    const ok = responses.filter((r) => r.status === 200);
    for (const r of responses) {
      if (r.status !== 200) expectError(r, 409, "match_locked");
    }
    expect(ok.length).toBeGreaterThan(0);
    for (const r of ok) {
      const b = r.body.data;
      expect(b.winner_id).toBe(b.team1_score > b.team2_score ? m.team1_id : m.team2_id);
    }
    const after = (await getResults(t, tournament.id)).matches;
    const settled = find(after, 1, 2);
    // The stored result is one of the reports that succeeded, whole (scores and winner together).
    expect(ok.map((r) => JSON.stringify([r.body.data.team1_score, r.body.data.team2_score, r.body.data.winner_id])))
      .toContain(JSON.stringify([settled.team1_score, settled.team2_score, settled.winner_id]));
    // Exactly that winner sits in the next match, in the second slot (position 2 is even).
    const next = find(after, 2, 1);
    expect(next.team2_id).toBe(settled.winner_id);
    expect(next.team1_id).toBeNull();
    expect(next.status).toBe("pending");
    expectConsistent(after);
  });

  it("lands both winners when sibling matches are reported in parallel, round after round", async () => {
    const { t, tournament, teams, matches: initial, keys } = await started(16, { keys: 7 });
    let matches = initial;
    const lostIn = new Map<string, number>();
    let champion: string | null = null;
    for (let round = 1; round <= 4; round++) {
      const inRound = matches.filter((m) => m.round === round);
      for (const m of inRound) expect(m.status).toBe("ready");
      const winners = new Map(inRound.map((m) => [m.id, m.position % 3 === 0 ? m.team2_id! : m.team1_id!]));
      const responses = await Promise.all(inRound.map((m, i) => {
        const first = winners.get(m.id) === m.team1_id;
        return report(t, tournament.id, m.id, first ? 2 : 1, first ? 1 : 2, keys[i % keys.length]);
      }));
      for (const r of responses) expectStatus(r, 200);
      for (const m of inRound) {
        const w = winners.get(m.id)!;
        lostIn.set(w === m.team1_id ? m.team2_id! : m.team1_id!, round);
        if (!m.next_match_id) champion = w;
      }
      matches = (await getResults(t, tournament.id, keys[round % keys.length])).matches;
      expectConsistent(matches);
      for (const next of matches.filter((m) => m.round === round + 1)) {
        expect(next.team1_id).toBe(winners.get(find(matches, round, 2 * next.position - 1).id));
        expect(next.team2_id).toBe(winners.get(find(matches, round, 2 * next.position).id));
        expect(next.status).toBe("ready");
      }
    }
    const data = await getResults(t, tournament.id);
    expect(data.standings).toEqual(expectedStandings(lostIn, champion, 16, teams));
    expect(data.standings.map((s) => s.position)).toEqual(competitionPositions(lostIn, 4));
  });

  it("never leaves a stale team in the next match when a correction races the next match's report", async () => {
    const { t, tournament, matches } = await started(4);
    const [m11, m12] = [find(matches, 1, 1), find(matches, 1, 2)];
    expectStatus(await report(t, tournament.id, m11.id, 2, 0), 200);
    expectStatus(await report(t, tournament.id, m12.id, 2, 0), 200);
    const final = find((await getResults(t, tournament.id)).matches, 2, 1);
    const other = await t.newKey();
    const [correction, finalReport] = await Promise.all([
      report(t, tournament.id, m11.id, 0, 2),
      report(t, tournament.id, final.id, 3, 1, other.key),
    ]);
    expectStatus(finalReport, 200);
    if (correction.status !== 200) expectError(correction, 409, "match_locked");
    const after = (await getResults(t, tournament.id)).matches;
    expectConsistent(after);
    const settledFinal = find(after, 2, 1);
    expect(settledFinal.status).toBe("completed");
    expect(settledFinal.team1_id).toBe(find(after, 1, 1).winner_id);
    expect(find(after, 1, 1).winner_id).toBe(correction.status === 200 ? m11.team2_id : m11.team1_id);
  });
});

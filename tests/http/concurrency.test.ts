// Concurrency with exact counts (issue 6, part 3), beyond what the resource suites already
// race: several last slots at once, duplicate and capacity races together, mixed status
// transitions, a start racing a delete, reports of one match (open and locked), and one key
// at the rate-limit boundary (reads and writes).
//
// Requests on one key queue behind its rate-limit row (one transaction per request), so every
// request that must really run in parallel gets a key of its own; the rate-limit tests use one
// key on purpose.
import { describe, expect, it } from "vitest";
import {
  type ApiResponse,
  createTeams,
  createTournament,
  expectError,
  expectStatus,
  type Match,
  rateHits,
  request,
  setRateHits,
  sql,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

/** How many responses have each status (or status and error code), e.g. {"201": 5, "409 tournament_full": 15}. */
function tally(responses: ApiResponse[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of responses) {
    const label = r.body?.success === false ? `${r.status} ${r.body.error.code}` : String(r.status);
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}

/** `n` fresh keys on the tenant's account, one per parallel request. */
async function keys(t: Tenant, n: number): Promise<string[]> {
  return (await Promise.all(Array.from({ length: n }, () => t.newKey()))).map((k) => k.key);
}

async function count(table: "registrations" | "matches", tournamentId: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }>(
    `select count(*)::int as n from app.${table} where tournament_id = $1`,
    [tournamentId],
  );
  return n;
}

async function registeredTeams(tournamentId: string): Promise<string[]> {
  const rows = await sql<{ team_id: string }>(
    "select team_id from app.registrations where tournament_id = $1 order by seq",
    [tournamentId],
  );
  return rows.map((r) => r.team_id);
}

function register(key: string, tournamentId: string, teamId: string) {
  return request("POST", `/tournaments/${tournamentId}/registrations`, { key, body: { team_id: teamId } });
}

function setStatus(key: string, tournamentId: string, status: string) {
  return request("PATCH", `/tournaments/${tournamentId}`, { key, body: { status } });
}

/** A tournament with `n` teams registered through the API, in order. */
async function withTeams(t: Tenant, n: number, maxTeams = n) {
  const tournament = await createTournament(t, { max_teams: maxTeams });
  const teams = await createTeams(n, "Conc");
  for (const team of teams) expectStatus(await register(t.key, tournament.id, team), 201);
  return { tournament, teams };
}

async function matchesOf(t: Tenant, tournamentId: string): Promise<Match[]> {
  const res = await t.request("GET", `/tournaments/${tournamentId}/results`);
  expectStatus(res, 200);
  return res.body.data.matches;
}

function find(matches: Match[], round: number, position: number): Match {
  const m = matches.find((x) => x.round === round && x.position === position);
  if (!m) throw new Error(`no match ${round}:${position}`);
  return m;
}

function report(key: string, tournamentId: string, matchId: string, s1: number, s2: number) {
  return request("PATCH", `/tournaments/${tournamentId}/matches/${matchId}`, { key, body: { team1_score: s1, team2_score: s2 } });
}

describe("registrations racing for the last slots", () => {
  it("gives 5 free slots to exactly 5 of 20 parallel registrations; the other 15 get tournament_full", async () => {
    const t = await tenant();
    const max = 8;
    const tournament = await createTournament(t, { max_teams: max });
    const teams = await createTeams(3 + 20, "Slot");
    const held = teams.slice(0, 3);
    for (const team of held) expectStatus(await register(t.key, tournament.id, team), 201);
    const contenders = teams.slice(3);
    const ks = await keys(t, contenders.length);

    const responses = await Promise.all(contenders.map((team, i) => register(ks[i], tournament.id, team)));

    expect(tally(responses)).toEqual({ "201": 5, "409 tournament_full": 15 });
    const won = contenders.filter((_, i) => responses[i].status === 201);
    for (const [i, r] of responses.entries()) {
      if (r.status === 201) expect(r.body.data.team_id).toBe(contenders[i]);
    }
    // Exactly the held teams and the winners, in the order their requests committed.
    const stored = await registeredTeams(tournament.id);
    expect(stored).toHaveLength(max);
    expect(stored.slice(0, 3)).toEqual(held);
    expect(new Set(stored.slice(3))).toEqual(new Set(won));
  });

  it("fills 16 slots from 48 parallel requests (24 teams, each sent twice): 16 × 201, 16 × already_registered, 16 × tournament_full", async () => {
    // Every request takes the tournament's row lock, so they run one after another: the second
    // request of an admitted team always finds it registered (already_registered is checked
    // before capacity), and both requests of a team left out find the tournament full.
    const t = await tenant();
    const tournament = await createTournament(t, { max_teams: 16 });
    const teams = await createTeams(24, "Twice");
    const sends = [...teams, ...teams];
    const ks = await keys(t, sends.length);

    const responses = await Promise.all(sends.map((team, i) => register(ks[i], tournament.id, team)));

    expect(tally(responses)).toEqual({ "201": 16, "409 already_registered": 16, "409 tournament_full": 16 });
    const admitted = new Set(sends.filter((_, i) => responses[i].status === 201));
    expect(admitted.size).toBe(16); // no team admitted twice
    for (const [i, team] of sends.entries()) {
      const r = responses[i];
      if (r.status === 409 && r.body.error.code === "already_registered") expect(admitted.has(team)).toBe(true);
      if (r.status === 409 && r.body.error.code === "tournament_full") expect(admitted.has(team)).toBe(false);
    }
    expect(new Set(await registeredTeams(tournament.id))).toEqual(admitted);
    expect(await count("registrations", tournament.id)).toBe(16);
  });
});

describe("status transitions racing", () => {
  it("answers 6 racing starts 200 and 4 racing completions 409, and makes exactly one bracket of P − 1 matches", async () => {
    const t = await tenant();
    const { tournament } = await withTeams(t, 11, 16);
    const ks = await keys(t, 10);
    const wanted = ["ongoing", "ongoing", "completed", "ongoing", "completed", "ongoing", "ongoing", "completed", "ongoing", "completed"];

    const responses = await Promise.all(wanted.map((status, i) => setStatus(ks[i], tournament.id, status)));

    // A start is 200 whether it made the bracket or found it made (the current status again);
    // a completion is 409 before the start (registration -> completed) and after it (no final yet).
    for (const [i, r] of responses.entries()) {
      if (wanted[i] === "ongoing") {
        expectStatus(r, 200);
        expect(r.body.data.status).toBe("ongoing");
      } else {
        expectError(r, 409, "invalid_status_transition");
      }
    }
    expect(tally(responses)).toEqual({ "200": 6, "409 invalid_status_transition": 4 });
    expect(await count("matches", tournament.id)).toBe(15);
    const [{ status }] = await sql("select status from app.tournaments where id = $1", [tournament.id]);
    expect(status).toBe("ongoing");
    // One bracket: 11 teams each placed once in round 1 (5 byes to the top seeds).
    const round1 = (await matchesOf(t, tournament.id)).filter((m) => m.round === 1);
    const placed = round1.flatMap((m) => [m.team1_id, m.team2_id]).filter((x) => x !== null);
    expect(placed).toHaveLength(11);
    expect(new Set(placed).size).toBe(11);
    expect(round1.filter((m) => m.status === "bye")).toHaveLength(5);
  });

  it("completes once when 8 completions race, and refuses every racing move back to registration", async () => {
    const t = await tenant();
    const { tournament } = await withTeams(t, 2);
    expectStatus(await setStatus(t.key, tournament.id, "ongoing"), 200);
    const [final] = await matchesOf(t, tournament.id);
    expectStatus(await report(t.key, tournament.id, final.id, 3, 1), 200);
    const ks = await keys(t, 12);
    const wanted = Array.from({ length: 12 }, (_, i) => (i % 3 === 2 ? "registration" : "completed"));

    const responses = await Promise.all(wanted.map((status, i) => setStatus(ks[i], tournament.id, status)));

    for (const [i, r] of responses.entries()) {
      if (wanted[i] === "completed") {
        expectStatus(r, 200);
        expect(r.body.data.status).toBe("completed");
      } else {
        expectError(r, 409, "invalid_status_transition");
      }
    }
    expect(tally(responses)).toEqual({ "200": 8, "409 invalid_status_transition": 4 });
    const [row] = await sql("select status from app.tournaments where id = $1", [tournament.id]);
    expect(row.status).toBe("completed");
    expect(await count("matches", tournament.id)).toBe(1);
  });

  it("leaves nothing behind when a start races a delete: the delete is 200, the start 200 or 404", async () => {
    const t = await tenant();
    const rounds = 4;
    const ids: string[] = [];
    const outcomes: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const { tournament } = await withTeams(t, 8);
      ids.push(tournament.id);
      const [k1, k2] = await keys(t, 2);
      const [start, del] = await Promise.all([
        setStatus(k1, tournament.id, "ongoing"),
        request("DELETE", `/tournaments/${tournament.id}`, { key: k2 }),
      ]);
      expectStatus(del, 200);
      expect(del.body.data).toEqual({ message: "Tournament deleted" });
      if (start.status === 200) expect(start.body.data.status).toBe("ongoing");
      else expectError(start, 404, "not_found");
      outcomes.push(String(start.status));
    }
    const [left] = await sql<{ t: number; r: number; m: number }>(
      `select (select count(*)::int from app.tournaments where id = any($1)) as t,
              (select count(*)::int from app.registrations where tournament_id = any($1)) as r,
              (select count(*)::int from app.matches where tournament_id = any($1)) as m`,
      [ids],
    );
    expect(left, outcomes.join(",")).toEqual({ t: 0, r: 0, m: 0 });
  });
});

describe("reports of one match racing", () => {
  it("answers all 12 parallel reports of an open match 200 and keeps exactly one of them, with its winner advanced", async () => {
    const t = await tenant();
    const { tournament } = await withTeams(t, 4);
    expectStatus(await setStatus(t.key, tournament.id, "ongoing"), 200);
    const before = await matchesOf(t, tournament.id);
    const m = find(before, 1, 1);
    const ks = await keys(t, 12);
    const scores = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? [i + 1, 0] : [0, i + 1]));

    // The next match is not completed, so each report is either the first or a correction.
    const responses = await Promise.all(scores.map(([s1, s2], i) => report(ks[i], tournament.id, m.id, s1, s2)));

    expect(tally(responses)).toEqual({ "200": 12 });
    const after = await matchesOf(t, tournament.id);
    const settled = find(after, 1, 1);
    const reported = responses.map((r) => JSON.stringify([r.body.data.team1_score, r.body.data.team2_score]));
    expect(reported).toContain(JSON.stringify([settled.team1_score, settled.team2_score]));
    expect(settled.status).toBe("completed");
    expect(settled.winner_id).toBe(settled.team1_score! > settled.team2_score! ? m.team1_id : m.team2_id);
    // The final holds exactly the settled winner in slot 1; the other semi-final is untouched.
    const final = find(after, 2, 1);
    expect(final.team1_id).toBe(settled.winner_id);
    expect(final.team2_id).toBeNull();
    expect(final.status).toBe("pending");
    expect(find(after, 1, 2)).toEqual(find(before, 1, 2));
    expect(after.filter((x) => x.status === "completed")).toHaveLength(1);
  });

  it("answers all 10 parallel corrections of a match whose next match is completed 409 match_locked, changing nothing", async () => {
    const t = await tenant();
    const { tournament } = await withTeams(t, 4);
    expectStatus(await setStatus(t.key, tournament.id, "ongoing"), 200);
    const initial = await matchesOf(t, tournament.id);
    for (const p of [1, 2]) expectStatus(await report(t.key, tournament.id, find(initial, 1, p).id, 2, 1), 200);
    const final = find(await matchesOf(t, tournament.id), 2, 1);
    expectStatus(await report(t.key, tournament.id, final.id, 2, 0), 200);
    const before = await matchesOf(t, tournament.id);
    const ks = await keys(t, 10);

    const responses = await Promise.all(ks.map((k, i) => report(k, tournament.id, find(before, 1, 1 + (i % 2)).id, 0, 5 + i)));

    expect(tally(responses)).toEqual({ "409 match_locked": 10 });
    expect(await matchesOf(t, tournament.id)).toEqual(before);
  });
});

describe("one key at the rate-limit boundary", () => {
  const hits = rateHits;

  /** Spends `n` of the key's 100 requests through the API. */
  async function spend(t: Tenant, n: number): Promise<void> {
    const responses = await Promise.all(Array.from({ length: n }, () => t.request("GET", "/tournaments?limit=1")));
    expect(tally(responses)).toEqual({ "200": n });
  }

  it("lets exactly 5 of 20 parallel reads through a key with 95 used; remaining counts 4, 3, 2, 1, 0", async () => {
    const t = await tenant();
    await spend(t, 95);
    expect(await hits(t.keyId)).toBe(95);

    const responses = await Promise.all(Array.from({ length: 20 }, () => t.request("GET", "/tournaments?limit=1")));

    expect(tally(responses)).toEqual({ "200": 5, "429 rate_limited": 15 });
    const passed = responses.filter((r) => r.status === 200);
    expect(passed.map((r) => Number(r.headers.get("ratelimit-remaining"))).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    for (const r of responses.filter((x) => x.status === 429)) {
      expect(r.headers.get("ratelimit-remaining")).toBe("0");
      const retry = Number(r.headers.get("retry-after"));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
    }
    expect(await hits(t.keyId)).toBe(100);
  });

  it("creates exactly the 5 tournaments whose requests passed when 20 parallel creates hit a key with 95 used", async () => {
    const t = await tenant();
    await spend(t, 95);
    const names = Array.from({ length: 20 }, (_, i) => `Boundary ${i} ${t.keyId.slice(0, 8)}`);

    const responses = await Promise.all(names.map((name) => t.request("POST", "/tournaments", { body: tournamentBody({ name }) })));

    expect(tally(responses)).toEqual({ "201": 5, "429 rate_limited": 15 });
    const created = names.filter((_, i) => responses[i].status === 201);
    const rows = await sql<{ name: string }>("select name from app.tournaments where account_id = $1", [t.accountId]);
    expect(new Set(rows.map((r) => r.name))).toEqual(new Set(created));
    expect(rows).toHaveLength(5);
    expect(await hits(t.keyId)).toBe(100);
  });

  it("counts only the last 60 seconds: a key with 100 hits, 5 of them older than 60 s, lets exactly 5 of 20 through", async () => {
    const t = await tenant();
    await setRateHits(t.keyId, [...Array.from({ length: 5 }, (_, i) => 61 + i / 1000), ...Array(95).fill(10)]);

    const responses = await Promise.all(Array.from({ length: 20 }, () => t.request("GET", "/tournaments?limit=1")));

    expect(tally(responses)).toEqual({ "200": 5, "429 rate_limited": 15 });
    // The expired hits were overwritten: the ring holds the 95 recent hits and the 5 new ones.
    const [{ n, old }] = await sql<{ n: number; old: number }>(
      `select (select count(*)::int from unnest(slots) h where h > now() - interval '60 seconds') as n,
              (select count(*)::int from unnest(slots) h where h < now() - interval '60 seconds') as old
         from app.rate_limits where api_key_id = $1`,
      [t.keyId],
    );
    expect({ n, old }).toEqual({ n: 100, old: 0 });
  });
});

// Bracket generation (contract section 5): the shape made on registration -> ongoing for
// any number of teams, computed here independently of the database's own seeding code.
import { describe, expect, it } from "vitest";
import {
  type ApiResponse,
  createTeams,
  createTournament,
  expectError,
  expectStatus,
  type Match,
  request,
  sql,
  type Tenant,
  tenant,
} from "../support/helpers.ts";

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

function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/**
 * The standard seeding order of a bracket of `size` slots, built from the final outwards:
 * in a round with m teams the seed s is paired with m + 1 - s, the better seed on top.
 */
function standardSlots(size: number): number[] {
  let slots = [1];
  for (let m = 2; m <= size; m *= 2) slots = slots.flatMap((s) => [s, m + 1 - s]);
  return slots;
}

/** Registers `teams` in order: the first two and the last through the API, the rest by SQL. */
async function registerInOrder(t: Tenant, tournamentId: string, teams: string[]): Promise<void> {
  const viaApi = (team: string) => t.request("POST", `/tournaments/${tournamentId}/registrations`, { body: { team_id: team } });
  const head = teams.slice(0, Math.min(2, teams.length));
  const middle = teams.slice(head.length, Math.max(head.length, teams.length - 1));
  const tail = teams.slice(head.length + middle.length);
  for (const team of head) expectStatus(await viaApi(team), 201);
  if (middle.length) {
    await sql(
      `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
       select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
      [tournamentId, t.accountId, middle],
    );
  }
  for (const team of tail) expectStatus(await viaApi(team), 201);
}

async function getMatches(t: Tenant, tournamentId: string): Promise<{ res: ApiResponse; matches: Match[] }> {
  const res = await t.request("GET", `/tournaments/${tournamentId}/results`);
  expectStatus(res, 200);
  return { res, matches: res.body.data.matches };
}

/** Creates a tournament, registers `n` fresh teams and starts it. */
async function startedTournament(n: number) {
  const t = await tenant();
  const tournament = await createTournament(t, { max_teams: Math.max(n, 2) });
  const teams = await createTeams(n, `Seed${n}`);
  await registerInOrder(t, tournament.id, teams);
  const list = await t.request("GET", `/tournaments/${tournament.id}/registrations`);
  expectStatus(list, 200);
  expect(list.body.data.map((r: { team_id: string }) => r.team_id)).toEqual(teams);
  const start = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } });
  expectStatus(start, 200);
  expect(start.body.data.status).toBe("ongoing");
  return { t, tournament, teams };
}

/** Checks every rule of a freshly made bracket for `teams` (seed i + 1 = teams[i]). */
function checkBracket(matches: Match[], teams: string[]): void {
  const n = teams.length;
  const size = nextPowerOfTwo(n);
  const rounds = Math.log2(size);
  const slots = standardSlots(size);
  const teamOf = (seed: number) => (seed <= n ? teams[seed - 1] : null);
  const seedOf = new Map(teams.map((team, i) => [team, i + 1]));

  // P - 1 matches, ordered by round then position, positions 1..P/2^r in round r.
  expect(matches).toHaveLength(size - 1);
  const expectedOrder: [number, number][] = [];
  for (let r = 1; r <= rounds; r++) {
    for (let p = 1; p <= size >> r; p++) expectedOrder.push([r, p]);
  }
  expect(matches.map((m) => [m.round, m.position])).toEqual(expectedOrder);
  for (const m of matches) expect(Object.keys(m).sort()).toEqual(MATCH_FIELDS);
  expect(new Set(matches.map((m) => m.id)).size).toBe(size - 1);

  const at = new Map(matches.map((m) => [`${m.round}:${m.position}`, m]));
  const match = (r: number, p: number) => at.get(`${r}:${p}`)!;

  // next_match_id: (r, p) feeds (r + 1, ceil(p / 2)); the final feeds nothing.
  for (const m of matches) {
    if (m.round === rounds) expect(m.next_match_id).toBeNull();
    else expect(m.next_match_id).toBe(match(m.round + 1, Math.ceil(m.position / 2)).id);
  }

  // Round 1: standard seeding, the P - N missing seeds are byes for the top seeds.
  const byeWinners = new Map<number, string>();
  for (let p = 1; p <= size / 2; p++) {
    const m = match(1, p);
    const [top, bottom] = [slots[2 * p - 2], slots[2 * p - 1]];
    expect(top + bottom).toBe(size + 1);
    expect(m.team1_id).toBe(teamOf(top));
    expect(m.team2_id).toBe(teamOf(bottom));
    expect([m.team1_seed, m.team2_seed]).toEqual([top, bottom <= n ? bottom : null]);
    expect([m.forfeit, m.scheduled_at]).toEqual([null, null]);
    expect(m.team1_score).toBeNull();
    expect(m.team2_score).toBeNull();
    expect(m.completed_at).toBeNull();
    if (bottom > n) {
      expect(m.status).toBe("bye");
      expect(m.winner_id).toBe(teamOf(top));
      byeWinners.set(p, teamOf(top)!);
    } else {
      expect(m.status).toBe("ready");
      expect(m.winner_id).toBeNull();
    }
  }
  // The byes go to exactly the top P - N seeds.
  expect([...byeWinners.values()].map((team) => seedOf.get(team)).sort((a, b) => a! - b!))
    .toEqual(Array.from({ length: size - n }, (_, i) => i + 1));

  // Later rounds: only bye winners are known, each in the slot of the match it came from.
  for (const m of matches.filter((x) => x.round > 1)) {
    const t1 = m.round === 2 ? byeWinners.get(2 * m.position - 1) ?? null : null;
    const t2 = m.round === 2 ? byeWinners.get(2 * m.position) ?? null : null;
    expect(m.team1_id).toBe(t1);
    expect(m.team2_id).toBe(t2);
    expect([m.team1_seed, m.team2_seed]).toEqual([t1 && seedOf.get(t1), t2 && seedOf.get(t2)]);
    expect(m.status).toBe(t1 && t2 ? "ready" : "pending");
    expect([m.winner_id, m.team1_score, m.team2_score, m.completed_at]).toEqual([null, null, null, null]);
  }

  // Standard seeding as a property: if the better seed always wins, every round with m teams
  // left pairs seed s with seed m + 1 - s, so seeds 1 and 2 can meet only in the final.
  let alive: number[] = [];
  for (let p = 1; p <= size / 2; p++) {
    const m = match(1, p);
    const s1 = seedOf.get(m.team1_id!)!;
    const s2 = m.team2_id ? seedOf.get(m.team2_id)! : size + 1 - s1;
    alive.push(s1, s2);
  }
  for (let left = size; left >= 2; left /= 2) {
    const next: number[] = [];
    for (let i = 0; i < alive.length; i += 2) {
      expect(alive[i] + alive[i + 1]).toBe(left + 1);
      next.push(Math.min(alive[i], alive[i + 1]));
    }
    alive = next;
  }
  expect(alive).toEqual([1]);
  if (size >= 4) {
    const half = (team: string) => {
      const m = matches.find((x) => x.round === 1 && (x.team1_id === team || x.team2_id === team))!;
      return m.position <= size / 4 ? "top" : "bottom";
    };
    expect(half(teams[0])).toBe("top");
    expect(half(teams[1])).toBe("bottom");
  }
}

describe("bracket generation on registration -> ongoing", () => {
  it.each([2, 3, 5, 8, 13, 64, 1024])("makes the standard bracket for %i teams", async (n) => {
    const { t, tournament, teams } = await startedTournament(n);
    const { res, matches } = await getMatches(t, tournament.id);
    expect(res.body.data.tournament).toEqual({
      id: tournament.id,
      format: "single_elimination",
      status: "ongoing",
      stage: 1,
      version: (await t.request("GET", `/tournaments/${tournament.id}`)).body.data.version,
    });
    checkBracket(matches, teams);
    // Byes decide no place: nobody has a standing yet.
    expect(res.body.data.standings).toEqual([]);
    const [{ count }] = await sql<{ count: number }>(
      "select count(*)::int as count from app.matches where tournament_id = $1",
      [tournament.id],
    );
    expect(count).toBe(nextPowerOfTwo(n) - 1);
  }, 60_000);

  it("seeds by registration order, not by team name or creation order", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { max_teams: 4 });
    const created = await createTeams(4, "Order");
    const order = [created[3], created[1], created[0], created[2]];
    for (const team of order) {
      expectStatus(await t.request("POST", `/tournaments/${tournament.id}/registrations`, { body: { team_id: team } }), 201);
    }
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
    const { matches } = await getMatches(t, tournament.id);
    checkBracket(matches, order);
  });

  it("returns 409 invalid_status_transition when starting with fewer than 2 registrations", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [only] = await createTeams(1);
    for (const registered of [0, 1]) {
      if (registered === 1) {
        expectStatus(await t.request("POST", `/tournaments/${tournament.id}/registrations`, { body: { team_id: only } }), 201);
      }
      const res = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } });
      expectError(res, 409, "invalid_status_transition");
      const got = await t.request("GET", `/tournaments/${tournament.id}`);
      expectStatus(got, 200);
      expect(got.body.data.status).toBe("registration");
      const { res: results } = await getMatches(t, tournament.id);
      expect(results.body.data.matches).toEqual([]);
      expect(results.body.data.standings).toEqual([]);
    }
  });

  it("makes the bracket exactly once when several starts race", async () => {
    const t = await tenant();
    const n = 11;
    const tournament = await createTournament(t, { max_teams: 16 });
    const teams = await createTeams(n, "Race");
    await registerInOrder(t, tournament.id, teams);
    // One key per request: requests on one key queue behind its rate-limit row.
    const keys = await Promise.all(Array.from({ length: 10 }, () => t.newKey()));
    const responses = await Promise.all(
      keys.map(({ key }) => request("PATCH", `/tournaments/${tournament.id}`, { key, body: { status: "ongoing" } })),
    );
    for (const r of responses) {
      expectStatus(r, 200); // the first starts it; the rest set the current status again (a no-op)
      expect(r.body.data.status).toBe("ongoing");
    }
    const [{ count }] = await sql<{ count: number }>(
      "select count(*)::int as count from app.matches where tournament_id = $1",
      [tournament.id],
    );
    expect(count).toBe(nextPowerOfTwo(n) - 1);
    const { matches } = await getMatches(t, tournament.id);
    checkBracket(matches, teams);
  });

  it("seeds exactly the registrations that beat a racing start; later ones are refused", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { max_teams: 16 });
    const teams = await createTeams(11, "Latecomer");
    await registerInOrder(t, tournament.id, teams.slice(0, 3));
    const keys = await Promise.all(Array.from({ length: 9 }, () => t.newKey()));
    const late = teams.slice(3);
    const [start, ...registrations] = await Promise.all([
      request("PATCH", `/tournaments/${tournament.id}`, { key: keys[0].key, body: { status: "ongoing" } }),
      ...late.map((team, i) =>
        request("POST", `/tournaments/${tournament.id}/registrations`, { key: keys[i + 1].key, body: { team_id: team } })
      ),
    ]);
    expectStatus(start, 200);
    for (const r of registrations) {
      if (r.status !== 201) expectError(r, 409, "registration_closed");
    }
    const list = await t.request("GET", `/tournaments/${tournament.id}/registrations`);
    expectStatus(list, 200);
    const seeded: string[] = list.body.data.map((r: { team_id: string }) => r.team_id);
    expect(seeded.slice(0, 3)).toEqual(teams.slice(0, 3));
    expect(seeded.length).toBe(3 + registrations.filter((r) => r.status === 201).length);
    const { matches } = await getMatches(t, tournament.id);
    checkBracket(matches, seeded);
  });

  it("keeps the bracket when ongoing is set again", async () => {
    const { t, tournament, teams } = await startedTournament(6);
    const { matches: before } = await getMatches(t, tournament.id);
    const again = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } });
    expectStatus(again, 200);
    expect(again.body.data.status).toBe("ongoing");
    const { matches: after } = await getMatches(t, tournament.id);
    expect(after).toEqual(before);
    checkBracket(after, teams);
  });
});

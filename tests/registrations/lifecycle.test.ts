// The registration lifecycle and match extras (contract section 9, issue 12): withdrawing,
// seeding, payment and check-in through PATCH, check_in_opens, who takes part at the start and
// with which bracket seeds, scheduled_at and forfeits on matches, and the races between them.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTeams, createTournament, expectError, expectStatus, request, sql, type Tenant, tenant } from "../support/helpers.ts";

const REGISTRATION_FIELDS = [
  "checked_in_at",
  "disqualified_at",
  "id",
  "lineup",
  "payment_status",
  "registered_at",
  "seed",
  "state",
  "team_id",
  "teams",
  "tournament_id",
];
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

interface Registration {
  id: string;
  tournament_id: string;
  team_id: string;
  payment_status: string;
  registered_at: string;
  seed: number | null;
  checked_in_at: string | null;
}
interface Match {
  id: string;
  round: number;
  position: number;
  team1_id: string | null;
  team2_id: string | null;
  team1_seed: number | null;
  team2_seed: number | null;
  team1_score: number | null;
  team2_score: number | null;
  winner_id: string | null;
  status: string;
  forfeit: "team1" | "team2" | null;
  next_match_id: string | null;
  scheduled_at: string | null;
  completed_at: string | null;
}
interface Standing {
  position: number;
  team_id: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** A tenant, a tournament and `n` platform teams registered in order through the API. */
async function withRegistrations(n: number, overrides: Record<string, unknown> = {}) {
  const t = await tenant();
  const tournament = await createTournament(t, { max_teams: Math.max(n, 2), ...overrides });
  const teams = await createTeams(n, "Lifecycle");
  const regs: Registration[] = [];
  for (const team of teams) {
    const res = await register(t, tournament.id, team);
    expectStatus(res, 201);
    regs.push(res.body.data);
  }
  return { t, tournament, teams, regs };
}

function register(t: Tenant, tournamentId: string, teamId: string, key = t.key) {
  return request("POST", `/tournaments/${tournamentId}/registrations`, { key, body: { team_id: teamId } });
}

function patchReg(t: Tenant, tournamentId: string, regId: string, body: unknown, key = t.key) {
  return request("PATCH", `/tournaments/${tournamentId}/registrations/${regId}`, { key, body });
}

function withdraw(t: Tenant, tournamentId: string, regId: string, key = t.key) {
  return request("DELETE", `/tournaments/${tournamentId}/registrations/${regId}`, { key });
}

function setStatus(t: Tenant, tournamentId: string, status: string, key = t.key) {
  return request("PATCH", `/tournaments/${tournamentId}`, { key, body: { status } });
}

function patchMatch(t: Tenant, tournamentId: string, matchId: string, body: unknown, key = t.key) {
  return request("PATCH", `/tournaments/${tournamentId}/matches/${matchId}`, { key, body });
}

async function results(t: Tenant, tournamentId: string, key = t.key) {
  const res = await request("GET", `/tournaments/${tournamentId}/results`, { key });
  expectStatus(res, 200);
  return res.body.data as { matches: Match[]; standings: Standing[]; tournament: { status: string } };
}

async function registrations(t: Tenant, tournamentId: string, key = t.key): Promise<Registration[]> {
  const res = await request("GET", `/tournaments/${tournamentId}/registrations`, { key });
  expectStatus(res, 200);
  return res.body.data;
}

async function registrationCount(tournamentId: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }>("select count(*)::int n from app.registrations where tournament_id = $1", [tournamentId]);
  return n;
}

const at = (matches: Match[], round: number, position: number) => {
  const m = matches.find((x) => x.round === round && x.position === position);
  if (!m) throw new Error(`no match ${round}:${position}`);
  return m;
};

/** Standard seeding order of a bracket of `size` slots (1 v size, …), as tests/formats/single-elimination-shape.test.ts builds it. */
function standardSlots(size: number): number[] {
  let slots = [1];
  for (let m = 2; m <= size; m *= 2) slots = slots.flatMap((s) => [s, m + 1 - s]);
  return slots;
}

/** Round one as the contract makes it for teams in seed order (seed i + 1 = order[i]). */
function expectedFirstRound(order: string[]) {
  let size = 1;
  while (size < order.length) size *= 2;
  const slots = standardSlots(size);
  const side = (seed: number) => (seed <= order.length ? { id: order[seed - 1], seed } : { id: null, seed: null });
  return Array.from({ length: size / 2 }, (_, i) => {
    const [a, b] = [side(slots[2 * i]), side(slots[2 * i + 1])];
    return {
      round: 1,
      position: i + 1,
      team1_id: a.id,
      team1_seed: a.seed,
      team2_id: b.id,
      team2_seed: b.seed,
      status: b.id ? "ready" : "bye",
    };
  });
}

const firstRound = (matches: Match[]) =>
  matches.filter((m) => m.round === 1).map((m) => ({
    round: m.round,
    position: m.position,
    team1_id: m.team1_id,
    team1_seed: m.team1_seed,
    team2_id: m.team2_id,
    team2_seed: m.team2_seed,
    status: m.status,
  }));

/** A two-team tournament, started, its final reported and the tournament completed. */
async function completedTournament() {
  const w = await withRegistrations(2);
  expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
  const [final] = (await results(w.t, w.tournament.id)).matches;
  expectStatus(await patchMatch(w.t, w.tournament.id, final.id, { team1_score: 2, team2_score: 0 }), 200);
  expectStatus(await setStatus(w.t, w.tournament.id, "completed"), 200);
  return { ...w, final };
}

// ---------------------------------------------------------------------------------------------
describe("registration fields", () => {
  it("a new registration has seed null and checked_in_at null, in create, get and list", async () => {
    const { t, tournament, regs } = await withRegistrations(2);
    for (const reg of regs) {
      expect(Object.keys(reg).sort()).toEqual(REGISTRATION_FIELDS);
      expect(reg).toMatchObject({ seed: null, checked_in_at: null });
    }
    const got = await t.request("GET", `/tournaments/${tournament.id}/registrations/${regs[0].id}`);
    expectStatus(got, 200);
    expect(got.body.data).toEqual(regs[0]);
    expect(await registrations(t, tournament.id)).toEqual(regs);
  });
});

// ---------------------------------------------------------------------------------------------
describe("DELETE /tournaments/{id}/registrations/{registration_id}", () => {
  it("withdraws the team: 200 Registration withdrawn, then 404 and gone from the list", async () => {
    const { t, tournament, regs } = await withRegistrations(3);
    const res = await withdraw(t, tournament.id, regs[1].id);
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({ message: "Registration withdrawn" });
    expectError(await t.request("GET", `/tournaments/${tournament.id}/registrations/${regs[1].id}`), 404, "not_found");
    expect((await registrations(t, tournament.id)).map((r) => r.id)).toEqual([regs[0].id, regs[2].id]);
    expect(await registrationCount(tournament.id)).toBe(2);
    expectError(await withdraw(t, tournament.id, regs[1].id), 404, "not_found");
  });

  it("frees the slot at once: a full tournament takes another team right after", async () => {
    const { t, tournament, regs } = await withRegistrations(2, { max_teams: 2 });
    const [late] = await createTeams(1, "Late");
    expectError(await register(t, tournament.id, late), 409, "tournament_full");
    expectStatus(await withdraw(t, tournament.id, regs[0].id), 200);
    const res = await register(t, tournament.id, late);
    expectStatus(res, 201);
    expect((await registrations(t, tournament.id)).map((r) => r.team_id)).toEqual([regs[1].team_id, late]);
  });

  it("lets the withdrawn team register again, last in registration order", async () => {
    const { t, tournament, regs } = await withRegistrations(3);
    expectStatus(await withdraw(t, tournament.id, regs[0].id), 200);
    const again = await register(t, tournament.id, regs[0].team_id);
    expectStatus(again, 201);
    expect(again.body.data.id).not.toBe(regs[0].id);
    expect((await registrations(t, tournament.id)).map((r) => r.team_id))
      .toEqual([regs[1].team_id, regs[2].team_id, regs[0].team_id]);
  });

  it("is allowed after registration_closes has passed, while the tournament is still in registration", async () => {
    const { t, tournament, regs } = await withRegistrations(2);
    await sql("update app.tournaments set registration_closes = now() - interval '1 minute' where id = $1", [tournament.id]);
    expectStatus(await withdraw(t, tournament.id, regs[0].id), 200);
    expect(await registrationCount(tournament.id)).toBe(1);
  });

  it("returns 409 registration_closed once the tournament is ongoing or completed, keeping the registration", async () => {
    const ongoing = await withRegistrations(3);
    expectStatus(await setStatus(ongoing.t, ongoing.tournament.id, "ongoing"), 200);
    expectError(await withdraw(ongoing.t, ongoing.tournament.id, ongoing.regs[2].id), 409, "registration_closed");
    expect(await registrationCount(ongoing.tournament.id)).toBe(3);
    const done = await completedTournament();
    expectError(await withdraw(done.t, done.tournament.id, done.regs[0].id), 409, "registration_closed");
    expect(await registrationCount(done.tournament.id)).toBe(2);
  });

  it("frees the withdrawn registration's seed", async () => {
    const { t, tournament, regs } = await withRegistrations(2);
    expectStatus(await patchReg(t, tournament.id, regs[0].id, { seed: 1 }), 200);
    expectError(await patchReg(t, tournament.id, regs[1].id, { seed: 1 }), 409, "seed_taken");
    expectStatus(await withdraw(t, tournament.id, regs[0].id), 200);
    const res = await patchReg(t, tournament.id, regs[1].id, { seed: 1 });
    expectStatus(res, 200);
    expect(res.body.data.seed).toBe(1);
  });

  it("returns 404 for an unknown registration, one of another tournament, and another account's", async () => {
    const a = await withRegistrations(1);
    const second = await createTournament(a.t);
    const other = await withRegistrations(1);
    expectError(await withdraw(a.t, a.tournament.id, UNKNOWN_ID), 404, "not_found");
    expectError(await withdraw(a.t, a.tournament.id, "not-a-uuid"), 404, "not_found");
    expectError(await withdraw(a.t, second.id, a.regs[0].id), 404, "not_found");
    expectError(await withdraw(a.t, other.tournament.id, other.regs[0].id), 404, "not_found");
    expectError(await withdraw(a.t, a.tournament.id, other.regs[0].id), 404, "not_found");
    expect(await registrationCount(a.tournament.id)).toBe(1);
    expect(await registrationCount(other.tournament.id)).toBe(1);
  });

  it("returns 403 insufficient_scope naming write:registrations without it", async () => {
    const { t, tournament, regs } = await withRegistrations(1);
    const { key } = await t.newKey(["read:registrations", "write:tournaments", "write:teams"]);
    const res = await withdraw(t, tournament.id, regs[0].id, key);
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:registrations");
    expect(await registrationCount(tournament.id)).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
describe("PATCH /tournaments/{id}/registrations/{registration_id}", () => {
  it("sets and clears a seed, returning the whole registration", async () => {
    const { t, tournament, regs } = await withRegistrations(2);
    for (const seed of [1, 1024, 7]) {
      const res = await patchReg(t, tournament.id, regs[0].id, { seed });
      expectStatus(res, 200);
      expect(res.body.data).toEqual({ ...regs[0], seed });
    }
    const got = await t.request("GET", `/tournaments/${tournament.id}/registrations/${regs[0].id}`);
    expect(got.body.data.seed).toBe(7);
    const cleared = await patchReg(t, tournament.id, regs[0].id, { seed: null });
    expectStatus(cleared, 200);
    expect(cleared.body.data).toEqual(regs[0]);
  });

  it("changes payment_status", async () => {
    const { t, tournament, regs } = await withRegistrations(1, { entry_fee: 10 });
    expect(regs[0].payment_status).toBe("pending");
    for (const status of ["complete", "refunded", "pending", "complete"]) {
      const res = await patchReg(t, tournament.id, regs[0].id, { payment_status: status });
      expectStatus(res, 200);
      expect(res.body.data).toEqual({ ...regs[0], payment_status: status });
    }
    const filtered = await t.request("GET", `/tournaments/${tournament.id}/registrations?status=complete`);
    expect(filtered.body.data.map((r: Registration) => r.id)).toEqual([regs[0].id]);
  });

  it("checks a team in and out in a tournament without check-in", async () => {
    const { t, tournament, regs } = await withRegistrations(2);
    expect(tournament.check_in_opens).toBeNull();
    const before = Date.now();
    const res = await patchReg(t, tournament.id, regs[0].id, { checked_in: true });
    expectStatus(res, 200);
    expect(res.body.data.checked_in_at).toMatch(ISO_UTC);
    expect(Date.parse(res.body.data.checked_in_at)).toBeGreaterThanOrEqual(before - 5_000);
    expect(Date.parse(res.body.data.checked_in_at)).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(res.body.data).toEqual({ ...regs[0], checked_in_at: res.body.data.checked_in_at });
    const out = await patchReg(t, tournament.id, regs[0].id, { checked_in: false });
    expectStatus(out, 200);
    expect(out.body.data).toEqual(regs[0]);
  });

  it("seeds and checks in after registration_closes has passed, while the tournament is still in registration", async () => {
    const { t, tournament, regs } = await withRegistrations(2);
    await sql("update app.tournaments set registration_closes = now() - interval '1 minute' where id = $1", [tournament.id]);
    const res = await patchReg(t, tournament.id, regs[0].id, { seed: 1, checked_in: true });
    expectStatus(res, 200);
    expect(res.body.data.seed).toBe(1);
    expect(res.body.data.checked_in_at).toMatch(ISO_UTC);
  });

  it("changes several fields at once", async () => {
    const { t, tournament, regs } = await withRegistrations(1, { entry_fee: 5 });
    const res = await patchReg(t, tournament.id, regs[0].id, { seed: 3, payment_status: "complete", checked_in: true });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ seed: 3, payment_status: "complete" });
    expect(res.body.data.checked_in_at).toMatch(ISO_UTC);
  });

  const invalid: [string, unknown, string][] = [
    ["seed 0", { seed: 0 }, "seed"],
    ["seed 1025", { seed: 1025 }, "seed"],
    ["seed -1", { seed: -1 }, "seed"],
    ["a fractional seed", { seed: 1.5 }, "seed"],
    ["a seed given as a string", { seed: "1" }, "seed"],
    ["a seed given as a boolean", { seed: true }, "seed"],
    ["an unknown payment_status", { payment_status: "paid" }, "payment_status"],
    ["a null payment_status", { payment_status: null }, "payment_status"],
    ["checked_in as a string", { checked_in: "yes" }, "checked_in"],
    ["checked_in as a number", { checked_in: 1 }, "checked_in"],
    ["checked_in null", { checked_in: null }, "checked_in"],
    ["the read-only checked_in_at", { checked_in_at: "2027-01-01T00:00:00Z" }, "checked_in_at"],
    ["the read-only team_id", { team_id: UNKNOWN_ID }, "team_id"],
    ["the read-only registered_at", { registered_at: "2027-01-01T00:00:00Z" }, "registered_at"],
    ["an unknown field with a valid one", { seed: 2, note: "x" }, "note"],
  ];
  it.each(invalid)("returns 400 validation_error naming the field for %s, changing nothing", async (_what, body, field) => {
    const { t, tournament, regs } = await withRegistrations(1);
    expectError(await patchReg(t, tournament.id, regs[0].id, body), 400, "validation_error", [field]);
    expect(await registrations(t, tournament.id)).toEqual(regs);
  });

  it("returns 400 for an empty body, and 400 before 404 for an invalid body on another account's registration", async () => {
    const { t, tournament, regs } = await withRegistrations(1);
    expectError(await patchReg(t, tournament.id, regs[0].id, {}), 400, "validation_error");
    const intruder = await tenant();
    expectError(await patchReg(intruder, tournament.id, regs[0].id, { seed: 0 }), 400, "validation_error", ["seed"]);
    expectError(await patchReg(intruder, tournament.id, regs[0].id, { seed: 1 }), 404, "not_found");
    expect(await registrations(t, tournament.id)).toEqual(regs);
  });

  describe("seed_taken", () => {
    it("refuses a seed another registration of the tournament holds, and keeps both as they were", async () => {
      const { t, tournament, regs } = await withRegistrations(3);
      expectStatus(await patchReg(t, tournament.id, regs[0].id, { seed: 2 }), 200);
      expectStatus(await patchReg(t, tournament.id, regs[1].id, { seed: 5 }), 200);
      expectError(await patchReg(t, tournament.id, regs[1].id, { seed: 2 }), 409, "seed_taken");
      expectError(await patchReg(t, tournament.id, regs[2].id, { seed: 2, payment_status: "refunded" }), 409, "seed_taken");
      const list = await registrations(t, tournament.id);
      expect(list.map((r) => [r.seed, r.payment_status])).toEqual([[2, "complete"], [5, "complete"], [null, "complete"]]);
      // Resending a registration's own seed is no conflict; swapping goes through null.
      expectStatus(await patchReg(t, tournament.id, regs[0].id, { seed: 2 }), 200);
      expectStatus(await patchReg(t, tournament.id, regs[0].id, { seed: null }), 200);
      expectStatus(await patchReg(t, tournament.id, regs[1].id, { seed: 2 }), 200);
      expectStatus(await patchReg(t, tournament.id, regs[0].id, { seed: 5 }), 200);
      expect((await registrations(t, tournament.id)).map((r) => r.seed)).toEqual([5, 2, null]);
    });

    it("allows the same seed in two tournaments, and several registrations without a seed", async () => {
      const a = await withRegistrations(2);
      const second = await createTournament(a.t);
      const reg = await register(a.t, second.id, a.teams[0]);
      expectStatus(reg, 201);
      expectStatus(await patchReg(a.t, a.tournament.id, a.regs[0].id, { seed: 1 }), 200);
      expectStatus(await patchReg(a.t, second.id, reg.body.data.id, { seed: 1 }), 200);
      expectStatus(await patchReg(a.t, a.tournament.id, a.regs[1].id, { seed: null }), 200);
    });
  });

  describe("once the tournament has started", () => {
    it("refuses a changed seed with 409 tournament_locked, accepts unchanged values, changes payment", async () => {
      const { t, tournament, regs } = await withRegistrations(3, { entry_fee: 10 });
      expectStatus(await patchReg(t, tournament.id, regs[0].id, { seed: 4, checked_in: true }), 200);
      expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
      const before = await registrations(t, tournament.id);

      expectError(await patchReg(t, tournament.id, regs[0].id, { seed: 5 }), 409, "tournament_locked");
      expectError(await patchReg(t, tournament.id, regs[0].id, { seed: null }), 409, "tournament_locked");
      expectError(await patchReg(t, tournament.id, regs[1].id, { seed: 1 }), 409, "tournament_locked");
      // A refused change leaves the payment sent with it alone.
      expectError(await patchReg(t, tournament.id, regs[1].id, { seed: 9, payment_status: "complete" }), 409, "tournament_locked");
      expect(await registrations(t, tournament.id)).toEqual(before);

      const same = await patchReg(t, tournament.id, regs[0].id, { seed: 4, checked_in: true });
      expectStatus(same, 200);
      expect(same.body.data).toEqual(before[0]);
      expectStatus(await patchReg(t, tournament.id, regs[1].id, { seed: null, checked_in: false }), 200);
      const paid = await patchReg(t, tournament.id, regs[1].id, { seed: null, payment_status: "complete" });
      expectStatus(paid, 200);
      expect(paid.body.data).toEqual({ ...before[1], payment_status: "complete" });
    });

    it("refuses a changed check-in with 409 tournament_locked in a tournament without check-in", async () => {
      const { t, tournament, regs } = await withRegistrations(3);
      expectStatus(await patchReg(t, tournament.id, regs[0].id, { checked_in: true }), 200);
      expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
      const before = await registrations(t, tournament.id);
      expectError(await patchReg(t, tournament.id, regs[1].id, { checked_in: true }), 409, "tournament_locked");
      expectError(await patchReg(t, tournament.id, regs[0].id, { checked_in: false }), 409, "tournament_locked");
      expectError(await patchReg(t, tournament.id, regs[1].id, { checked_in: true, payment_status: "refunded" }), 409, "tournament_locked");
      expect(await registrations(t, tournament.id)).toEqual(before);
    });

    it("still changes payment_status in a completed tournament, and nothing else", async () => {
      const { t, tournament, regs } = await completedTournament();
      const res = await patchReg(t, tournament.id, regs[0].id, { payment_status: "refunded" });
      expectStatus(res, 200);
      expect(res.body.data.payment_status).toBe("refunded");
      expectError(await patchReg(t, tournament.id, regs[0].id, { seed: 1 }), 409, "tournament_locked");
      expect((await registrations(t, tournament.id))[0].seed).toBeNull();
    });

    it("refuses a changed check-in in a completed tournament without check-in (409 tournament_locked)", async () => {
      const { t, tournament, regs } = await completedTournament();
      expectError(await patchReg(t, tournament.id, regs[0].id, { checked_in: true }), 409, "tournament_locked");
      expect((await registrations(t, tournament.id))[0].checked_in_at).toBeNull();
    });
  });

  it("returns 404 for an unknown registration, one of another tournament, and another account's", async () => {
    const a = await withRegistrations(1);
    const second = await createTournament(a.t);
    const other = await withRegistrations(1);
    expectError(await patchReg(a.t, a.tournament.id, UNKNOWN_ID, { seed: 1 }), 404, "not_found");
    expectError(await patchReg(a.t, second.id, a.regs[0].id, { seed: 1 }), 404, "not_found");
    expectError(await patchReg(a.t, other.tournament.id, other.regs[0].id, { seed: 1 }), 404, "not_found");
    expectError(await patchReg(a.t, a.tournament.id, other.regs[0].id, { payment_status: "refunded" }), 404, "not_found");
    expect(await registrations(other.t, other.tournament.id)).toEqual(other.regs);
  });

  it("returns 403 insufficient_scope naming write:registrations without it", async () => {
    const { t, tournament, regs } = await withRegistrations(1);
    const { key } = await t.newKey(["read:registrations", "write:tournaments", "write:results"]);
    const res = await patchReg(t, tournament.id, regs[0].id, { seed: 1 }, key);
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:registrations");
  });
});

// ---------------------------------------------------------------------------------------------
describe("check-in", () => {
  describe("check_in_opens on tournaments", () => {
    it("defaults to null, and comes back in UTC when given with an offset", async () => {
      const t = await tenant();
      const plain = await createTournament(t);
      expect(plain.check_in_opens).toBeNull();
      const res = await t.request("POST", "/tournaments", {
        body: {
          name: "Check Cup",
          game_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
          team_size: 5,
          max_teams: 8,
          starts_at: "2099-06-15T12:00:00+02:00",
          check_in_opens: "2099-06-15T11:00:00+02:00",
        },
      });
      expectStatus(res, 201);
      expect(res.body.data.check_in_opens).toBe("2099-06-15T09:00:00.000Z");
      const got = await t.request("GET", `/tournaments/${res.body.data.id}`);
      expect(got.body.data.check_in_opens).toBe("2099-06-15T09:00:00.000Z");
    });

    it("accepts check_in_opens equal to starts_at written with another offset, and refuses one after it naming check_in_opens", async () => {
      const t = await tenant();
      const ok = await t.request("POST", "/tournaments", {
        body: {
          name: "Edge",
          game_id: UNKNOWN_ID,
          team_size: 1,
          max_teams: 2,
          starts_at: "2099-03-01T10:00:00Z",
          check_in_opens: "2099-03-01T12:00:00+02:00",
        },
      });
      expectStatus(ok, 201);
      expect(ok.body.data.check_in_opens).toBe("2099-03-01T10:00:00.000Z");
      const late = await t.request("POST", "/tournaments", {
        body: {
          name: "Late",
          game_id: UNKNOWN_ID,
          team_size: 1,
          max_teams: 2,
          starts_at: "2099-03-01T10:00:00Z",
          check_in_opens: "2099-03-01T10:00:01Z",
        },
      });
      expectError(late, 400, "validation_error", ["check_in_opens"]);
    });

    it.each([["no offset", "2099-03-01T09:00:00"], ["a date only", "2099-03-01"], ["a number", 1], ["text", "soon"]])(
      "returns 400 naming check_in_opens for %s",
      async (_what, value) => {
        const t = await tenant();
        const res = await t.request("POST", "/tournaments", {
          body: { name: "Bad", game_id: UNKNOWN_ID, team_size: 1, max_teams: 2, starts_at: "2099-03-01T10:00:00Z", check_in_opens: value },
        });
        expectError(res, 400, "validation_error", ["check_in_opens"]);
      },
    );

    it("is set, moved and cleared with PATCH, and never after starts_at", async () => {
      const t = await tenant();
      const created = await createTournament(t, { starts_at: "2099-05-01T18:00:00Z" });
      const set = await t.request("PATCH", `/tournaments/${created.id}`, { body: { check_in_opens: "2099-05-01T17:00:00+01:00" } });
      expectStatus(set, 200);
      expect(set.body.data.check_in_opens).toBe("2099-05-01T16:00:00.000Z");
      expectError(
        await t.request("PATCH", `/tournaments/${created.id}`, { body: { check_in_opens: "2099-05-01T18:00:01Z" } }),
        400,
        "validation_error",
        ["check_in_opens"],
      );
      // Moving starts_at before the stored check_in_opens is refused too.
      expectError(
        await t.request("PATCH", `/tournaments/${created.id}`, { body: { starts_at: "2099-05-01T15:00:00Z" } }),
        400,
        "validation_error",
      );
      const both = await t.request("PATCH", `/tournaments/${created.id}`, {
        body: { starts_at: "2099-05-01T15:00:00Z", check_in_opens: "2099-05-01T14:00:00Z", registration_closes: "2099-05-01T14:00:00Z" },
      });
      expectStatus(both, 200);
      const cleared = await t.request("PATCH", `/tournaments/${created.id}`, { body: { check_in_opens: null } });
      expectStatus(cleared, 200);
      expect(cleared.body.data.check_in_opens).toBeNull();
    });

    it("is locked once the tournament is ongoing (409 tournament_locked)", async () => {
      const { t, tournament } = await withRegistrations(2);
      expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
      expectError(
        await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { check_in_opens: inDays(1) } }),
        409,
        "tournament_locked",
      );
      // Sending back the value it holds is no change.
      expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { check_in_opens: null } }), 200);
    });
  });

  it("refuses checked_in: true before check_in_opens with 409 check_in_closed, and accepts it from then on", async () => {
    const opens = Date.now() + 2_500;
    const { t, tournament, regs } = await withRegistrations(2, { check_in_opens: new Date(opens).toISOString() });
    expectError(await patchReg(t, tournament.id, regs[0].id, { checked_in: true }), 409, "check_in_closed");
    expect((await registrations(t, tournament.id))[0].checked_in_at).toBeNull();
    // Unchanged values and other fields are no check-in.
    expectStatus(await patchReg(t, tournament.id, regs[0].id, { checked_in: false }), 200);
    expectStatus(await patchReg(t, tournament.id, regs[0].id, { seed: 2 }), 200);
    await sleep(opens - Date.now() + 300);
    const res = await patchReg(t, tournament.id, regs[0].id, { checked_in: true });
    expectStatus(res, 200);
    expect(Date.parse(res.body.data.checked_in_at)).toBeGreaterThanOrEqual(opens);
    const out = await patchReg(t, tournament.id, regs[0].id, { checked_in: false });
    expectStatus(out, 200);
    expect(out.body.data.checked_in_at).toBeNull();
  });

  it("accepts checked_in: false while in registration even when check_in_opens has been moved later", async () => {
    const { t, tournament, regs } = await withRegistrations(2, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    expectStatus(await patchReg(t, tournament.id, regs[0].id, { checked_in: true }), 200);
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { check_in_opens: inDays(1) } }), 200);
    expectError(await patchReg(t, tournament.id, regs[1].id, { checked_in: true }), 409, "check_in_closed");
    const out = await patchReg(t, tournament.id, regs[0].id, { checked_in: false });
    expectStatus(out, 200);
    expect(out.body.data.checked_in_at).toBeNull();
  });

  it("starts with the checked-in teams only; the others stay listed, unchecked and in no match", async () => {
    const { t, tournament, regs } = await withRegistrations(5, { check_in_opens: new Date(Date.now() - 3_600_000).toISOString() });
    // regs[1] holds seed 1 but does not check in.
    expectStatus(await patchReg(t, tournament.id, regs[1].id, { seed: 1 }), 200);
    expectStatus(await patchReg(t, tournament.id, regs[3].id, { seed: 2, checked_in: true }), 200);
    for (const i of [0, 4]) expectStatus(await patchReg(t, tournament.id, regs[i].id, { checked_in: true }), 200);
    const start = await setStatus(t, tournament.id, "ongoing");
    expectStatus(start, 200);
    const { matches } = await results(t, tournament.id);
    expect(matches).toHaveLength(3);
    expect(firstRound(matches)).toEqual(expectedFirstRound([regs[3].team_id, regs[0].team_id, regs[4].team_id]));
    const inMatches = new Set(matches.flatMap((m) => [m.team1_id, m.team2_id]));
    const list = await registrations(t, tournament.id);
    expect(list.map((r) => r.id)).toEqual(regs.map((r) => r.id));
    for (const i of [1, 2]) {
      expect(list[i].checked_in_at).toBeNull();
      expect(inMatches.has(list[i].team_id)).toBe(false);
    }
    for (const i of [0, 3, 4]) expect(list[i].checked_in_at).toMatch(ISO_UTC);
  });

  it.each([0, 1])("refuses to start with %i checked-in teams (409 invalid_status_transition), making no bracket", async (checkedIn) => {
    const { t, tournament, regs } = await withRegistrations(4, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    for (const reg of regs.slice(0, checkedIn)) expectStatus(await patchReg(t, tournament.id, reg.id, { checked_in: true }), 200);
    expectError(await setStatus(t, tournament.id, "ongoing"), 409, "invalid_status_transition");
    const got = await t.request("GET", `/tournaments/${tournament.id}`);
    expect(got.body.data.status).toBe("registration");
    expect((await results(t, tournament.id)).matches).toEqual([]);
    // With a second team checked in it starts.
    for (const reg of regs.slice(checkedIn, 2)) expectStatus(await patchReg(t, tournament.id, reg.id, { checked_in: true }), 200);
    expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
    expect((await results(t, tournament.id)).matches).toHaveLength(1);
  });

  it("without check-in, every registration takes part whether checked in or not", async () => {
    const { t, tournament, regs } = await withRegistrations(3);
    expectStatus(await patchReg(t, tournament.id, regs[1].id, { checked_in: true }), 200);
    expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
    const { matches } = await results(t, tournament.id);
    expect(firstRound(matches)).toEqual(expectedFirstRound(regs.map((r) => r.team_id)));
  });

  it("refuses a check-in once the tournament has started", async () => {
    const { t, tournament, regs } = await withRegistrations(3, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    for (const reg of regs.slice(0, 2)) expectStatus(await patchReg(t, tournament.id, reg.id, { checked_in: true }), 200);
    expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
    const res = await patchReg(t, tournament.id, regs[2].id, { checked_in: true });
    // The decision names tournament_locked for a changed check-in after the start; the contract's
    // check-in window ends at the start too (check_in_closed). Either is a refusal that changes nothing.
    expectStatus(res, 409);
    expect(["tournament_locked", "check_in_closed"], res.text).toContain(res.body.error.code);
    expect((await registrations(t, tournament.id))[2].checked_in_at).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
describe("seeding at the start", () => {
  it("puts seeded teams first in seed order, then the rest in registration order; matches carry the seeds", async () => {
    const { t, tournament, regs } = await withRegistrations(6);
    expectStatus(await patchReg(t, tournament.id, regs[4].id, { seed: 3 }), 200);
    expectStatus(await patchReg(t, tournament.id, regs[1].id, { seed: 900 }), 200);
    expectStatus(await patchReg(t, tournament.id, regs[2].id, { seed: 1 }), 200);
    expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
    const order = [regs[2], regs[4], regs[1], regs[0], regs[3], regs[5]].map((r) => r.team_id);
    const { matches } = await results(t, tournament.id);
    for (const m of matches) expect(Object.keys(m).sort()).toEqual(MATCH_FIELDS);
    expect(firstRound(matches)).toEqual(expectedFirstRound(order));
    // Byes (seeds 1 and 2) put their team, with its seed, into round two.
    const round2 = matches.filter((m) => m.round === 2);
    expect(round2.map((m) => [m.team1_id, m.team1_seed, m.team2_id, m.team2_seed])).toEqual([
      [order[0], 1, null, null],
      [order[1], 2, null, null],
    ]);
    const final = at(matches, 3, 1);
    expect([final.team1_seed, final.team2_seed]).toEqual([null, null]);
    // The explicit seed asked for stays on the registration (900), the bracket seed is a position.
    expect((await registrations(t, tournament.id)).map((r) => r.seed)).toEqual([null, 900, 1, null, 3, null]);
  });

  it("gives a team that advances its bracket seed in the next match", async () => {
    const { t, tournament, regs } = await withRegistrations(4);
    expectStatus(await patchReg(t, tournament.id, regs[3].id, { seed: 1 }), 200);
    expectStatus(await setStatus(t, tournament.id, "ongoing"), 200);
    // Seeds: regs[3]=1, regs[0]=2, regs[1]=3, regs[2]=4. Round 1: 1 v 4, 2 v 3.
    let { matches } = await results(t, tournament.id);
    const m1 = at(matches, 1, 1);
    expect([m1.team1_seed, m1.team2_seed]).toEqual([1, 4]);
    expectStatus(await patchMatch(t, tournament.id, m1.id, { team1_score: 0, team2_score: 3 }), 200);
    const m2 = at(matches, 1, 2);
    expect([m2.team1_seed, m2.team2_seed]).toEqual([2, 3]);
    expectStatus(await patchMatch(t, tournament.id, m2.id, { forfeit: "team1" }), 200);
    ({ matches } = await results(t, tournament.id));
    const final = at(matches, 2, 1);
    expect([final.team1_id, final.team1_seed, final.team2_id, final.team2_seed])
      .toEqual([regs[2].team_id, 4, regs[1].team_id, 3]);
  });

  it("follows the rule for any registrations, seeds and check-ins (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ seed: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }), checkedIn: fc.boolean() }), {
          minLength: 1,
          maxLength: 9,
        }),
        fc.boolean(),
        async (generated, checkIn) => {
          const rows = generated.map((r) => ({ ...r }));
          const { t, tournament, regs } = await withRegistrations(
            rows.length,
            checkIn ? { check_in_opens: new Date(Date.now() - 60_000).toISOString() } : {},
          );
          const held = new Map<number, number>();
          for (const [i, row] of rows.entries()) {
            const body: Record<string, unknown> = {};
            if (row.seed !== null) body.seed = row.seed;
            if (row.checkedIn) body.checked_in = true;
            if (!Object.keys(body).length) continue;
            const res = await patchReg(t, tournament.id, regs[i].id, body);
            if (row.seed !== null && held.has(row.seed)) {
              expectError(res, 409, "seed_taken");
              // The whole change is refused: check in again without the seed.
              row.seed = null;
              if (row.checkedIn) expectStatus(await patchReg(t, tournament.id, regs[i].id, { checked_in: true }), 200);
            } else {
              expectStatus(res, 200);
              if (row.seed !== null) held.set(row.seed, i);
            }
          }
          const taking = rows.map((row, i) => ({ ...row, i })).filter((r) => !checkIn || r.checkedIn);
          const order = [
            ...taking.filter((r) => r.seed !== null).sort((a, b) => a.seed! - b.seed!),
            ...taking.filter((r) => r.seed === null),
          ].map((r) => regs[r.i].team_id);
          const start = await setStatus(t, tournament.id, "ongoing");
          if (order.length < 2) {
            expectError(start, 409, "invalid_status_transition");
            expect((await results(t, tournament.id)).matches).toEqual([]);
            return;
          }
          expectStatus(start, 200);
          const { matches } = await results(t, tournament.id);
          let size = 1;
          while (size < order.length) size *= 2;
          expect(matches).toHaveLength(size - 1);
          expect(firstRound(matches)).toEqual(expectedFirstRound(order));
          const list = await registrations(t, tournament.id);
          const playing = new Set(matches.flatMap((m) => [m.team1_id, m.team2_id]).filter(Boolean));
          for (const [i, reg] of list.entries()) {
            expect(reg.seed).toBe(rows[i].seed);
            expect(reg.checked_in_at === null).toBe(!rows[i].checkedIn);
            expect(playing.has(reg.team_id)).toBe(order.includes(reg.team_id));
          }
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
describe("PATCH …/matches/{match_id}: scheduled_at and forfeit", () => {
  /** Five teams in registration order: round one has byes for seeds 1–3, 4 v 5 ready; round two pending. */
  async function ongoing5() {
    const w = await withRegistrations(5);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const { matches } = await results(w.t, w.tournament.id);
    return { ...w, matches };
  }

  it("gives every match scheduled_at null and forfeit null at the start", async () => {
    const { matches } = await ongoing5();
    for (const m of matches) {
      expect(Object.keys(m).sort()).toEqual(MATCH_FIELDS);
      expect(m.scheduled_at).toBeNull();
      expect(m.forfeit).toBeNull();
    }
  });

  it("sets scheduled_at alone on a ready, pending, bye or completed match, in UTC, changing nothing else", async () => {
    const { t, tournament, matches } = await ongoing5();
    const ready = matches.find((m) => m.status === "ready")!;
    const bye = matches.find((m) => m.status === "bye")!;
    const pending = matches.find((m) => m.status === "pending")!;
    for (
      const [m, when, utc] of [
        [ready, "2099-07-01T20:00:00+02:00", "2099-07-01T18:00:00.000Z"],
        [bye, "2099-07-01T18:30:00Z", "2099-07-01T18:30:00.000Z"],
        [pending, "2099-07-02T01:15:00-05:30", "2099-07-02T06:45:00.000Z"],
      ] as const
    ) {
      const res = await patchMatch(t, tournament.id, m.id, { scheduled_at: when });
      expectStatus(res, 200);
      expect(res.body.data).toEqual({ ...m, scheduled_at: utc });
    }
    // A completed match, and one whose next match is completed too.
    expectStatus(await patchMatch(t, tournament.id, ready.id, { team1_score: 1, team2_score: 0 }), 200);
    let after = await results(t, tournament.id);
    const done = after.matches.find((m) => m.id === ready.id)!;
    const res = await patchMatch(t, tournament.id, done.id, { scheduled_at: "2099-07-03T10:00:00Z" });
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ ...done, scheduled_at: "2099-07-03T10:00:00.000Z" });
    const next = after.matches.find((m) => m.id === done.next_match_id)!;
    expectStatus(await patchMatch(t, tournament.id, next.id, { team1_score: 3, team2_score: 1 }), 200);
    expectStatus(await patchMatch(t, tournament.id, done.id, { scheduled_at: null }), 200);
    after = await results(t, tournament.id);
    expect(after.matches.find((m) => m.id === done.id)).toMatchObject({
      scheduled_at: null,
      status: "completed",
      winner_id: done.winner_id,
    });
    expect(after.matches.find((m) => m.id === bye.id)!.scheduled_at).toBe("2099-07-01T18:30:00.000Z");
  });

  it("accepts a scheduled_at in the past and one far ahead", async () => {
    const { t, tournament, matches } = await ongoing5();
    const ready = matches.find((m) => m.status === "ready")!;
    for (
      const [when, utc] of [["2020-01-01T00:00:00Z", "2020-01-01T00:00:00.000Z"], ["2999-12-31T23:00:00-01:00", "3000-01-01T00:00:00.000Z"]]
    ) {
      const res = await patchMatch(t, tournament.id, ready.id, { scheduled_at: when });
      expectStatus(res, 200);
      expect(res.body.data.scheduled_at).toBe(utc);
    }
  });

  it("reports scores and forfeits together with scheduled_at", async () => {
    const w = await withRegistrations(4);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const { matches } = await results(w.t, w.tournament.id);
    const [a, b] = matches.filter((m) => m.round === 1);
    const scored = await patchMatch(w.t, w.tournament.id, a.id, { team1_score: 2, team2_score: 1, scheduled_at: "2099-01-01T12:00:00Z" });
    expectStatus(scored, 200);
    expect(scored.body.data).toMatchObject({
      status: "completed",
      winner_id: a.team1_id,
      forfeit: null,
      scheduled_at: "2099-01-01T12:00:00.000Z",
    });
    const forfeited = await patchMatch(w.t, w.tournament.id, b.id, { forfeit: "team2", scheduled_at: "2099-01-01T13:00:00+01:00" });
    expectStatus(forfeited, 200);
    expect(forfeited.body.data).toMatchObject({
      status: "completed",
      winner_id: b.team1_id,
      forfeit: "team2",
      scheduled_at: "2099-01-01T12:00:00.000Z",
    });
  });

  it.each(["team1", "team2"] as const)(
    "ends a ready match by a forfeit of %s: the other team wins and advances, no scores",
    async (side) => {
      const w = await withRegistrations(4);
      expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
      const { matches } = await results(w.t, w.tournament.id);
      const m = at(matches, 1, 2);
      const winner = side === "team1" ? m.team2_id : m.team1_id;
      const res = await patchMatch(w.t, w.tournament.id, m.id, { forfeit: side });
      expectStatus(res, 200);
      const data = res.body.data as Match;
      expect({ ...data, completed_at: null }).toEqual({
        ...m,
        status: "completed",
        winner_id: winner,
        forfeit: side,
        team1_score: null,
        team2_score: null,
      });
      expect(data.completed_at).toMatch(ISO_UTC);
      const final = at((await results(w.t, w.tournament.id)).matches, 2, 1);
      expect(final.team2_id).toBe(winner);
      expect(final.team2_seed).toBe(side === "team1" ? m.team2_seed : m.team1_seed);
    },
  );

  it("corrects a forfeit into scores and back, and switches the forfeiting side, while the next match is open", async () => {
    const w = await withRegistrations(4);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const m = at((await results(w.t, w.tournament.id)).matches, 1, 1);
    const steps: [Record<string, unknown>, Partial<Match>][] = [
      [{ forfeit: "team1" }, { winner_id: m.team2_id, forfeit: "team1", team1_score: null, team2_score: null }],
      [{ team1_score: 3, team2_score: 1 }, { winner_id: m.team1_id, forfeit: null, team1_score: 3, team2_score: 1 }],
      [{ forfeit: "team1" }, { winner_id: m.team2_id, forfeit: "team1", team1_score: null, team2_score: null }],
      [{ forfeit: "team2" }, { winner_id: m.team1_id, forfeit: "team2", team1_score: null, team2_score: null }],
      [{ team1_score: 0, team2_score: 2 }, { winner_id: m.team2_id, forfeit: null, team1_score: 0, team2_score: 2 }],
    ];
    for (const [body, want] of steps) {
      const res = await patchMatch(w.t, w.tournament.id, m.id, body);
      expectStatus(res, 200);
      expect(res.body.data, JSON.stringify(body)).toMatchObject({ status: "completed", ...want });
      const final = at((await results(w.t, w.tournament.id)).matches, 2, 1);
      expect(final.team1_id, JSON.stringify(body)).toBe(want.winner_id);
    }
  });

  it("locks a forfeit or score once the next match is completed, and forfeits in a completed tournament (409 match_locked)", async () => {
    const w = await withRegistrations(4);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const { matches } = await results(w.t, w.tournament.id);
    expectStatus(await patchMatch(w.t, w.tournament.id, at(matches, 1, 1).id, { forfeit: "team2" }), 200);
    expectStatus(await patchMatch(w.t, w.tournament.id, at(matches, 1, 2).id, { team1_score: 1, team2_score: 0 }), 200);
    const final = at(matches, 2, 1);
    expectStatus(await patchMatch(w.t, w.tournament.id, final.id, { forfeit: "team1" }), 200);
    expectError(await patchMatch(w.t, w.tournament.id, at(matches, 1, 1).id, { forfeit: "team1" }), 409, "match_locked");
    expectError(await patchMatch(w.t, w.tournament.id, at(matches, 1, 2).id, { forfeit: "team1" }), 409, "match_locked");
    expectStatus(await setStatus(w.t, w.tournament.id, "completed"), 200);
    expectError(await patchMatch(w.t, w.tournament.id, final.id, { forfeit: "team2" }), 409, "match_locked");
    expectError(await patchMatch(w.t, w.tournament.id, final.id, { scheduled_at: "2099-01-01T00:00:00Z" }), 409, "match_locked");
    expectError(await patchMatch(w.t, w.tournament.id, at(matches, 1, 1).id, { scheduled_at: null }), 409, "match_locked");
  });

  it("returns 409 match_not_ready for a forfeit on a pending match or a bye", async () => {
    const { t, tournament, matches } = await ongoing5();
    for (const m of [matches.find((x) => x.status === "pending")!, matches.find((x) => x.status === "bye")!]) {
      expectError(await patchMatch(t, tournament.id, m.id, { forfeit: "team1" }), 409, "match_not_ready");
      expectError(
        await patchMatch(t, tournament.id, m.id, { forfeit: "team2", scheduled_at: "2099-01-01T00:00:00Z" }),
        409,
        "match_not_ready",
      );
    }
    expect((await results(t, tournament.id)).matches).toEqual(matches);
  });

  it("places a forfeit's loser in the standings like a score's loser, and completes on a final decided by forfeit", async () => {
    const w = await withRegistrations(4);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const { matches } = await results(w.t, w.tournament.id);
    const [s1, s2] = [at(matches, 1, 1), at(matches, 1, 2)];
    expectStatus(await patchMatch(w.t, w.tournament.id, s1.id, { forfeit: "team1" }), 200); // s1.team2 wins
    expectStatus(await patchMatch(w.t, w.tournament.id, s2.id, { team1_score: 2, team2_score: 0 }), 200); // s2.team1 wins
    const final = at((await results(w.t, w.tournament.id)).matches, 2, 1);
    expectStatus(await patchMatch(w.t, w.tournament.id, final.id, { forfeit: "team2" }), 200); // final.team1 = s1.team2 wins
    expectStatus(await setStatus(w.t, w.tournament.id, "completed"), 200);
    const { standings } = await results(w.t, w.tournament.id);
    const pos = Object.fromEntries(standings.map((s) => [s.team_id, s.position]));
    expect(pos).toEqual({ [s1.team2_id!]: 1, [s2.team1_id!]: 2, [s1.team1_id!]: 3, [s2.team2_id!]: 3 });
    expect(standings.map((s) => s.position)).toEqual([1, 2, 3, 3]);
  });

  const invalid: [string, unknown, string | null][] = [
    ["scores together with a forfeit", { team1_score: 1, team2_score: 0, forfeit: "team2" }, null],
    ["one score with a forfeit", { team1_score: 1, forfeit: "team2" }, null],
    ["team1_score alone", { team1_score: 1 }, null],
    ["team2_score alone", { team2_score: 1 }, null],
    ["one score with scheduled_at", { team1_score: 1, scheduled_at: "2099-01-01T00:00:00Z" }, null],
    ["an empty body", {}, null],
    ["forfeit team3", { forfeit: "team3" }, "forfeit"],
    ["forfeit TEAM1", { forfeit: "TEAM1" }, "forfeit"],
    ["forfeit true", { forfeit: true }, "forfeit"],
    ["forfeit naming a team id", { forfeit: UNKNOWN_ID }, "forfeit"],
    ["scheduled_at without an offset", { scheduled_at: "2099-01-01T00:00:00" }, "scheduled_at"],
    ["scheduled_at as text", { scheduled_at: "tomorrow" }, "scheduled_at"],
    ["scheduled_at as a number", { scheduled_at: 1_700_000_000 }, "scheduled_at"],
    ["an unknown field", { scheduled_at: null, venue: "Main stage" }, "venue"],
    ["the read-only winner_id", { winner_id: UNKNOWN_ID }, "winner_id"],
  ];
  it.each(invalid)("returns 400 validation_error for %s, changing nothing", async (_what, body, field) => {
    const w = await withRegistrations(2);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const before = (await results(w.t, w.tournament.id)).matches;
    const res = await patchMatch(w.t, w.tournament.id, before[0].id, body);
    expectError(res, 400, "validation_error", field ? [field] : []);
    expect((await results(w.t, w.tournament.id)).matches).toEqual(before);
  });

  it("returns 403 insufficient_scope naming write:results for scheduled_at and forfeit without it", async () => {
    const w = await withRegistrations(2);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const [final] = (await results(w.t, w.tournament.id)).matches;
    const { key } = await w.t.newKey(["read:results", "write:registrations", "write:tournaments"]);
    for (const body of [{ scheduled_at: "2099-01-01T00:00:00Z" }, { forfeit: "team1" }]) {
      const res = await patchMatch(w.t, w.tournament.id, final.id, body, key);
      expectError(res, 403, "insufficient_scope");
      expect(res.body.error.message).toContain("write:results");
    }
  });

  it("returns 404 for another account's match", async () => {
    const w = await withRegistrations(2);
    expectStatus(await setStatus(w.t, w.tournament.id, "ongoing"), 200);
    const [final] = (await results(w.t, w.tournament.id)).matches;
    const intruder = await tenant();
    for (const body of [{ scheduled_at: null }, { forfeit: "team1" }]) {
      expectError(await patchMatch(intruder, w.tournament.id, final.id, body), 404, "not_found");
    }
    expect((await results(w.t, w.tournament.id)).matches[0]).toEqual(final);
  });
});

// ---------------------------------------------------------------------------------------------
describe("races", () => {
  it("gives a seed to exactly one of two registrations asking for it at once", async () => {
    for (let round = 0; round < 10; round++) {
      const { t, tournament, regs } = await withRegistrations(2);
      const keys = await Promise.all([t.newKey(), t.newKey()]);
      const responses = await Promise.all(regs.map((reg, i) => patchReg(t, tournament.id, reg.id, { seed: 7 }, keys[i].key)));
      const what = responses.map((r) => `${r.status} ${r.text}`).join("\n");
      expect(responses.map((r) => r.status).sort(), what).toEqual([200, 409]);
      const refused = responses.find((r) => r.status === 409)!;
      expectError(refused, 409, "seed_taken");
      const seeds = (await registrations(t, tournament.id)).map((r) => r.seed);
      expect(seeds.filter((s) => s === 7), what).toHaveLength(1);
    }
  });

  it("never holds more than max_teams when a withdrawal races registrations for the last slot", async () => {
    for (let round = 0; round < 6; round++) {
      const max = 3;
      const { t, tournament, regs } = await withRegistrations(max, { max_teams: max });
      const contenders = await createTeams(6, "Slot");
      const keys = await Promise.all(Array.from({ length: contenders.length + 1 }, () => t.newKey()));
      const [out, ...ins] = await Promise.all([
        withdraw(t, tournament.id, regs[round % max].id, keys[0].key),
        ...contenders.map((team, i) => register(t, tournament.id, team, keys[i + 1].key)),
      ]);
      const what = `withdraw ${out.status}; register ${ins.map((r) => r.status).join(",")}`;
      expectStatus(out, 200);
      const created = ins.filter((r) => r.status === 201);
      for (const r of ins) if (r.status !== 201) expectError(r, 409, "tournament_full");
      expect(created.length, what).toBeLessThanOrEqual(1);
      const count = await registrationCount(tournament.id);
      expect(count, what).toBeLessThanOrEqual(max);
      expect(count, what).toBe(max - 1 + created.length);
    }
  });

  it("a withdrawal racing the start either leaves the team out of the bracket or is refused", async () => {
    for (let round = 0; round < 6; round++) {
      const { t, tournament, regs } = await withRegistrations(3);
      const keys = await Promise.all([t.newKey(), t.newKey()]);
      const [out, start] = await Promise.all([
        withdraw(t, tournament.id, regs[0].id, keys[0].key),
        setStatus(t, tournament.id, "ongoing", keys[1].key),
      ]);
      const what = `withdraw ${out.status} ${out.text}\nstart ${start.status} ${start.text}`;
      expectStatus(start, 200);
      const { matches } = await results(t, tournament.id);
      const playing = new Set(matches.flatMap((m) => [m.team1_id, m.team2_id]));
      if (out.status === 200) {
        expect(playing.has(regs[0].team_id), what).toBe(false);
        expect(matches, what).toHaveLength(1);
        expect(await registrationCount(tournament.id)).toBe(2);
      } else {
        expectError(out, 409, "registration_closed");
        expect(playing.has(regs[0].team_id), what).toBe(true);
        expect(matches, what).toHaveLength(3);
      }
    }
  });

  it("a check-in racing the start: the team plays exactly when its check-in counted", async () => {
    for (let round = 0; round < 6; round++) {
      const { t, tournament, regs } = await withRegistrations(3, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
      for (const reg of regs.slice(0, 2)) expectStatus(await patchReg(t, tournament.id, reg.id, { checked_in: true }), 200);
      const keys = await Promise.all([t.newKey(), t.newKey()]);
      const [checkIn, start] = await Promise.all([
        patchReg(t, tournament.id, regs[2].id, { checked_in: true }, keys[0].key),
        setStatus(t, tournament.id, "ongoing", keys[1].key),
      ]);
      const what = `check-in ${checkIn.status} ${checkIn.text}\nstart ${start.status} ${start.text}`;
      expectStatus(start, 200);
      expect([200, 409], what).toContain(checkIn.status);
      const { matches } = await results(t, tournament.id);
      const playing = new Set(matches.flatMap((m) => [m.team1_id, m.team2_id]));
      const list = await registrations(t, tournament.id);
      expect(playing.has(regs[2].team_id), what).toBe(checkIn.status === 200);
      expect(list[2].checked_in_at !== null, what).toBe(checkIn.status === 200);
    }
  });
});

// Registrations (contract section 4): creating, listing and reading a tournament's
// registrations, the order of the checks, and capacity under concurrency.
import { describe, expect, it } from "vitest";
import {
  admin,
  apiUrl,
  createTeams,
  createTournament,
  expectError,
  expectStatus,
  request,
  sql,
  type Tenant,
  tenant,
} from "../support/helpers.ts";

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

function register(t: Tenant, tournamentId: string, teamId: string) {
  return t.request("POST", `/tournaments/${tournamentId}/registrations`, { body: { team_id: teamId } });
}

async function teamRow(id: string) {
  const [row] = await sql<{ id: string; name: string; tag: string; logo_url: string | null }>(
    "select id, name, tag, logo_url from app.teams where id = $1",
    [id],
  );
  return row;
}

async function registrationCount(tournamentId: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }>(
    "select count(*)::int as n from app.registrations where tournament_id = $1",
    [tournamentId],
  );
  return n;
}

describe("POST /tournaments/{id}/registrations", () => {
  it("registers a team: 201 with Location and the registration with its team summary", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [{ id: teamId }] = await sql<{ id: string }>(
      "select admin.create_team('Night Owls', 'OWL', 'https://cdn.example.com/owl.png') as id",
    );
    const before = Date.now();
    const res = await register(t, tournament.id, teamId);
    expectStatus(res, 201);
    expect(res.body.success).toBe(true);
    const reg = res.body.data;
    expect(Object.keys(reg).sort()).toEqual(
      [
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
      ],
    );
    expect(reg.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(reg.tournament_id).toBe(tournament.id);
    expect(reg.team_id).toBe(teamId);
    expect(reg.teams).toEqual({ id: teamId, name: "Night Owls", tag: "OWL", logo_url: "https://cdn.example.com/owl.png" });
    expect(reg.registered_at).toMatch(ISO_UTC);
    const at = Date.parse(reg.registered_at);
    expect(at).toBeGreaterThanOrEqual(before - 5_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(res.headers.get("location")).toBe(`${apiUrl()}/tournaments/${tournament.id}/registrations/${reg.id}`);

    // The Location header points at the registration just made.
    const got = await request("GET", res.headers.get("location")!.slice(apiUrl().length), { key: t.key });
    expectStatus(got, 200);
    expect(got.body.data).toEqual(reg);
  });

  it("returns logo_url null for a team without a logo", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [teamId] = await createTeams(1, "Logoless");
    const res = await register(t, tournament.id, teamId);
    expectStatus(res, 201);
    expect(res.body.data.teams).toEqual({ ...(await teamRow(teamId)), logo_url: null });
  });

  it("sets payment_status complete when the entry fee is 0", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { entry_fee: 0 });
    const [teamId] = await createTeams(1);
    const res = await register(t, tournament.id, teamId);
    expectStatus(res, 201);
    expect(res.body.data.payment_status).toBe("complete");
  });

  it("sets payment_status pending when the tournament has an entry fee", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { entry_fee: 0.01 });
    const [teamId] = await createTeams(1);
    const res = await register(t, tournament.id, teamId);
    expectStatus(res, 201);
    expect(res.body.data.payment_status).toBe("pending");
  });

  describe("strict body", () => {
    const cases: [string, unknown, string][] = [
      ["a missing team_id", {}, "team_id"],
      ["a team_id that is not a UUID", { team_id: "team-1" }, "team_id"],
      ["a team_id that is a number", { team_id: 42 }, "team_id"],
      ["a null team_id", { team_id: null }, "team_id"],
      ["an unknown field", { team_id: UNKNOWN_ID, seed: 1 }, "seed"],
      ["a read-only field", { team_id: UNKNOWN_ID, payment_status: "complete" }, "payment_status"],
    ];
    it.each(cases)("returns 400 validation_error for %s", async (_what, body, field) => {
      const t = await tenant();
      const tournament = await createTournament(t);
      const res = await t.request("POST", `/tournaments/${tournament.id}/registrations`, { body });
      expectError(res, 400, "validation_error");
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await registrationCount(tournament.id)).toBe(0);
    });

    it("returns 400 invalid_json for a body that is not a JSON object", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      const [teamId] = await createTeams(1);
      const res = await t.request("POST", `/tournaments/${tournament.id}/registrations`, {
        rawBody: JSON.stringify([{ team_id: teamId }]),
        headers: { "content-type": "application/json" },
      });
      expectError(res, 400, "invalid_json");
      expect(await registrationCount(tournament.id)).toBe(0);
    });
  });

  describe("order of checks", () => {
    it("returns 404 for an unknown tournament, even with an unknown team", async () => {
      const t = await tenant();
      const res = await register(t, UNKNOWN_ID, UNKNOWN_ID);
      expectError(res, 404, "not_found");
      expect(res.body.error.message).toMatch(/tournament/i);
    });

    it("returns 404 for an unknown team in a known tournament", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      const res = await register(t, tournament.id, UNKNOWN_ID);
      expectError(res, 404, "not_found");
      expect(res.body.error.message).toMatch(/team/i);
    });

    it("checks the team before whether registration is open", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      await sql("update app.tournaments set registration_closes = now() - interval '1 minute' where id = $1", [tournament.id]);
      const res = await register(t, tournament.id, UNKNOWN_ID);
      expectError(res, 404, "not_found");
      expect(res.body.error.message).toMatch(/team/i);
    });

    it("returns 409 registration_closed once registration_closes has passed", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      const [early, late] = await createTeams(2);
      expectStatus(await register(t, tournament.id, early), 201);
      await sql("update app.tournaments set registration_closes = now() - interval '1 second' where id = $1", [tournament.id]);
      const res = await register(t, tournament.id, late);
      expectError(res, 409, "registration_closed");
      expect(await registrationCount(tournament.id)).toBe(1);
    });

    it("accepts registrations while registration_closes is still ahead", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      await sql("update app.tournaments set registration_closes = now() + interval '1 minute' where id = $1", [tournament.id]);
      const [teamId] = await createTeams(1);
      expectStatus(await register(t, tournament.id, teamId), 201);
    });

    it("returns 409 registration_closed once the tournament is ongoing", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      const [a, b, c] = await createTeams(3);
      expectStatus(await register(t, tournament.id, a), 201);
      expectStatus(await register(t, tournament.id, b), 201);
      expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
      expectError(await register(t, tournament.id, c), 409, "registration_closed");
      // Closed comes before already registered.
      expectError(await register(t, tournament.id, a), 409, "registration_closed");
      expect(await registrationCount(tournament.id)).toBe(2);
    });

    it("returns 409 registration_closed once the tournament is completed", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      const [a, b, c] = await createTeams(3);
      expectStatus(await register(t, tournament.id, a), 201);
      expectStatus(await register(t, tournament.id, b), 201);
      expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
      const results = await t.request("GET", `/tournaments/${tournament.id}/results`);
      expectStatus(results, 200);
      const [final] = results.body.data.matches;
      expectStatus(
        await t.request("PATCH", `/tournaments/${tournament.id}/matches/${final.id}`, { body: { team1_score: 2, team2_score: 1 } }),
        200,
      );
      expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "completed" } }), 200);
      expectError(await register(t, tournament.id, c), 409, "registration_closed");
    });

    it("returns 409 already_registered for a team registered before", async () => {
      const t = await tenant();
      const tournament = await createTournament(t);
      const [teamId] = await createTeams(1);
      expectStatus(await register(t, tournament.id, teamId), 201);
      expectError(await register(t, tournament.id, teamId), 409, "already_registered");
      expect(await registrationCount(tournament.id)).toBe(1);
    });

    it("lets the same team register in two tournaments", async () => {
      const t = await tenant();
      const first = await createTournament(t);
      const second = await createTournament(t);
      const [teamId] = await createTeams(1);
      expectStatus(await register(t, first.id, teamId), 201);
      expectStatus(await register(t, second.id, teamId), 201);
    });

    it("returns 409 tournament_full when the last slot is taken, after already_registered", async () => {
      const t = await tenant();
      const tournament = await createTournament(t, { max_teams: 2 });
      const [a, b, c] = await createTeams(3);
      expectStatus(await register(t, tournament.id, a), 201);
      expectStatus(await register(t, tournament.id, b), 201);
      const full = await register(t, tournament.id, c);
      expectError(full, 409, "tournament_full");
      // A registered team learns that it is registered, not that the tournament is full.
      expectError(await register(t, tournament.id, a), 409, "already_registered");
      expect(await registrationCount(tournament.id)).toBe(2);
    });

    it("reports registration_closed rather than tournament_full for a full, closed tournament", async () => {
      const t = await tenant();
      const tournament = await createTournament(t, { max_teams: 2 });
      const [a, b, c] = await createTeams(3);
      expectStatus(await register(t, tournament.id, a), 201);
      expectStatus(await register(t, tournament.id, b), 201);
      await sql("update app.tournaments set registration_closes = now() - interval '1 second' where id = $1", [tournament.id]);
      expectError(await register(t, tournament.id, c), 409, "registration_closed");
    });

    it("frees a slot for registration when max_teams is raised", async () => {
      const t = await tenant();
      const tournament = await createTournament(t, { max_teams: 2 });
      const [a, b, c] = await createTeams(3);
      expectStatus(await register(t, tournament.id, a), 201);
      expectStatus(await register(t, tournament.id, b), 201);
      expectError(await register(t, tournament.id, c), 409, "tournament_full");
      expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { max_teams: 3 } }), 200);
      expectStatus(await register(t, tournament.id, c), 201);
    });
  });

  it("returns 404 for another account's tournament and registers nothing", async () => {
    const owner = await tenant();
    const other = await tenant();
    const tournament = await createTournament(owner);
    const [teamId] = await createTeams(1);
    const res = await register(other, tournament.id, teamId);
    expectError(res, 404, "not_found");
    expect(await registrationCount(tournament.id)).toBe(0);
  });

  it("returns 403 insufficient_scope without write:registrations", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [teamId] = await createTeams(1);
    const readOnly = await t.newKey(["read:tournaments", "read:registrations", "write:tournaments"]);
    const res = await request("POST", `/tournaments/${tournament.id}/registrations`, { key: readOnly.key, body: { team_id: teamId } });
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:registrations");
    expect(await registrationCount(tournament.id)).toBe(0);
  });
});

describe("capacity under concurrency", () => {
  // Requests on one key queue behind its rate-limit row, so each parallel request gets its own key.
  it("gives the last slot to exactly one of 24 parallel registrations", async () => {
    const t = await tenant();
    const max = 6;
    const tournament = await createTournament(t, { max_teams: max });
    const teams = await createTeams(max - 1 + 24, "Racer");
    for (const team of teams.slice(0, max - 1)) expectStatus(await register(t, tournament.id, team), 201);
    const contenders = teams.slice(max - 1);
    const keys = await Promise.all(contenders.map(() => t.newKey()));
    const responses = await Promise.all(
      contenders.map((team, i) =>
        request("POST", `/tournaments/${tournament.id}/registrations`, { key: keys[i % keys.length].key, body: { team_id: team } })
      ),
    );

    const created = responses.filter((r) => r.status === 201);
    expect(created, responses.map((r) => r.status).join(",")).toHaveLength(1);
    for (const r of responses) {
      if (r.status !== 201) expectError(r, 409, "tournament_full");
    }
    expect(await registrationCount(tournament.id)).toBe(max);
    const list = await t.request("GET", `/tournaments/${tournament.id}/registrations`);
    expectStatus(list, 200);
    expect(list.body.data.map((r: { team_id: string }) => r.team_id))
      .toEqual([...teams.slice(0, max - 1), created[0].body.data.team_id]);
  });

  it("registers a team once when it is sent 20 times in parallel", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { max_teams: 64 });
    const [teamId] = await createTeams(1);
    const keys = await Promise.all(Array.from({ length: 20 }, () => t.newKey()));
    const responses = await Promise.all(
      keys.map((_, i) =>
        request("POST", `/tournaments/${tournament.id}/registrations`, { key: keys[i % keys.length].key, body: { team_id: teamId } })
      ),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of responses) {
      if (r.status !== 201) expectError(r, 409, "already_registered");
    }
    expect(await registrationCount(tournament.id)).toBe(1);
  });

  it("makes a registration for the last slot wait for a concurrent one, then answers tournament_full", async () => {
    // Deterministic at the SQL level: transaction A holds the last slot without committing;
    // B must wait for A (the tournament's row lock) and then see the tournament full.
    const t = await tenant();
    const tournament = await createTournament(t, { max_teams: 2 });
    const [first, a, b] = await createTeams(3, "Waiter");
    expectStatus(await register(t, tournament.id, first), 201);
    const [ca, cb] = [await admin().connect(), await admin().connect()];
    const asApi = async (c: typeof ca) => {
      await c.query("begin");
      // as api.call runs an operation: its owner role, with the account bound
      await c.query("set local role tournament_api_owner");
      await c.query("select set_config('app.account_id', $1, true)", [t.accountId]);
    };
    const registerSql = (c: typeof ca, team: string) =>
      c.query("select app.create_registration($1::jsonb) as r", [{ tournament_id: tournament.id, body: { team_id: team } }]);
    try {
      await asApi(ca);
      await asApi(cb);
      await registerSql(ca, a);
      let settled = false;
      const pending = registerSql(cb, b).then(
        (r) => ({ ok: true as const, r }),
        (e) => ({ ok: false as const, e }),
      ).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      await ca.query("commit");
      const outcome = await pending;
      expect(outcome.ok).toBe(false);
      expect(outcome.ok ? null : (outcome.e as { hint?: string }).hint).toBe("tournament_full");
    } finally {
      await ca.query("rollback").catch(() => {});
      await cb.query("rollback").catch(() => {});
      ca.release();
      cb.release();
    }
    expect(await registrationCount(tournament.id)).toBe(2);
  });
});

describe("GET /tournaments/{id}/registrations", () => {
  it("lists registrations oldest first, each with its team summary", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const teams = await createTeams(4, "Lister");
    // Registered in an order that differs from creation order and from name order.
    const order = [teams[2], teams[0], teams[3], teams[1]];
    const created = [];
    for (const team of order) {
      const res = await register(t, tournament.id, team);
      expectStatus(res, 201);
      created.push(res.body.data);
    }
    const res = await t.request("GET", `/tournaments/${tournament.id}/registrations`);
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual(created);
    expect(res.body.data.map((r: { team_id: string }) => r.team_id)).toEqual(order);
    for (const [i, reg] of res.body.data.entries()) {
      expect(reg.teams).toEqual(await teamRow(order[i]));
    }
    expect(res.body.pagination).toBeUndefined();
  });

  it("returns an empty list for a tournament without registrations", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const res = await t.request("GET", `/tournaments/${tournament.id}/registrations`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual([]);
  });

  it("filters by payment status", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { entry_fee: 25 });
    const teams = await createTeams(4, "Payer");
    const ids: string[] = [];
    for (const team of teams) {
      const res = await register(t, tournament.id, team);
      expectStatus(res, 201);
      ids.push(res.body.data.id);
    }
    // Payments are settled outside the API; the operator records them.
    await sql("update app.registrations set payment_status = 'complete' where id = any($1)", [[ids[1], ids[3]]]);
    await sql("update app.registrations set payment_status = 'refunded' where id = $1", [ids[2]]);

    const expected: Record<string, string[]> = {
      pending: [ids[0]],
      complete: [ids[1], ids[3]],
      refunded: [ids[2]],
    };
    for (const [status, want] of Object.entries(expected)) {
      const res = await t.request("GET", `/tournaments/${tournament.id}/registrations?status=${status}`);
      expectStatus(res, 200);
      expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(want);
      for (const reg of res.body.data) expect(reg.payment_status).toBe(status);
    }
    const all = await t.request("GET", `/tournaments/${tournament.id}/registrations`);
    expectStatus(all, 200);
    expect(all.body.data.map((r: { id: string }) => r.id)).toEqual(ids);
  });

  it.each(["paid", "PENDING", ""])("returns 400 validation_error for status=%j", async (status) => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const res = await t.request("GET", `/tournaments/${tournament.id}/registrations?status=${status}`);
    expectError(res, 400, "validation_error");
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain("status");
  });

  it("returns 404 for an unknown tournament and for another account's", async () => {
    const owner = await tenant();
    const other = await tenant();
    const tournament = await createTournament(owner);
    const [teamId] = await createTeams(1);
    expectStatus(await register(owner, tournament.id, teamId), 201);
    expectError(await other.request("GET", `/tournaments/${tournament.id}/registrations`), 404, "not_found");
    expectError(await owner.request("GET", `/tournaments/${UNKNOWN_ID}/registrations`), 404, "not_found");
  });
});

describe("GET /tournaments/{id}/registrations/{registration_id}", () => {
  it("returns the registration with its team summary", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { entry_fee: 10 });
    const [teamId] = await createTeams(1, "Single");
    const created = await register(t, tournament.id, teamId);
    expectStatus(created, 201);
    const res = await t.request("GET", `/tournaments/${tournament.id}/registrations/${created.body.data.id}`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual(created.body.data);
    expect(res.body.data.payment_status).toBe("pending");
    expect(res.body.data.teams).toEqual(await teamRow(teamId));
  });

  it("returns 404 for an unknown registration, a malformed id, and one of another tournament", async () => {
    const t = await tenant();
    const first = await createTournament(t);
    const second = await createTournament(t);
    const [teamId] = await createTeams(1);
    const created = await register(t, first.id, teamId);
    expectStatus(created, 201);
    const regId = created.body.data.id;
    expectError(await t.request("GET", `/tournaments/${first.id}/registrations/${UNKNOWN_ID}`), 404, "not_found");
    expectError(await t.request("GET", `/tournaments/${first.id}/registrations/not-a-uuid`), 404, "not_found");
    expectError(await t.request("GET", `/tournaments/${second.id}/registrations/${regId}`), 404, "not_found");
    expectStatus(await t.request("GET", `/tournaments/${first.id}/registrations/${regId}`), 200);
  });

  it("returns 404 for another account's registration", async () => {
    const owner = await tenant();
    const other = await tenant();
    const tournament = await createTournament(owner);
    const [teamId] = await createTeams(1);
    const created = await register(owner, tournament.id, teamId);
    expectStatus(created, 201);
    const res = await other.request("GET", `/tournaments/${tournament.id}/registrations/${created.body.data.id}`);
    expectError(res, 404, "not_found");
  });

  it("returns 403 insufficient_scope without read:registrations", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [teamId] = await createTeams(1);
    const created = await register(t, tournament.id, teamId);
    expectStatus(created, 201);
    const noRead = await t.newKey(["read:tournaments", "write:registrations"]);
    for (
      const path of [`/tournaments/${tournament.id}/registrations`, `/tournaments/${tournament.id}/registrations/${created.body.data.id}`]
    ) {
      const res = await request("GET", path, { key: noRead.key });
      expectError(res, 403, "insufficient_scope");
      expect(res.body.error.message).toContain("read:registrations");
    }
  });
});

// Safe retries (contract section 7): Idempotency-Key on POST routes, with Stripe's semantics.
import { describe, expect, it } from "vitest";
import pg from "pg";
import { inject } from "vitest";
import { createTeams, createTournament, expectStatus, request, sql, tenant, tournamentBody } from "../support/helpers.ts";

const post = (t: Awaited<ReturnType<typeof tenant>>, path: string, body: unknown, key: string) =>
  t.request("POST", path, { body, headers: { "idempotency-key": key } });

async function tournamentCount(accountId: string) {
  const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from app.tournaments where account_id = $1", [accountId]);
  return n;
}

describe("Idempotency-Key", () => {
  it("replays the first response (status, body, Location) for the same key and body, creating once", async () => {
    const t = await tenant();
    const body = tournamentBody({ name: "Retry Cup" });
    const first = await post(t, "/tournaments", body, "create-retry-cup");
    expectStatus(first, 201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post(t, "/tournaments", body, "create-retry-cup");
    expectStatus(again, 201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.headers.get("x-request-id")).toBe(first.body.meta.request_id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await tournamentCount(t.accountId)).toBe(1);
  });

  it("treats the same body written with other key order and spacing as the same request", async () => {
    const t = await tenant();
    const body = tournamentBody();
    const first = await post(t, "/tournaments", body, "k1");
    expectStatus(first, 201);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await t.request("POST", "/tournaments", {
      rawBody: JSON.stringify(reordered, null, 4),
      headers: { "content-type": "application/json", "idempotency-key": "k1" },
    });
    expectStatus(again, 201);
    expect(again.body.data.id).toBe(first.body.data.id);
  });

  it("answers 422 idempotency_mismatch when the key comes back with another body, and writes nothing", async () => {
    const t = await tenant();
    expectStatus(await post(t, "/tournaments", tournamentBody({ name: "A" }), "same-key"), 201);
    const other = await post(t, "/tournaments", tournamentBody({ name: "B" }), "same-key");
    expectStatus(other, 422);
    expect(other.body.error.code).toBe("idempotency_mismatch");
    expect(await tournamentCount(t.accountId)).toBe(1);
  });

  it("answers 422 when the key comes back on another path", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [team] = await createTeams(1, "Path team");
    expectStatus(await post(t, "/tournaments", tournamentBody(), "path-key"), 201);
    const res = await post(t, `/tournaments/${tournament.id}/registrations`, { team_id: team }, "path-key");
    expectStatus(res, 422);
    expect(res.body.error.code).toBe("idempotency_mismatch");
  });

  it("answers 409 idempotency_conflict while the first request is in flight, then replays its result", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [team] = await createTeams(1, "In-flight team");
    // Hold the tournament's row lock so that the first registration waits mid-request.
    const blocker = new pg.Client({ connectionString: inject("adminDbUrl") });
    await blocker.connect();
    try {
      await blocker.query("begin");
      await blocker.query("select 1 from app.tournaments where id = $1 for update", [tournament.id]);
      const path = `/tournaments/${tournament.id}/registrations`;
      const first = post(t, path, { team_id: team }, "in-flight");
      // Wait until the first request is blocked on the row lock, holding its Idempotency-Key.
      for (let i = 0; i < 100; i++) {
        const [{ n }] = await sql<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%api.call%'",
        );
        if (n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const second = await post(t, path, { team_id: team }, "in-flight");
      expectStatus(second, 409);
      expect(second.body.error.code).toBe("idempotency_conflict");
      expect(second.headers.get("ratelimit-limit")).toBe("100");
      expect(Number(second.headers.get("ratelimit-remaining"))).toBeGreaterThan(0);
      await blocker.query("commit");
      const done = await first;
      expectStatus(done, 201);
      const third = await post(t, path, { team_id: team }, "in-flight");
      expectStatus(third, 201);
      expect(third.body.data.id).toBe(done.body.data.id);
    } finally {
      await blocker.query("rollback").catch(() => {});
      await blocker.end();
    }
    const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from app.registrations where tournament_id = $1", [tournament.id]);
    expect(n).toBe(1);
  });

  it("is scoped to the API key: another key with the same Idempotency-Key makes its own resource", async () => {
    const t = await tenant();
    const other = await t.newKey();
    const body = tournamentBody({ name: "Scoped" });
    const a = await post(t, "/tournaments", body, "shared-key");
    const b = await request("POST", "/tournaments", { key: other.key, body, headers: { "idempotency-key": "shared-key" } });
    expectStatus(a, 201);
    expectStatus(b, 201);
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(await tournamentCount(t.accountId)).toBe(2);
  });

  it("forgets a key after 24 hours", async () => {
    const t = await tenant();
    expectStatus(await post(t, "/tournaments", tournamentBody({ name: "Old" }), "old-key"), 201);
    await sql("update app.idempotency_keys set created_at = now() - interval '25 hours' where api_key_id = $1", [t.keyId]);
    const fresh = await post(t, "/tournaments", tournamentBody({ name: "New" }), "old-key");
    expectStatus(fresh, 201);
    expect(fresh.body.data.name).toBe("New");
    const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from app.idempotency_keys where api_key_id = $1", [t.keyId]);
    expect(n).toBe(1);
  });

  it("replays a state error (409) as it was, even after the state changed", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { max_teams: 2 });
    const teams = await createTeams(3, "Full");
    const path = `/tournaments/${tournament.id}/registrations`;
    for (const team of teams.slice(0, 2)) expectStatus(await t.request("POST", path, { body: { team_id: team } }), 201);
    const full = await post(t, path, { team_id: teams[2] }, "full-key");
    expectStatus(full, 409);
    expect(full.body.error.code).toBe("tournament_full");
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { max_teams: 4 } }), 200);
    const again = await post(t, path, { team_id: teams[2] }, "full-key");
    expectStatus(again, 409);
    expect(again.text).toBe(full.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("does not save a validation error: the key can then be used with a valid body", async () => {
    const t = await tenant();
    const bad = await post(t, "/tournaments", tournamentBody({ max_teams: 1 }), "fix-and-retry");
    expectStatus(bad, 400);
    const good = await post(t, "/tournaments", tournamentBody(), "fix-and-retry");
    expectStatus(good, 201);
  });

  it("does not save a validation error raised by the database rules either (starts_at in the past)", async () => {
    const t = await tenant();
    const past = await post(t, "/tournaments", tournamentBody({ starts_at: "2020-01-01T00:00:00Z" }), "past-then-fixed");
    expectStatus(past, 400);
    expect(past.body.error.details[0].field).toBe("starts_at");
    expectStatus(await post(t, "/tournaments", tournamentBody(), "past-then-fixed"), 201);
  });

  it("rejects an Idempotency-Key that is empty, too long or not printable ASCII with 400, writing nothing", async () => {
    const t = await tenant();
    for (const key of ["", "x".repeat(256), "tab\there"]) {
      const res = await post(t, "/tournaments", tournamentBody(), key);
      expectStatus(res, 400);
      expect(res.body.error.details).toEqual([{ field: "Idempotency-Key", message: "must be 1 to 255 printable ASCII characters" }]);
    }
    expect(await tournamentCount(t.accountId)).toBe(0);
    expectStatus(await post(t, "/tournaments", tournamentBody(), "x".repeat(255)), 201);
  });

  it("checks the Idempotency-Key (input, 400) before a malformed path id (existence, 404)", async () => {
    const t = await tenant();
    const [team] = await createTeams(1, "Order");
    const res = await post(t, "/tournaments/not-a-uuid/registrations", { team_id: team }, "k".repeat(256));
    expectStatus(res, 400);
    expect(res.body.error.details[0].field).toBe("Idempotency-Key");
    expectStatus(await post(t, "/tournaments/not-a-uuid/registrations", { team_id: team }, "fine"), 404);
  });

  it("ignores Idempotency-Key on other methods", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    for (const name of ["One", "Two"]) {
      const res = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { name }, headers: { "idempotency-key": "patch" } });
      expectStatus(res, 200);
      expect(res.body.data.name).toBe(name);
    }
  });
});

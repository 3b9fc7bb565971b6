// SQL-level rules of the database layer: input casts are the only 400s SQL raises, any other
// SQL error is a 500; PATCH with an unchanged past date; the rate-limit ring's lock is short
// and the clock is read after it.
import { createHash } from "node:crypto";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { createHandler, type LogLine } from "../../functions/api/app.ts";
import type { Database } from "../../functions/api/db.ts";
import { operationError } from "../../functions/api/db-failure.ts";
import { admin, createTournament, expectError, expectStatus, setRateHits, sql, tenant } from "../support/helpers.ts";

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/** Calls api.call as the function's role, bypassing the function's own validation. */
async function call(key: string, op: string, args: unknown) {
  const client = new pg.Client({ connectionString: inject("functionDbUrl") });
  await client.connect();
  try {
    const { rows: [row] } = await client.query(
      "select auth, error, result from api.call($1, null, $2, $3::jsonb)",
      [sha256(key), op, JSON.stringify(args)],
    );
    return row;
  } finally {
    await client.end();
  }
}

const future = () => new Date(Date.now() + 30 * 86_400_000).toISOString();
const validBody = () => ({ name: "Rules Cup", game_id: crypto.randomUUID(), team_size: 5, max_teams: 8, starts_at: future() });

describe("PATCH /tournaments/{id} with dates now in the past", () => {
  async function pastTournament() {
    const t = await tenant();
    const created = await createTournament(t);
    await sql(
      `update app.tournaments set starts_at = now() - interval '1 day', registration_closes = now() - interval '2 days'
                where id = $1`,
      [created.id],
    );
    const read = (await t.request("GET", `/tournaments/${created.id}`)).body.data;
    return { t, read };
  }

  it("accepts the object the client read, with its unchanged past starts_at and registration_closes", async () => {
    const { t, read } = await pastTournament();
    const body = {
      name: "Renamed",
      description: read.description,
      game_id: read.game_id,
      format: read.format,
      team_size: read.team_size,
      max_teams: read.max_teams,
      entry_fee: read.entry_fee,
      prize_pool: read.prize_pool,
      starts_at: read.starts_at,
      registration_closes: read.registration_closes,
      rules: read.rules,
      status: read.status,
    };
    const res = await t.request("PATCH", `/tournaments/${read.id}`, { body });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ name: "Renamed", starts_at: read.starts_at, registration_closes: read.registration_closes });
  });

  it("accepts an unchanged past starts_at given in another offset", async () => {
    const { t, read } = await pastTournament();
    const shifted = new Date(read.starts_at).toISOString().replace("Z", "+00:00");
    expectStatus(await t.request("PATCH", `/tournaments/${read.id}`, { body: { starts_at: shifted, rules: "r" } }), 200);
  });

  it("still refuses a changed starts_at in the past (400 naming starts_at)", async () => {
    const { t, read } = await pastTournament();
    const earlier = new Date(new Date(read.starts_at).getTime() - 60_000).toISOString();
    expectError(await t.request("PATCH", `/tournaments/${read.id}`, { body: { starts_at: earlier } }), 400, "validation_error", [
      "starts_at",
    ]);
  });
});

describe("SQL errors: only the caller's input is a 400", () => {
  it("raises validation_error naming each field whose value cannot be cast, before any cast", async () => {
    const { key } = await tenant();
    const r = await call(key, "tournaments.create", {
      body: { ...validBody(), team_size: "five", game_id: "not-a-uuid", starts_at: "soon" },
    });
    expect(r.error).toMatchObject({ sqlstate: "P0001", code: "validation_error" });
    expect(r.error.details.map((d: { field: string }) => d.field).sort()).toEqual(["game_id", "starts_at", "team_size"]);
    for (
      const [op, args, field] of [
        ["tournaments.get", { id: "x" }, "id"],
        ["tournaments.list", { query: { page: "one" } }, "page"],
        ["tournaments.list", { query: { status: "paused" } }, "status"],
        ["registrations.list", { tournament_id: crypto.randomUUID(), query: { status: "paid" } }, "status"],
        ["matches.report", {
          tournament_id: crypto.randomUUID(),
          match_id: crypto.randomUUID(),
          body: { team1_score: "2", team2_score: 1.5 },
        }, "team2_score"],
      ] as const
    ) {
      const out = await call(key, op, args);
      expect(out.error, `${op} ${JSON.stringify(args)}`).toMatchObject({ sqlstate: "P0001", code: "validation_error" });
      expect(out.error.details.map((d: { field: string }) => d.field), op).toContain(field);
    }
  });

  it("returns any other SQL error as it is (here a check constraint, 23514), which the function maps to 500", async () => {
    const { key, accountId } = await tenant();
    // 1,000,000.005 is valid numeric(9,2) input (it rounds to 1,000,000.01) but breaks the table's rule.
    const r = await call(key, "tournaments.create", { body: { ...validBody(), entry_fee: 1000000.005 } });
    expect(r.error.sqlstate).toBe("23514");
    expect(() => operationError(r.error)).toThrow(/23514/);
    expect(await sql("select id from app.tournaments where account_id = $1", [accountId])).toEqual([]);
    // still counted: every request past the key check counts
    expect(r.auth.remaining).toBe(99);
  });

  it("answers a data error 500 internal_error without its text, logged with the request id", async () => {
    const lines: LogLine[] = [];
    const failing: Database = {
      call: async () => ({
        auth: { error: null, key_id: "k", account_id: "a", limit: 100, remaining: 99, reset: 60, window: 60 },
        error: { sqlstate: "22003", code: null, message: "numeric field overflow secret", details: null },
        result: null,
        replay: null,
        version: null,
        notModified: false,
      }),
      publicCall: () => Promise.reject(new Error("not used")),
      keepPicture: () => Promise.reject(new Error("not used")),
      streamPoll: () => Promise.reject(new Error("not used")),
      streamClose: async () => {},
      end: async () => {},
    };
    const handler = createHandler({ db: failing, log: (l) => lines.push(l) });
    const { key } = await tenant();
    const res = await handler(new Request("http://local/api/v1/tournaments", { headers: { authorization: `Bearer ${key}` } }));
    const body = await res.json();
    expect(res.status).toBe(500);
    expect(body.error.code).toBe("internal_error");
    expect(JSON.stringify(body)).not.toContain("secret");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "error", status: 500, request_id: body.meta.request_id });
    expect(lines[0].error).toMatch(/22003/);
  });
});

describe("the rate-limit ring", () => {
  it("does not queue a key's other requests behind its slow one", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const holder = await admin().connect();
    try {
      await holder.query("begin");
      await holder.query("select 1 from app.tournaments where id = $1 for update", [tournament.id]);
      let patched = false;
      const slow = t.request("PATCH", `/tournaments/${tournament.id}`, { body: { name: "Slow" } }).finally(() => (patched = true));
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      const fast = await t.request("GET", "/tournaments?limit=1");
      expectStatus(fast, 200);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(patched).toBe(false); // the slow request is still waiting for the tournament
      await holder.query("commit");
      expectStatus(await slow, 200);
    } finally {
      await holder.query("rollback").catch(() => {});
      holder.release();
    }
  });

  it("reads the clock after waiting for the ring's lock: RateLimit-Reset never exceeds 60", async () => {
    const t = await tenant();
    await setRateHits(t.keyId, []);
    const holder = await admin().connect();
    try {
      // A concurrent counted request: it locks the ring, and its hit is newer than our arrival.
      await holder.query("begin");
      await holder.query("select 1 from app.rate_limits where api_key_id = $1 for update", [t.keyId]);
      const pending = t.request("GET", "/tournaments?limit=1");
      await new Promise((r) => setTimeout(r, 500));
      const { rows: [{ at }] } = await holder.query(
        `update app.rate_limits set slots[next_slot] = clock_timestamp(), next_slot = next_slot % 100 + 1
          where api_key_id = $1 returning clock_timestamp() as at`,
        [t.keyId],
      );
      await new Promise((r) => setTimeout(r, 1000));
      await holder.query("commit");
      const res = await pending;
      expectStatus(res, 200);
      expect(Number(res.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(60);
      expect(Number(res.headers.get("ratelimit-remaining"))).toBe(98);
      const [{ newest }] = await sql("select max(s) newest from app.rate_limits r, unnest(r.slots) s where r.api_key_id = $1", [t.keyId]);
      expect(newest.getTime()).toBeGreaterThan(new Date(at).getTime() + 900); // stamped after the wait
    } finally {
      await holder.query("rollback").catch(() => {});
      holder.release();
    }
  });

  it("rolls back a write whose count found the window full, and answers 429", async () => {
    const t = await tenant();
    await setRateHits(t.keyId, Array(99).fill(10));
    const tournament = await createTournament(t); // the 100th
    const holder = await admin().connect();
    try {
      await holder.query("begin");
      await holder.query("select 1 from app.tournaments where id = $1 for update", [tournament.id]);
      await holder.query("update app.rate_limits set slots[next_slot] = now(), next_slot = next_slot % 100 + 1 where api_key_id = $1", [
        t.keyId,
      ]);
      // The unlocked check still sees a free slot (an old -infinity); the count will not.
      const slow = t.request("PATCH", `/tournaments/${tournament.id}`, { body: { name: "Never" } });
      await new Promise((r) => setTimeout(r, 300));
      await holder.query("commit");
      const res = await slow;
      expectError(res, 429, "rate_limited");
      expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      const [{ name }] = await sql("select name from app.tournaments where id = $1", [tournament.id]);
      expect(name).not.toBe("Never");
    } finally {
      await holder.query("rollback").catch(() => {});
      holder.release();
    }
  });
});

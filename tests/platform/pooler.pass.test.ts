// The pooler pass's own check (vitest.pooler.config.ts): the function's requests really go through
// PgBouncer, in transaction mode, and many at once share a few server connections.
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { sql, tenant } from "../support/helpers.ts";

/** One of PgBouncer's admin console's tables (simple queries only), as rows. */
async function show(what: string): Promise<Record<string, string>[]> {
  const url = inject("poolerAdminUrl");
  if (!url) throw new Error("not the pooler pass: run it with vitest.pooler.config.ts");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(`show ${what}`)).rows;
  } finally {
    await c.end();
  }
}

describe("the function behind PgBouncer", () => {
  it("runs in transaction mode, and every request of the function's role goes through it", async () => {
    const config = await show("config");
    expect(config.find((r) => r.key === "pool_mode")?.value).toBe("transaction");
    const before = await show("stats");
    const xacts = (rows: Record<string, string>[]) => Number(rows.find((r) => r.database === "postgres")?.total_xact_count ?? 0);
    const t = await tenant();
    const answers = await Promise.all(Array.from({ length: 30 }, () => t.request("GET", "/tournaments")));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    const after = await show("stats");
    expect(xacts(after) - xacts(before)).toBeGreaterThanOrEqual(30);
    // The function's clients are PgBouncer's: it, not Postgres, holds their connections.
    const clients = await show("clients");
    expect(clients.filter((c) => c.user === "tournament_api" && c.database === "postgres").length).toBeGreaterThan(0);
  });

  it("leaves the function's role no connection to Postgres but PgBouncer's own", async () => {
    const t = await tenant();
    expect((await t.request("GET", "/tournaments")).status).toBe(200);
    // Postgres's view first, PgBouncer's after: a server connection opened in between is in both.
    const backends = await sql<{ pid: number }>("select pid from pg_stat_activity where usename = 'tournament_api'");
    const servers = new Set((await show("servers")).map((r) => Number(r.remote_pid)));
    expect(backends.length, "the function holds a connection").toBeGreaterThan(0);
    expect(backends.filter((b) => !servers.has(b.pid)), "connections that go around PgBouncer").toEqual([]);
  });
});

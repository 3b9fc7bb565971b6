// The same handler the Deno entry serves, called in-process (no HTTP), plus the pure key module.
import { afterAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { createHandler, type LogLine } from "../../functions/api/app.ts";
import { connect } from "../../functions/api/db-connection.ts";
import { base62, crc32, isWellFormedKey } from "../../functions/api/keys.ts";
import { hex, sha256 } from "../../functions/api/sha256.ts";
import { createHash, randomBytes } from "node:crypto";
import { asFunctionRole, createAccount, createKey, setRateHits, sql, tournamentBody } from "../support/helpers.ts";
import { hashKey } from "../../functions/api/keys.ts";
import { loadConfig, MIN_QUERY_TIMEOUT_MS } from "../../functions/api/config.ts";

const db = connect({ databaseUrl: inject("functionDbUrl"), poolSize: 2, connectTimeoutMs: 2000, queryTimeoutMs: 5000 });
const lines: LogLine[] = [];
const handler = createHandler({ db, log: (l) => lines.push(l), publicBaseUrl: "https://example.test/functions/v1" });
afterAll(() => db.end());

describe("the handler in-process", () => {
  it("creates and reads a tournament, with Location from the public base URL", async () => {
    const account = await createAccount();
    const { key, id: keyId } = await createKey(account);
    const created = await handler(
      new Request("http://local/api/v1/tournaments", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(tournamentBody({ name: "In-process Open" })),
      }),
    );
    const body = await created.json();
    expect(created.status, JSON.stringify(body)).toBe(201);
    expect(created.headers.get("location")).toBe(`https://example.test/functions/v1/api/v1/tournaments/${body.data.id}`);

    const read = await handler(
      new Request(`http://local/api/v1/tournaments/${body.data.id}`, {
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    expect(read.status).toBe(200);
    expect((await read.json()).data.name).toBe("In-process Open");

    const logged = lines.filter((l) => l.key_id === keyId);
    expect(logged.map((l) => [l.route, l.status])).toEqual([
      ["POST /tournaments", 201],
      ["GET /tournaments/{id}", 200],
    ]);
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it("answers 404 for a path outside /api/v1", async () => {
    const res = await handler(new Request("http://local/other"));
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
  });
});

describe("API key format", () => {
  it("computes the same CRC32 as the database", async () => {
    const samples = ["", "tmk_", "hello world", "tmk_" + "x".repeat(43), "ünïcode"];
    const rows = await sql<{ crc: string }>(
      "select app.crc32(convert_to(s, 'UTF8'))::text as crc from unnest($1::text[]) with ordinality u(s, i) order by i",
      [samples],
    );
    expect(rows.map((r) => Number(r.crc))).toEqual(samples.map((s) => crc32(new TextEncoder().encode(s))));
  });

  it("accepts keys the database issues and refuses a changed character", async () => {
    const { key } = await createKey(await createAccount());
    expect(key).toMatch(/^tmk_[0-9A-Za-z]{49}$/);
    expect(isWellFormedKey(key)).toBe(true);
    const body = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(isWellFormedKey(body)).toBe(false);
    expect(isWellFormedKey(key.slice(0, -1))).toBe(false);
  });

  it("hashes like node:crypto's SHA-256 for every length around the block boundaries", () => {
    for (let length = 0; length < 200; length++) {
      const bytes = new Uint8Array(randomBytes(length));
      expect(hex(sha256(bytes)), `length ${length}`).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
  });

  it("encodes base62 with left padding", () => {
    expect(base62(0, 6)).toBe("000000");
    expect(base62(61, 2)).toBe("0z");
    expect(base62(62, 2)).toBe("10");
    expect(base62(0xffffffff, 6)).toBe("4gfFC3");
  });
});

describe("the rate limit's 429", () => {
  it("takes no lock and writes nothing when the window is already full", async () => {
    const account = await createAccount();
    const { key, id } = await createKey(account);
    await setRateHits(id, Array.from({ length: 100 }, (_, i) => (i + 1) / 10));
    const [before] = await sql<{ xmin: string }>("select xmin::text from app.rate_limits where api_key_id = $1", [id]);
    const res = await handler(new Request("http://local/api/v1/tournaments", { headers: { authorization: `Bearer ${key}` } }));
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(50);
    const [after] = await sql<{ xmin: string }>("select xmin::text from app.rate_limits where api_key_id = $1", [id]);
    expect(after.xmin).toBe(before.xmin);
  });
});

describe("commit durability", () => {
  async function syncCommitAfter(op: string | null, scope: string, args: unknown) {
    const account = await createAccount();
    const { key } = await createKey(account);
    return asFunctionRole(null, async (c) => {
      await c.query("select * from api.call($1, $2, $3, $4, null)", [await hashKey(key), scope, op, JSON.stringify(args)]);
      const { rows } = await c.query("select current_setting('synchronous_commit') as v");
      return rows[0].v;
    });
  }

  it("lets a read commit without waiting for the WAL flush (it writes only its rate-limit count)", async () => {
    expect(await syncCommitAfter("tournaments.list", "read:tournaments", { query: {} })).toBe("off");
    expect(await syncCommitAfter(null, "read:tournaments", null)).toBe("off");
  });

  it("keeps writes durable: a writing operation commits with synchronous_commit on", async () => {
    expect(await syncCommitAfter("tournaments.create", "write:tournaments", { body: tournamentBody() })).toBe("on");
  });
});

describe("configuration", () => {
  it("keeps the client query timeout above the role's 10 s statement_timeout, so the server rolls back first", () => {
    const env = (vars: Record<string, string>) => (name: string) => vars[name];
    expect(loadConfig(env({ DB_QUERY_TIMEOUT_MS: "3000" })).queryTimeoutMs).toBe(MIN_QUERY_TIMEOUT_MS);
    expect(loadConfig(env({ DB_QUERY_TIMEOUT_MS: "20000" })).queryTimeoutMs).toBe(20000);
    expect(loadConfig(env({})).queryTimeoutMs).toBe(15000);
  });

  it("derives the public base URL for Location from SUPABASE_URL on Supabase", () => {
    const config = loadConfig((name) => ({ SUPABASE_URL: "https://abc.supabase.co" } as Record<string, string>)[name]);
    expect(config.publicBaseUrl).toBe("https://abc.supabase.co/functions/v1");
  });
});

// Key introspection (contract section 9, issue 12): GET /me answers any valid key, whatever its
// scopes, with the key, its account and the key's rate-limit state; the request itself counts.
// It never shows the key's secret or its hash.
import { describe, expect, it } from "vitest";
import {
  ALL_SCOPES,
  createAccount,
  createKey,
  expectError,
  expectStatus,
  rateHits,
  request,
  setRateHits,
  sql,
  tenant,
} from "../support/helpers.ts";

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

async function keyRow(id: string) {
  const [row] = await sql<{ name: string; prefix: string; scopes: string[]; expires_at: Date | null; created_at: Date }>(
    "select name, prefix, scopes::text[] scopes, expires_at, created_at from app.api_keys where id = $1",
    [id],
  );
  return row;
}

describe("GET /me", () => {
  it("describes the key, its account and its rate limit", async () => {
    const accountId = await createAccount(true, "Introspection Esports");
    const { id, key } = await createKey(accountId);
    const res = await request("GET", "/me", { key });
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.pagination).toBeUndefined();
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(["account", "key", "rate_limit"]);
    expect(Object.keys(data.key).sort()).toEqual(["created_at", "expires_at", "id", "name", "prefix", "scopes"]);
    const row = await keyRow(id);
    expect(data.key).toMatchObject({ id, name: "test key", prefix: row.prefix, expires_at: null });
    expect(key.startsWith(data.key.prefix)).toBe(true);
    expect(data.key.prefix.length).toBeLessThan(key.length / 2);
    expect([...data.key.scopes].sort()).toEqual([...ALL_SCOPES].sort());
    expect(data.key.created_at).toMatch(ISO_UTC);
    expect(Date.parse(data.key.created_at)).toBe(row.created_at.getTime());
    expect(data.account).toEqual({ id: accountId, name: "Introspection Esports" });
    expect(Object.keys(data.rate_limit).sort()).toEqual(["limit", "remaining", "reset", "window"]);
    expect(data.rate_limit).toMatchObject({ limit: 100, remaining: 99, window: 60 });
    expect(Number.isInteger(data.rate_limit.reset)).toBe(true);
    expect(data.rate_limit.reset).toBeGreaterThanOrEqual(1);
    expect(data.rate_limit.reset).toBeLessThanOrEqual(60);
    expect(data.rate_limit.remaining).toBe(Number(res.headers.get("ratelimit-remaining")));
    expect(data.rate_limit.limit).toBe(Number(res.headers.get("ratelimit-limit")));
    expect(Math.abs(data.rate_limit.reset - Number(res.headers.get("ratelimit-reset")))).toBeLessThanOrEqual(1);
    expect(res.body.meta.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("counts toward the rate limit: remaining falls by one per request and matches the header", async () => {
    const t = await tenant();
    for (const want of [99, 98, 97]) {
      const res = await t.request("GET", "/me");
      expectStatus(res, 200);
      expect(res.body.data.rate_limit.remaining).toBe(want);
      expect(res.headers.get("ratelimit-remaining")).toBe(String(want));
    }
    expect(await rateHits(t.keyId)).toBe(3);
    // Other routes share the same window.
    expectStatus(await t.request("GET", "/tournaments"), 200);
    expect((await t.request("GET", "/me")).body.data.rate_limit.remaining).toBe(95);
  });

  it("shows the window's state: 60 hits counted before leave 39 after this request, reset when the oldest leaves", async () => {
    const t = await tenant();
    await setRateHits(t.keyId, [...Array(59).fill(5), 50]); // the oldest, 50 s ago, leaves in about 10 s
    const res = await t.request("GET", "/me");
    expectStatus(res, 200);
    expect(res.body.data.rate_limit.remaining).toBe(39);
    expect(res.body.data.rate_limit.reset).toBeGreaterThanOrEqual(9);
    expect(res.body.data.rate_limit.reset).toBeLessThanOrEqual(11);
  });

  it("answers 429 rate_limited when the key is out of requests", async () => {
    const t = await tenant();
    await setRateHits(t.keyId, Array(100).fill(1));
    const res = await t.request("GET", "/me");
    expectError(res, 429, "rate_limited");
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it.each([["read:results"], ["write:teams"], ["read:teams"], ["write:registrations"]])(
    "needs no scope: a key holding only %s may call it, and sees its scopes",
    async (scope) => {
      const t = await tenant([scope]);
      const res = await t.request("GET", "/me");
      expectStatus(res, 200);
      expect(res.body.data.key.scopes).toEqual([scope]);
      expect(res.body.data.key.id).toBe(t.keyId);
    },
  );

  it("shows an expiring key's expires_at in UTC", async () => {
    const accountId = await createAccount(true, "Expiring");
    const expires = new Date(Date.now() + 3 * 86_400_000);
    const { id, key } = await createKey(accountId, ["read:tournaments"], expires);
    const res = await request("GET", "/me", { key });
    expectStatus(res, 200);
    expect(res.body.data.key.expires_at).toMatch(ISO_UTC);
    expect(Date.parse(res.body.data.key.expires_at)).toBe((await keyRow(id)).expires_at!.getTime());
  });

  it("tells two keys of one account apart, and two accounts apart", async () => {
    const t = await tenant();
    const second = await t.newKey(["read:teams"]);
    const other = await tenant();
    const a = await t.request("GET", "/me");
    const b = await request("GET", "/me", { key: second.key });
    const c = await other.request("GET", "/me");
    for (const r of [a, b, c]) expectStatus(r, 200);
    expect(a.body.data.key.id).toBe(t.keyId);
    expect(b.body.data.key.id).toBe(second.id);
    expect(a.body.data.account.id).toBe(t.accountId);
    expect(b.body.data.account.id).toBe(t.accountId);
    expect(c.body.data.account.id).toBe(other.accountId);
    expect(c.text).not.toContain(t.accountId);
    // Each key has its own window.
    expect(b.body.data.rate_limit.remaining).toBe(99);
  });

  it("never shows the key, its secret part or a hash", async () => {
    const t = await tenant();
    const res = await t.request("GET", "/me");
    expectStatus(res, 200);
    expect(res.text).not.toContain(t.key);
    expect(res.text).not.toContain(t.key.slice(12));
    expect(res.text).not.toContain(t.key.slice(4, -6));
    expect(res.text).not.toMatch(/[0-9a-fA-F]{64}/);
    expect(res.text).not.toMatch(/tmk_[0-9A-Za-z]{20,}/);
    const [{ hash, b64 }] = await sql<{ hash: string; b64: string }>(
      "select encode(key_hash, 'hex') hash, encode(key_hash, 'base64') b64 from app.api_keys where id = $1",
      [t.keyId],
    );
    expect(res.text.toLowerCase()).not.toContain(hash);
    expect(res.text).not.toContain(b64);
    expect(res.text).not.toMatch(/hash|secret/i);
  });

  describe("refusals", () => {
    it("returns 401 without a key, and for a revoked or expired key", async () => {
      const t = await tenant();
      const revoked = await t.newKey();
      await sql("select admin.revoke_api_key($1)", [revoked.id]);
      const expired = await t.newKey();
      await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [expired.id]);
      for (const key of [null, revoked.key, expired.key, "tmk_short"]) {
        const res = await request("GET", "/me", { key });
        expectError(res, 401, "unauthorized");
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      }
    });

    it("returns 403 api_access_disabled for a key of a disabled account", async () => {
      const { key } = await createKey(await createAccount(false, "Switched Off"));
      const res = await request("GET", "/me", { key });
      expectError(res, 403, "api_access_disabled");
      expect(res.text).not.toContain("Switched Off");
    });

    it.each(["POST", "PATCH", "DELETE"])("returns 405 with Allow for %s", async (method) => {
      const t = await tenant();
      const res = await t.request(method, "/me", method === "DELETE" ? {} : { body: {} });
      expectError(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")).toContain("GET");
    });
  });
});

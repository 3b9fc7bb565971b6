// The function's configuration rules (functions/api/config.ts), and the real function started
// the way it runs on Supabase: without DATABASE_URL it refuses to serve (503 on every request),
// and without LOG_REQUESTS it logs errors only.
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_POOL_SIZE, loadConfig, LOCAL_DATABASE_URL, SUPABASE_RUNTIME_MARKERS } from "../../functions/api/config.ts";
import { base62, crc32 } from "../../functions/api/keys.ts";
import { freePort, startFunction } from "../../scripts/stack.mjs";

const env = (vars: Record<string, string>) => (name: string) => vars[name];
const DEPLOYED = { SB_REGION: "eu-central-1", SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co" };
const POOLER_URL = "postgres://tournament_api.abcdefghijklmnopqrst:pw@aws-0-eu-central-1.pooler.supabase.com:6543/postgres";

describe("configuration rules", () => {
  it("locally: the local stack's URL, a pool of 10, no request logs", () => {
    const config = loadConfig(env({}));
    expect(config).toMatchObject({ databaseUrl: LOCAL_DATABASE_URL, poolSize: 10, onSupabase: false, logRequests: false });
    expect(config.publicBaseUrl).toBeUndefined();
  });

  it.each(SUPABASE_RUNTIME_MARKERS)("%s alone means running on Supabase: no DATABASE_URL is no database", (marker) => {
    const config = loadConfig(env({ [marker]: marker === "SUPABASE_URL" ? "https://x.supabase.co" : "x" }));
    expect(config.onSupabase).toBe(true);
    expect(config.databaseUrl).toBeNull();
    expect(config.poolSize).toBe(DEFAULT_POOL_SIZE.onSupabase);
  });

  it("on Supabase, an empty DATABASE_URL counts as unset; a set one is used as given", () => {
    expect(loadConfig(env({ ...DEPLOYED, DATABASE_URL: "  " })).databaseUrl).toBeNull();
    expect(loadConfig(env({ ...DEPLOYED, DATABASE_URL: POOLER_URL })).databaseUrl).toBe(POOLER_URL);
    expect(loadConfig(env({ DATABASE_URL: POOLER_URL })).databaseUrl).toBe(POOLER_URL);
  });

  it("the pool is small on Supabase and DB_POOL_SIZE overrides it (a positive integer, else the default)", () => {
    expect(DEFAULT_POOL_SIZE.onSupabase).toBeGreaterThanOrEqual(1);
    expect(DEFAULT_POOL_SIZE.onSupabase).toBeLessThanOrEqual(4);
    expect(loadConfig(env({ ...DEPLOYED, DB_POOL_SIZE: "1" })).poolSize).toBe(1);
    expect(loadConfig(env({ DB_POOL_SIZE: "25" })).poolSize).toBe(25);
    for (const bad of ["0", "-2", "2.5", "lots", ""]) {
      expect(loadConfig(env({ ...DEPLOYED, DB_POOL_SIZE: bad })).poolSize).toBe(DEFAULT_POOL_SIZE.onSupabase);
      expect(loadConfig(env({ DB_POOL_SIZE: bad })).poolSize).toBe(DEFAULT_POOL_SIZE.local);
    }
  });

  it("LOG_REQUESTS turns request logs on (true, 1, yes, on); anything else leaves them off", () => {
    for (const on of ["true", "TRUE", "1", "yes", "on"]) expect(loadConfig(env({ LOG_REQUESTS: on })).logRequests).toBe(true);
    for (const off of ["false", "0", "no", "", "verbose"]) expect(loadConfig(env({ LOG_REQUESTS: off })).logRequests).toBe(false);
  });

  it("derives the public base URL from SUPABASE_URL unless PUBLIC_BASE_URL is set", () => {
    expect(loadConfig(env(DEPLOYED)).publicBaseUrl).toBe("https://abcdefghijklmnopqrst.supabase.co/functions/v1");
    expect(loadConfig(env({ ...DEPLOYED, PUBLIC_BASE_URL: "https://api.example.com" })).publicBaseUrl).toBe("https://api.example.com");
  });
});

/** A key of the right shape and checksum (it exists nowhere). */
function wellFormedKey(): string {
  let body = "tmk_";
  for (let i = 0; i < 43; i++) body += base62(Math.floor(Math.random() * 62), 1);
  return body + base62(crc32(new TextEncoder().encode(body)), 6);
}

type Fn = Awaited<ReturnType<typeof startFunction>>;
const started: Fn[] = [];
afterAll(async () => {
  await Promise.all(started.map((fn) => fn.stop()));
});

async function start(options: { databaseUrl?: string; env: Record<string, string> }) {
  const lines: string[] = [];
  const fn = await startFunction({ port: await freePort(), ...options, onLine: (l: string) => lines.push(l) });
  started.push(fn);
  return { base: `${fn.url}/functions/v1/api/v1`, lines };
}

const parsed = (lines: string[]) => lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));

describe("the real function, deployed without DATABASE_URL", () => {
  it("logs why at start and answers every request 503 service_unavailable in the envelope", async () => {
    const { base, lines } = await start({ databaseUrl: undefined, env: DEPLOYED });
    expect(parsed(lines).some((l) => l.level === "error" && /DATABASE_URL is not set/.test(l.msg))).toBe(true);

    const key = wellFormedKey();
    const requests: [string, RequestInit][] = [
      [`${base}/tournaments`, { headers: { authorization: `Bearer ${key}` } }],
      [`${base}/tournaments`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: "{}",
      }],
      [`${base}/tournaments`, {}],
      [`${base}/openapi.json`, {}],
      [`${base}/docs`, {}],
      [`${base}/nowhere`, { method: "DELETE" }],
    ];
    for (const [url, init] of requests) {
      const res = await fetch(url, init);
      const body = await res.json();
      expect(res.status, `${init.method ?? "GET"} ${url}`).toBe(503);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(body).toMatchObject({ success: false, error: { code: "service_unavailable" } });
      expect(body.meta.request_id).toBe(res.headers.get("x-request-id"));
      expect(typeof body.meta.timestamp).toBe("string");
    }
    await new Promise((r) => setTimeout(r, 100));
    const requestLines = parsed(lines).filter((l) => l.msg === "request");
    expect(requestLines).toHaveLength(requests.length);
    for (const l of requestLines) expect(l).toMatchObject({ level: "error", status: 503, error_code: "service_unavailable" });
    expect(lines.join("\n")).not.toContain(key);
  });
});

describe("request logs", () => {
  it("without LOG_REQUESTS, only errors are logged", async () => {
    // A database that is not there: the API's own routes answer, database calls are 503.
    const closed = await freePort();
    const { base, lines } = await start({
      databaseUrl: `postgres://tournament_api:tournament_api@127.0.0.1:${closed}/postgres`,
      env: { LOG_REQUESTS: "false", DB_CONNECT_TIMEOUT_MS: "1000" },
    });
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
    const res = await fetch(`${base}/tournaments`, { headers: { authorization: `Bearer ${wellFormedKey()}` } });
    expect(res.status).toBe(503);
    await new Promise((r) => setTimeout(r, 100));
    const requestLines = parsed(lines).filter((l) => l.msg === "request");
    expect(requestLines.map((l) => [l.level, l.status])).toEqual([["error", 503]]);
  });
});

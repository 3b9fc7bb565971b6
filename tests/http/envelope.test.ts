// Contract section 2 (and the rate-limit headers of section 6): the envelope, the headers, the
// error codes of the HTTP layer, the order of checks, 503 without a database, and the log lines.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { routes } from "../../functions/api/routes.ts";
import { base62, crc32 } from "../../functions/api/keys.ts";
import { freePort, startFunction } from "../../scripts/stack.mjs";
import {
  type ApiResponse,
  apiUrl,
  createAccount,
  createKey,
  createTournament,
  expectStatus,
  request,
  setRateHits,
  sql,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** A well-formed key (valid checksum) that no account holds. */
function unknownKey(): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let body = "tmk_";
  for (const b of crypto.getRandomValues(new Uint8Array(43))) body += alphabet[b % 62];
  return body + base62(crc32(new TextEncoder().encode(body)), 6);
}

function expectEnvelopeHeaders(res: ApiResponse) {
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("no-store");
}

function expectMeta(res: ApiResponse) {
  const meta = res.body.meta;
  expect(Object.keys(meta).sort()).toEqual(["api_version", "request_id", "timestamp"]);
  expect(meta.api_version).toBe("1.0");
  expect(meta.timestamp).toMatch(ISO_Z);
  expect(Math.abs(Date.parse(meta.timestamp) - Date.now())).toBeLessThan(60_000);
  expect(typeof meta.request_id).toBe("string");
  expect(meta.request_id.length).toBeGreaterThan(0);
  expect(res.headers.get("x-request-id")).toBe(meta.request_id);
}

function expectError(res: ApiResponse, status: number, code: string) {
  expectStatus(res, status);
  expectEnvelopeHeaders(res);
  expect(Object.keys(res.body).sort(), res.text).toEqual(["error", "meta", "success"]);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code, res.text).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  expect(res.body.error.message.length).toBeGreaterThan(0);
  for (const key of Object.keys(res.body.error)) expect(["code", "message", "details"]).toContain(key);
  expectMeta(res);
}

/** Sets a key's rate-limit window to `count` accepted requests made `agoSeconds` ago. */
async function fillWindow(keyId: string, count: number, agoSeconds: number) {
  await setRateHits(keyId, Array(count).fill(agoSeconds));
}

const origin = () => new URL(apiUrl()).origin;

// ---------------------------------------------------------------------------------------------
describe("envelope", () => {
  it("wraps a success in {success, data, meta} with meta.request_id equal to X-Request-Id", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("GET", `/tournaments/${created.id}`);
    expectStatus(res, 200);
    expectEnvelopeHeaders(res);
    expect(Object.keys(res.body).sort()).toEqual(["data", "meta", "success"]);
    expect(res.body.success).toBe(true);
    expect(res.body.data.id).toBe(created.id);
    expectMeta(res);
  });

  it("wraps the tournament list in {success, data, pagination, meta}", async () => {
    const t = await tenant();
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 200);
    expectEnvelopeHeaders(res);
    expect(Object.keys(res.body).sort()).toEqual(["data", "meta", "pagination", "success"]);
    expectMeta(res);
  });

  it("answers 201 with the envelope and a Location header that resolves to the new resource", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(res, 201);
    expectEnvelopeHeaders(res);
    expectMeta(res);
    const location = res.headers.get("location")!;
    expect(location).toBe(`${apiUrl()}/tournaments/${res.body.data.id}`);
    const follow = await fetch(location, { headers: { authorization: `Bearer ${t.key}` } });
    expect(follow.status).toBe(200);
    expect((await follow.json()).data).toEqual(res.body.data);
  });

  it("gives every response its own request id", async () => {
    const t = await tenant();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await t.request("GET", "/tournaments");
      expectMeta(res);
      ids.add(res.body.meta.request_id);
    }
    expect(ids.size).toBe(5);
  });

  it("wraps errors in {success: false, error: {code, message, details}, meta} with field details", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ max_teams: 1, colour: "red" }) });
    expectError(res, 400, "validation_error");
    expect(res.body.error.details).toEqual(expect.arrayContaining([
      { field: "max_teams", message: expect.any(String) },
      { field: "colour", message: expect.any(String) },
    ]));
  });

  it("serves the same API under /api/v1 directly, as the function sees it on Supabase", async () => {
    const t = await tenant();
    const res = await fetch(`${origin()}/api/v1/tournaments`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
      body: JSON.stringify(tournamentBody()),
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(res.headers.get("location")).toBe(`${origin()}/api/v1/tournaments/${body.data.id}`);
  });
});

// ---------------------------------------------------------------------------------------------
describe("CORS", () => {
  it("answers a preflight OPTIONS without a key, allowing the API's methods and headers", async () => {
    const res = await fetch(`${apiUrl()}/tournaments`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, idempotency-key",
      },
    });
    expect([200, 204]).toContain(res.status);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const methods = res.headers.get("access-control-allow-methods")!.split(/\s*,\s*/);
    for (const m of ["GET", "POST", "PATCH", "DELETE"]) expect(methods).toContain(m);
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase().split(/\s*,\s*/);
    for (const h of ["authorization", "content-type", "idempotency-key"]) expect(allowed).toContain(h);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("lets browsers read the API's headers on ordinary responses", async () => {
    const t = await tenant();
    const res = await t.request("GET", "/tournaments", { headers: { origin: "https://app.example.com" } });
    expectStatus(res, 200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = res.headers.get("access-control-expose-headers")!.toLowerCase().split(/\s*,\s*/);
    for (
      const h of [
        "x-request-id",
        "location",
        "retry-after",
        "ratelimit",
        "ratelimit-policy",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
      ]
    ) expect(exposed).toContain(h);
  });
});

// ---------------------------------------------------------------------------------------------
describe("routing", () => {
  it.each(["/nope", "/tournaments/6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b/nope", "/tournaments/x/y/z", ""])(
    "returns 404 not_found for the unknown route %j, before any key check",
    async (path) => {
      expectError(await request("GET", path), 404, "not_found");
      expectError(await request("GET", path, { key: "not-a-key" }), 404, "not_found");
    },
  );

  it("returns 404 not_found outside /api/v1", async () => {
    const res = await fetch(`${origin()}/api/v2/tournaments`);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe("not_found");
  });

  const paths = [...new Set(routes.map((r) => r.path))];
  it.each(paths)("returns 405 method_not_allowed with Allow listing the methods of %s", async (path) => {
    const concrete = path.replace(/\{\w+\}/g, () => crypto.randomUUID());
    const methods: string[] = routes.filter((r) => r.path === path).map((r) => r.method);
    const expected = [...methods, ...(methods.includes("GET") ? ["HEAD"] : [])].sort();
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].filter((m) => !expected.includes(m))) {
      const res = await request(method, concrete); // no key: the route check comes first
      if (method === "HEAD") expect([res.status, res.text]).toEqual([405, ""]); // HEAD: no body
      else expectError(res, 405, "method_not_allowed");
      expect(res.headers.get("allow")!.split(/\s*,\s*/).sort()).toEqual(expected);
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe("request bodies", () => {
  const invalid: [string, BodyInit][] = [
    ["truncated JSON", '{"name": "x"'],
    ["a trailing comma", '{"name": "x",}'],
    ["an empty body", ""],
    ["a JSON array", "[]"],
    ["a JSON number", "42"],
    ["a JSON string", '"hello"'],
    ["JSON null", "null"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d])],
  ];
  it.each(invalid)("returns 400 invalid_json for %s and creates nothing", async (_what, rawBody) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { rawBody, headers: { "content-type": "application/json" } });
    expectError(res, 400, "invalid_json");
    const [{ n }] = await sql("select count(*)::int n from app.tournaments where account_id = $1", [t.accountId]);
    expect(n).toBe(0);
  });

  it("returns 400 invalid_json on PATCH as well", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, {
      rawBody: "[1,2]",
      headers: { "content-type": "application/json" },
    });
    expectError(res, 400, "invalid_json");
  });

  it("accepts application/json with a charset parameter", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", {
      rawBody: JSON.stringify(tournamentBody()),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expectStatus(res, 201);
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp"])(
    "returns 415 unsupported_media_type for a %s body",
    async (type) => {
      const t = await tenant();
      const res = await t.request("POST", "/tournaments", { rawBody: JSON.stringify(tournamentBody()), headers: { "content-type": type } });
      expectError(res, 415, "unsupported_media_type");
    },
  );

  it("returns 415 unsupported_media_type for a body without a content type", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { rawBody: new Blob([JSON.stringify(tournamentBody())]) });
    // Blob without a type sends no Content-Type; a string body would be sent as text/plain.
    expectError(res, 415, "unsupported_media_type");
  });

  it("returns 413 payload_too_large for a body over 64 KiB and creates nothing", async () => {
    const t = await tenant();
    const body = JSON.stringify(tournamentBody({ description: "x".repeat(64 * 1024) }));
    expect(body.length).toBeGreaterThan(64 * 1024);
    const res = await t.request("POST", "/tournaments", { rawBody: body, headers: { "content-type": "application/json" } });
    expectError(res, 413, "payload_too_large");
    const [{ n }] = await sql("select count(*)::int n from app.tournaments where account_id = $1", [t.accountId]);
    expect(n).toBe(0);
  });

  it("does not answer 413 for a body of exactly 64 KiB", async () => {
    const t = await tenant();
    const base = JSON.stringify(tournamentBody({ description: "" }));
    const body = JSON.stringify(tournamentBody({ description: "x".repeat(64 * 1024 - base.length) }));
    expect(Buffer.byteLength(body)).toBe(64 * 1024);
    const res = await t.request("POST", "/tournaments", { rawBody: body, headers: { "content-type": "application/json" } });
    expectError(res, 400, "validation_error"); // the description is over 5,000 chars, but the size is fine
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(["description"]);
  });

  it("returns 413 payload_too_large for a streamed body over 64 KiB without Content-Length", async () => {
    const t = await tenant();
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"description":"'));
        if (sent < 6) controller.enqueue(chunk);
        else {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
        }
        sent++;
      },
    });
    const res = await fetch(`${apiUrl()}/tournaments`, {
      method: "POST",
      body: stream,
      duplex: "half",
      headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("payload_too_large");
  });
});

// ---------------------------------------------------------------------------------------------
describe("order of checks", () => {
  const badBodies: [string, BodyInit, string][] = [
    ["invalid JSON", "{", "application/json"],
    ["an invalid field", JSON.stringify({ max_teams: 0 }), "application/json"],
    ["a wrong media type", "{}", "text/plain"],
    ["an oversized body", JSON.stringify({ description: "x".repeat(70_000) }), "application/json"],
  ];

  it.each(badBodies)("returns 401 (not 400/413/415) for %s without a key", async (_w, rawBody, type) => {
    const res = await request("POST", "/tournaments", { rawBody, headers: { "content-type": type } });
    expectError(res, 401, "unauthorized");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
  });

  it.each(badBodies)("returns 403 api_access_disabled (not 400/413/415) for %s on a disabled account", async (_w, rawBody, type) => {
    const { key } = await createKey(await createAccount(false));
    const res = await request("POST", "/tournaments", { key, rawBody, headers: { "content-type": type } });
    expectError(res, 403, "api_access_disabled");
  });

  it.each(badBodies)("returns 403 insufficient_scope (not 400/413/415) for %s with a key lacking the scope", async (_w, rawBody, type) => {
    const t = await tenant(["read:tournaments"]);
    const res = await t.request("POST", "/tournaments", { rawBody, headers: { "content-type": type } });
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:tournaments");
  });

  it.each(badBodies)("returns 429 (not 400/403) for %s with a rate-limited key lacking the scope", async (_w, rawBody, type) => {
    const t = await tenant(["read:tournaments"]);
    await fillWindow(t.keyId, 100, 1);
    const res = await t.request("POST", "/tournaments", { rawBody, headers: { "content-type": type } });
    expectError(res, 429, "rate_limited");
  });

  it("returns 403 api_access_disabled before the rate limit and before the scope check", async () => {
    const accountId = await createAccount(false);
    const { id, key } = await createKey(accountId, ["read:tournaments"]);
    await fillWindow(id, 100, 1);
    const res = await request("POST", "/tournaments", { key, body: tournamentBody() });
    expectError(res, 403, "api_access_disabled");
  });

  it("returns 404 for an unknown route whatever the key, and 405 before the key check", async () => {
    expectError(await request("GET", "/nothing-here", { key: unknownKey() }), 404, "not_found");
    expectError(await request("PUT", "/tournaments", { key: unknownKey() }), 405, "method_not_allowed");
  });

  it("returns 400 (input) before 404 (existence) for an unknown tournament", async () => {
    const t = await tenant();
    const id = crypto.randomUUID();
    expectError(await t.request("PATCH", `/tournaments/${id}`, { body: { team_size: 0 } }), 400, "validation_error");
    expectError(
      await t.request("PATCH", `/tournaments/${id}`, { rawBody: "{", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
    expectError(await t.request("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 404, "not_found");
  });

  it("returns 400 (input) before 409 (state) on an ongoing tournament", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const teams = await sql<{ id: string }>("select admin.create_team('Order ' || i, 'O' || i) id from generate_series(1, 2) i");
    for (const { id } of teams) {
      expectStatus(await t.request("POST", `/tournaments/${created.id}/registrations`, { body: { team_id: id } }), 201);
    }
    expectStatus(await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing" } }), 200);
    expectError(await t.request("PATCH", `/tournaments/${created.id}`, { body: { team_size: 0 } }), 400, "validation_error");
    expectError(await t.request("PATCH", `/tournaments/${created.id}`, { body: { team_size: 2 } }), 409, "tournament_locked");
  });
});

// ---------------------------------------------------------------------------------------------
describe("rate-limit headers", () => {
  const expectRateHeaders = (res: ApiResponse, remaining: number) => {
    expect(res.headers.get("ratelimit-limit")).toBe("100");
    expect(res.headers.get("ratelimit-remaining")).toBe(String(remaining));
    const reset = Number(res.headers.get("ratelimit-reset"));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
    expect(res.headers.get("ratelimit")).toBe(`"default";r=${remaining};t=${reset}`);
    return reset;
  };

  it("counts down RateLimit-Remaining from 99 on a fresh key, with the IETF draft pair", async () => {
    const t = await tenant();
    const first = await t.request("GET", "/tournaments");
    expectStatus(first, 200);
    expect(expectRateHeaders(first, 99)).toBeGreaterThanOrEqual(59);
    const second = await t.request("GET", "/tournaments");
    expectRateHeaders(second, 98);
  });

  it("sends the headers on authenticated errors, which count too", async () => {
    const t = await tenant(["read:tournaments"]);
    const notFound = await t.request("GET", `/tournaments/${crypto.randomUUID()}`);
    expectError(notFound, 404, "not_found");
    expectRateHeaders(notFound, 99);
    const invalid = await t.request("GET", "/tournaments?limit=0");
    expectError(invalid, 400, "validation_error");
    expectRateHeaders(invalid, 98);
    const forbidden = await t.request("POST", "/tournaments", { body: tournamentBody() });
    expectError(forbidden, 403, "insufficient_scope");
    expectRateHeaders(forbidden, 97);
  });

  it("sends no rate-limit headers on a 401", async () => {
    const res = await request("GET", "/tournaments", { key: unknownKey() });
    expectError(res, 401, "unauthorized");
    for (const h of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit", "ratelimit-policy"]) {
      expect(res.headers.get(h)).toBeNull();
    }
  });

  it("gives RateLimit-Reset as the seconds until the oldest request in the window leaves it", async () => {
    const t = await tenant();
    await fillWindow(t.keyId, 1, 45);
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 200);
    const reset = expectRateHeaders(res, 98);
    expect(reset).toBeGreaterThanOrEqual(14);
    expect(reset).toBeLessThanOrEqual(16);
  });

  it("forgets requests older than 60 seconds (rolling window)", async () => {
    const t = await tenant();
    await fillWindow(t.keyId, 100, 61);
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 200);
    expectRateHeaders(res, 99);
  });

  it("returns 429 rate_limited with Retry-After equal to RateLimit-Reset when the window is full", async () => {
    const t = await tenant();
    await fillWindow(t.keyId, 100, 50);
    const res = await t.request("GET", "/tournaments");
    expectError(res, 429, "rate_limited");
    const retry = Number(res.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(9);
    expect(retry).toBeLessThanOrEqual(11);
    expect(res.headers.get("ratelimit-remaining")).toBe("0");
    expect(res.headers.get("ratelimit-reset")).toBe(String(retry));
    expect(res.headers.get("ratelimit")).toBe(`"default";r=0;t=${retry}`);
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
  });
});

// ---------------------------------------------------------------------------------------------
describe("internal errors", () => {
  it("returns 500 internal_error without leaking SQL or the database's message", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const tag = `t${crypto.randomUUID().replace(/-/g, "")}`;
    await sql(`create function public.${tag}() returns trigger language plpgsql as $$
      begin raise exception 'boom secret: select * from app.api_keys' using errcode = 'XX000'; end $$`);
    await sql(`create trigger ${tag} before update on app.tournaments for each row
      when (new.account_id = '${t.accountId}') execute function public.${tag}()`);
    let res: ApiResponse;
    try {
      res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { name: "Never stored" } });
    } finally {
      await sql(`drop trigger ${tag} on app.tournaments`);
      await sql(`drop function public.${tag}()`);
    }
    expectError(res, 500, "internal_error");
    expect(res.text).not.toMatch(/boom|secret|select|api_keys|app\.|XX000|\bat \w+ \(/i);
    expect(res.body.error.details).toBeUndefined();
    expect((await t.request("GET", `/tournaments/${created.id}`)).body.data.name).toBe(created.name);
    // The cause stays in the server's log, under the request id the client was given.
    const requestId = res.headers.get("x-request-id")!;
    let line: Record<string, unknown> | undefined;
    for (let attempt = 0; attempt < 20 && !line; attempt++) {
      await new Promise((r) => setTimeout(r, 100));
      line = fs.readFileSync(inject("logFile"), "utf8").split("\n").filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l)).find((l) => l.request_id === requestId);
    }
    expect(line).toMatchObject({ level: "error", status: 500, error_code: "internal_error", key_id: t.keyId });
    expect(String(line!.error)).toContain("boom");
  });
});

// ---------------------------------------------------------------------------------------------
describe("503 when the database is unreachable", () => {
  let down: { url: string; stop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    down = await startFunction({
      port: await freePort(),
      databaseUrl: "postgres://tournament_api:x@127.0.0.1:1/postgres",
      env: { DB_CONNECT_TIMEOUT_MS: "2000" },
    });
  });
  afterAll(async () => {
    await down?.stop();
  });

  const call = async (method: string, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${down!.url}/functions/v1/api/v1${path}`, { method, ...init });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) } as ApiResponse;
  };

  it("returns 503 service_unavailable for a well-formed key, with the full envelope", async () => {
    const res = await call("GET", "/tournaments", { headers: { authorization: `Bearer ${unknownKey()}` } });
    expectError(res, 503, "service_unavailable");
  });

  it("returns 503 service_unavailable for a create, which therefore did nothing", async () => {
    const res = await call("POST", "/tournaments", {
      headers: { authorization: `Bearer ${unknownKey()}`, "content-type": "application/json" },
      body: JSON.stringify(tournamentBody()),
    });
    expectError(res, 503, "service_unavailable");
    expect(res.headers.get("location")).toBeNull();
  });

  it("still answers the checks that need no database: 404, 405 and 401 for a missing or mistyped key", async () => {
    expectError(await call("GET", "/nope"), 404, "not_found");
    expectError(await call("PUT", "/tournaments"), 405, "method_not_allowed");
    expectError(await call("GET", "/tournaments"), 401, "unauthorized");
    const key = unknownKey();
    const flipped = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
    // A bad checksum is refused without a database lookup: 401 here, not 503.
    expectError(await call("GET", "/tournaments", { headers: { authorization: `Bearer ${flipped}` } }), 401, "unauthorized");
  });
});

// ---------------------------------------------------------------------------------------------
describe("log lines", () => {
  interface Line {
    request_id: string;
    key_id: string | null;
    route: string | null;
    status: number;
    duration_ms: number;
    method: string;
    level: string;
  }

  const linesFor = async (requestIds: string[]): Promise<Map<string, Line[]>> => {
    const found = new Map<string, Line[]>(requestIds.map((id) => [id, []]));
    for (let attempt = 0; attempt < 20; attempt++) {
      await new Promise((r) => setTimeout(r, 100));
      for (const list of found.values()) list.length = 0;
      for (const raw of fs.readFileSync(inject("logFile"), "utf8").split("\n")) {
        if (!raw.startsWith("{")) continue;
        const line = JSON.parse(raw);
        found.get(line.request_id)?.push(line);
      }
      if ([...found.values()].every((l) => l.length > 0)) break;
    }
    return found;
  };

  it("writes exactly one JSON line per request with request_id, key_id, route, status and duration_ms", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const ok = await t.request("GET", `/tournaments/${created.id}`);
    const missing = await t.request("GET", `/tournaments/${crypto.randomUUID()}`);
    const made = await t.request("POST", "/tournaments", { body: tournamentBody() });
    const ids = [ok, missing, made].map((r) => r.headers.get("x-request-id")!);
    const lines = await linesFor(ids);
    const [okLine, missingLine, madeLine] = ids.map((id) => {
      expect(lines.get(id)).toHaveLength(1);
      return lines.get(id)![0];
    });
    expect(okLine).toMatchObject({ request_id: ids[0], key_id: t.keyId, route: "GET /tournaments/{id}", status: 200, method: "GET" });
    expect(missingLine).toMatchObject({ key_id: t.keyId, route: "GET /tournaments/{id}", status: 404 });
    expect(madeLine).toMatchObject({ key_id: t.keyId, route: "POST /tournaments", status: 201, method: "POST" });
    for (const line of [okLine, missingLine, madeLine]) {
      expect(typeof line.duration_ms).toBe("number");
      expect(line.duration_ms).toBeGreaterThanOrEqual(0);
      expect(line.duration_ms).toBeLessThan(30_000);
    }
  });

  it("logs failed authentication and unknown routes with a null key_id and never the key", async () => {
    const t = await tenant();
    const unknown = unknownKey();
    const refused = await request("GET", "/tournaments", { key: unknown });
    const noRoute = await request("GET", "/no-such-route", { key: t.key });
    const good = await t.request("GET", "/tournaments");
    const ids = [refused, noRoute, good].map((r) => r.headers.get("x-request-id")!);
    const lines = await linesFor(ids);
    expect(lines.get(ids[0])).toEqual([expect.objectContaining({ key_id: null, route: "GET /tournaments", status: 401 })]);
    expect(lines.get(ids[1])).toEqual([expect.objectContaining({ key_id: null, route: null, status: 404 })]);
    expect(lines.get(ids[2])).toEqual([expect.objectContaining({ key_id: t.keyId, status: 200 })]);
    const log = fs.readFileSync(inject("logFile"), "utf8");
    for (const secret of [t.key, unknown, t.key.slice(4, -6), unknown.slice(4, -6)]) expect(log).not.toContain(secret);
    expect(log).not.toMatch(/tmk_[0-9A-Za-z]{20,}/);
  });
});

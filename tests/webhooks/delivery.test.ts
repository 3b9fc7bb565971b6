// Webhooks (contract section 11), over HTTP with a real receiver (tests/support/webhook-helpers.ts) and
// real dispatchers (functions/webhooks) started and stopped by PID. Any dispatcher delivers every
// account's deliveries, so two files running dispatchers at once would deliver each other's: this
// file holds the dispatchers' turn (dispatcherTurn) from its first test to its last, and the only
// other file that runs one (tests/participants/deadline.test.ts, the reports' deadline) waits for
// it, or it for that one. The describe blocks run one after another, each with the dispatchers it
// needs; each endpoint has its own path on the receiver. Other files' endpoints point at
// http://127.0.0.1:9/x (refused at once).
import { createHmac, randomBytes } from "node:crypto";
import fc from "fast-check";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort, startFunction } from "../../scripts/stack.mjs";
import {
  admin,
  ALL_SCOPES,
  type ApiResponse,
  createTeams,
  createTournament,
  expectError,
  expectStatus,
  request,
  setRateHits,
  sql,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";
import {
  createEndpoint,
  DatabaseProxy,
  deliveries,
  type Delivery,
  dispatcherTurn,
  type Endpoint,
  payloadOf,
  type Received,
  Receiver,
  sleep,
  startTestDispatcher,
  stopDispatchers,
  typeOf,
  waitForDeliveries,
} from "../support/webhook-helpers.ts";

const ENDPOINT_FIELDS = ["created_at", "description", "disabled_reason", "enabled", "events", "id", "tournament_id", "updated_at", "url"];
const DELIVERY_FIELDS = [
  "attempts",
  "created_at",
  "delivered_at",
  "event_id",
  "event_type",
  "id",
  "last_attempt_at",
  "last_error",
  "last_status_code",
  "next_attempt_at",
  "payload",
  "status",
];
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** Nothing listens on port 9 of the loopback: an attempt there is refused at once. */
const NOWHERE = "http://127.0.0.1:9/x";
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

let rx: Receiver;
let endTurn: (() => Promise<void>) | undefined;
beforeAll(async () => {
  endTurn = await dispatcherTurn();
  rx = await Receiver.start();
}, 300_000); // the other file's turn, at most
afterAll(async () => {
  await stopDispatchers();
  await rx?.close();
  await endTurn?.();
});

/** A 400 validation_error whose details name `field` (or an item of it: events.0). */
function expectInvalid(res: ApiResponse, field: string): void {
  expectError(res, 400, "validation_error");
  const named = res.body.error.details.map((d: { field: string }) => d.field);
  expect(named.some((f: string) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)), res.text).toBe(true);
}

/** A fresh endpoint on its own receiver path. */
async function hook(t: Tenant, body: Record<string, unknown> = {}, answer?: Parameters<Receiver["answer"]>[1]) {
  const path = rx.newPath();
  if (answer) rx.answer(path, answer);
  const endpoint = await createEndpoint(t, { url: rx.url(path), events: ["*"], ...body });
  return { path, endpoint };
}

/** Registers teams through the API; returns the registrations. */
async function register(t: Tenant, tournamentId: string, teams: string[]) {
  const regs = [];
  for (const team_id of teams) {
    const res = await t.request("POST", `/tournaments/${tournamentId}/registrations`, { body: { team_id } });
    expectStatus(res, 201);
    regs.push(res.body.data);
  }
  return regs;
}

/** The webhook.test marker: once it arrives, every earlier first attempt to the endpoint has (they go out in order). */
async function marker(t: Tenant, endpointId: string, path: string): Promise<Received[]> {
  const before = rx.received(path).length;
  expectStatus(await t.request("POST", `/webhooks/${endpointId}/test`), 202);
  await rx.waitUntil(
    () => rx.received(path).slice(before).some((r) => typeOf(r) === "webhook.test"),
    10_000,
    () => `webhook.test on ${path}; got ${rx.received(path).map(typeOf).join(", ")}`,
  );
  return rx.received(path);
}

/** Verifies a received request's Standard Webhooks signature with a secret; throws when it does not verify. */
function verify(r: Received, secret: string): unknown {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": String(r.headers["webhook-id"]),
    "webhook-timestamp": String(r.headers["webhook-timestamp"]),
    "webhook-signature": String(r.headers["webhook-signature"]),
  });
}

/** v1,<base64 HMAC-SHA256> of "<id>.<timestamp>.<body>" under a whsec_ secret, computed here independently. */
function signature(r: Received, secret: string): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const mac = createHmac("sha256", key).update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`).digest("base64");
  return `v1,${mac}`;
}

// =============================================================================================
describe("endpoints: create, read, update, delete", () => {
  it("creates an endpoint: 201, Location, the endpoint's fields and a whsec_ secret of 32 random bytes shown this once", async () => {
    const t = await tenant();
    const body = { url: `${NOWHERE}/a`, events: ["match.completed", "match.ready"], description: "Results bot" };
    const res = await t.request("POST", "/webhooks", { body });
    expectStatus(res, 201);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual([...ENDPOINT_FIELDS, "secret"].sort());
    expect(data).toMatchObject({ ...body, tournament_id: null, enabled: true, disabled_reason: null });
    expect(data.created_at).toMatch(ISO_Z);
    expect(data.updated_at).toBe(data.created_at);
    expect(res.headers.get("location")).toBe(`${inject("apiUrl")}/webhooks/${data.id}`);
    expect(data.secret).toMatch(SECRET);
    const raw = Buffer.from(data.secret.slice(6), "base64");
    expect(raw).toHaveLength(32);
    expect(raw.toString("base64")).toBe(data.secret.slice(6));

    // GET (one and list) and PATCH never show it again.
    const one = await t.request("GET", `/webhooks/${data.id}`);
    expectStatus(one, 200);
    const { secret, ...endpoint } = data;
    expect(one.body.data).toEqual(endpoint);
    const list = await t.request("GET", "/webhooks");
    expectStatus(list, 200);
    expect(list.body.data).toEqual([endpoint]);
    expect(list.body.pagination).toMatchObject({ page: 1, limit: 20, total: 1 });
    const patched = await t.request("PATCH", `/webhooks/${data.id}`, { body: { description: "Renamed" } });
    expectStatus(patched, 200);
    expect(Object.keys(patched.body.data).sort()).toEqual(ENDPOINT_FIELDS);
    for (const r of [one, list, patched]) {
      expect(r.text).not.toContain(secret.slice(6));
      expect(r.text).not.toContain("whsec_");
    }
    // Two endpoints never share a secret.
    const other = await t.request("POST", "/webhooks", { body });
    expect(other.body.data.secret).toMatch(SECRET);
    expect(other.body.data.secret).not.toBe(secret);
  });

  it("stores the secret sealed: its bytes are nowhere in the endpoint's row", async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    const raw = Buffer.from(e.secret.slice(6), "base64");
    const [row] = await sql("select secret, previous_secret, row_to_json(w)::text as text from app.webhook_endpoints w where id = $1", [
      e.id,
    ]);
    expect(Buffer.isBuffer(row.secret)).toBe(true);
    expect(row.secret.includes(raw)).toBe(false);
    expect(row.text).not.toContain(e.secret.slice(6));
    expect(row.text).not.toContain(raw.toString("hex"));
  });

  it("gives the same answer, secret included, to a create retried with its Idempotency-Key, and creates one endpoint", async () => {
    const t = await tenant();
    const body = { url: NOWHERE, events: ["*"] };
    const headers = { "idempotency-key": "create-hook-1" };
    const first = await t.request("POST", "/webhooks", { body, headers });
    expectStatus(first, 201);
    const again = await t.request("POST", "/webhooks", { body, headers });
    expectStatus(again, 201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data).toEqual(first.body.data);
    expect(again.body.data.secret).toBe(first.body.data.secret);
    const list = await t.request("GET", "/webhooks");
    expect(list.body.pagination.total).toBe(1);
    expectError(await t.request("POST", "/webhooks", { body: { ...body, description: "other" }, headers }), 422, "idempotency_mismatch");
  });

  it.each([
    ["an unknown field", { foo: 1 }, "foo"],
    ["a read-only field (id)", { id: UNKNOWN_ID }, "id"],
    ["the secret", { secret: "whsec_AAAA" }, "secret"],
    ["enabled (PATCH only)", { enabled: false }, "enabled"],
    ["created_at", { created_at: "2026-01-01T00:00:00Z" }, "created_at"],
  ])("refuses a create body with %s (strict), naming it, and creates nothing", async (_label, extra, field) => {
    const t = await tenant();
    expectError(await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], ...extra } }), 400, "validation_error", [
      field,
    ]);
    expect((await t.request("GET", "/webhooks")).body.pagination.total).toBe(0);
  });

  it("requires url and events", async () => {
    const t = await tenant();
    expectError(await t.request("POST", "/webhooks", { body: { events: ["*"] } }), 400, "validation_error", ["url"]);
    expectError(await t.request("POST", "/webhooks", { body: { url: NOWHERE } }), 400, "validation_error", ["events"]);
    expectError(await t.request("POST", "/webhooks", { body: {} }), 400, "validation_error", ["url", "events"]);
    expectError(
      await t.request("POST", "/webhooks", { rawBody: "[]", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
  });

  it.each([
    ["an unknown type", ["match.finished"]],
    ["a type in the wrong case", ["Match.Completed"]],
    ["a duplicate", ["match.ready", "match.ready"]],
    ["* mixed with a type", ["*", "match.ready"]],
    ["* twice", ["*", "*"]],
    ["an empty list", []],
    ["a string instead of a list", "*"],
    ["null", null],
    ["a number in the list", [1]],
  ])("refuses events with %s (400 naming events), on create and on PATCH", async (_label, events) => {
    const t = await tenant();
    expectInvalid(await t.request("POST", "/webhooks", { body: { url: NOWHERE, events } }), "events");
    const e = await createEndpoint(t, { url: NOWHERE, events: ["match.ready"] });
    expectInvalid(await t.request("PATCH", `/webhooks/${e.id}`, { body: { events } }), "events");
    expect((await t.request("GET", `/webhooks/${e.id}`)).body.data.events).toEqual(["match.ready"]);
  });

  it('accepts every event type, alone or all together, and ["*"]', async () => {
    const t = await tenant();
    const types = [
      "tournament.created",
      "tournament.updated",
      "tournament.started",
      "tournament.completed",
      "tournament.cancelled",
      "tournament.deleted",
      "registration.created",
      "registration.updated",
      "registration.withdrawn",
      "match.ready",
      "match.completed",
      "match.corrected",
      "match.scheduled",
      "stage.started",
      "stage.completed",
    ];
    const e = await createEndpoint(t, { url: NOWHERE, events: types });
    expect(e.events).toEqual(types);
    for (const events of [["*"], ...types.map((x) => [x])]) {
      const res = await t.request("PATCH", `/webhooks/${e.id}`, { body: { events } });
      expectStatus(res, 200);
      expect(res.body.data.events).toEqual(events);
    }
  });

  it.each([
    ["a relative URL", "/hooks"],
    ["no scheme", "example.com/hooks"],
    ["a scheme-relative URL", "//example.com/hooks"],
    ["another scheme", "ftp://example.com/hooks"],
    ["javascript:", "javascript:alert(1)"],
    ["no host", "https://"],
    ["user-info", "https://user:secret@example.com/hooks"],
    ["a user name alone", "https://user@example.com/hooks"],
    ["a space", "https://exa mple.com/"],
    ["an empty string", ""],
    ["more than 2,048 characters", `https://example.com/${"a".repeat(2049 - 20)}`],
  ])("refuses a url with %s (400 naming url), on create and on PATCH", async (_label, url) => {
    const t = await tenant();
    expectError(await t.request("POST", "/webhooks", { body: { url, events: ["*"] } }), 400, "validation_error", ["url"]);
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    expectError(await t.request("PATCH", `/webhooks/${e.id}`, { body: { url } }), 400, "validation_error", ["url"]);
    expect((await t.request("GET", `/webhooks/${e.id}`)).body.data.url).toBe(NOWHERE);
  });

  it("accepts a url of exactly 2,048 characters and gives it back as sent", async () => {
    const t = await tenant();
    const url = `https://127.0.0.1:9/${"a".repeat(2048 - 20)}`;
    expect(url).toHaveLength(2048);
    const e = await createEndpoint(t, { url, events: ["*"] });
    expect(e.url).toBe(url);
    expectError(await t.request("PATCH", `/webhooks/${e.id}`, { body: { url: `${url}b` } }), 400, "validation_error", ["url"]);
  });

  it("accepts every absolute https:// URL without user-info up to 2,048 characters, and keeps it as sent (property)", async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    let key = t.key;
    let used = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.webUrl({
          validSchemes: ["https"],
          withQueryParameters: true,
          withFragments: true,
          authoritySettings: { withIPv4: true, withIPv6: true, withPort: true },
        }).filter((u) => u.length <= 2048),
        async (url) => {
          if (++used % 40 === 0) key = (await t.newKey()).key;
          const res = await request("PATCH", `/webhooks/${e.id}`, { key, body: { url } });
          expect(res.status, `${url}: ${res.text}`).toBe(200);
          expect(res.body.data.url).toBe(url);
        },
      ),
      { numRuns: 60 },
    );
    // put back where nothing listens (a later dispatcher must not reach out to a generated host)
    expectStatus(await request("PATCH", `/webhooks/${e.id}`, { key: (await t.newKey()).key, body: { url: NOWHERE } }), 200);
  });

  it("refuses every URL carrying a user name or password (property), creating nothing", async () => {
    const t = await tenant();
    let key = t.key;
    let used = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.webUrl({ validSchemes: ["https", "http"], authoritySettings: { withUserInfo: true, withPort: true } })
          .filter((u) => {
            const parsed = new URL(u);
            return (parsed.username !== "" || parsed.password !== "") && u.length <= 2048;
          }),
        async (url) => {
          if (++used % 40 === 0) key = (await t.newKey()).key;
          const res = await request("POST", "/webhooks", { key, body: { url, events: ["*"] } });
          expect(res.status, `${url}: ${res.text}`).toBe(400);
          expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain("url");
        },
      ),
      { numRuns: 60 },
    );
    expect(await sql("select id from app.webhook_endpoints where account_id = $1", [t.accountId])).toEqual([]);
  });

  it("accepts a description of 200 characters, null or absent, and refuses 201", async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"], description: "d".repeat(200) });
    expect(e.description).toBe("d".repeat(200));
    expect((await createEndpoint(t, { url: NOWHERE, events: ["*"] })).description).toBeNull();
    expect((await createEndpoint(t, { url: NOWHERE, events: ["*"], description: null })).description).toBeNull();
    expectError(
      await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], description: "d".repeat(201) } }),
      400,
      "validation_error",
      ["description"],
    );
    expectError(await t.request("PATCH", `/webhooks/${e.id}`, { body: { description: "é".repeat(201) } }), 400, "validation_error", [
      "description",
    ]);
    expectError(await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], description: 5 } }), 400, "validation_error", [
      "description",
    ]);
  });

  it("takes tournament_id only for one of the caller's tournaments: another account's or an unknown one is 404", async () => {
    const [t, other] = await Promise.all([tenant(), tenant()]);
    const [own, theirs] = await Promise.all([createTournament(t), createTournament(other)]);
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"], tournament_id: own.id });
    expect(e.tournament_id).toBe(own.id);
    for (const id of [theirs.id, UNKNOWN_ID]) {
      const res = await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], tournament_id: id } });
      expectError(res, 404, "not_found");
      expect(res.text).not.toContain(other.accountId);
      expectError(await t.request("PATCH", `/webhooks/${e.id}`, { body: { tournament_id: id } }), 404, "not_found");
    }
    // The two refusals say the same: nothing tells another account's tournament from none.
    const a = await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], tournament_id: theirs.id } });
    const b = await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], tournament_id: UNKNOWN_ID } });
    expect(a.body.error).toEqual(b.body.error);
    expectError(
      await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], tournament_id: "nope" } }),
      400,
      "validation_error",
      ["tournament_id"],
    );
    const cleared = await t.request("PATCH", `/webhooks/${e.id}`, { body: { tournament_id: null } });
    expectStatus(cleared, 200);
    expect(cleared.body.data.tournament_id).toBeNull();
    expect((await t.request("GET", "/webhooks")).body.pagination.total).toBe(1);
  });

  it("PATCH changes the fields given, refuses an empty body, and leaves updated_at alone when nothing changes", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const e = await createEndpoint(t, { url: `${NOWHERE}/1`, events: ["*"], description: "one" });
    expectError(await t.request("PATCH", `/webhooks/${e.id}`, { body: {} }), 400, "validation_error");
    expectError(await t.request("PATCH", `/webhooks/${e.id}`, { body: { secret: "x" } }), 400, "validation_error", ["secret"]);
    expectError(await t.request("PATCH", `/webhooks/${e.id}`, { body: { enabled: "no" } }), 400, "validation_error", ["enabled"]);
    const same = await t.request("PATCH", `/webhooks/${e.id}`, { body: { description: "one", enabled: true } });
    expectStatus(same, 200);
    expect(same.body.data.updated_at).toBe(e.updated_at);
    await sleep(5);
    const body = { url: `${NOWHERE}/2`, events: ["match.ready"], tournament_id: tournament.id, description: null, enabled: false };
    const res = await t.request("PATCH", `/webhooks/${e.id}`, { body });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ ...body, id: e.id, disabled_reason: null, created_at: e.created_at });
    expect(res.body.data.updated_at > e.updated_at).toBe(true);
    expect((await t.request("GET", `/webhooks/${e.id}`)).body.data).toEqual(res.body.data);
  });

  it("re-enabling an endpoint disabled for failing clears disabled_reason", async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    // As the dispatcher leaves it after 5 days of failures (tested for real below).
    await sql("update app.webhook_endpoints set enabled = false, disabled_reason = 'failing' where id = $1", [e.id]);
    expect((await t.request("GET", `/webhooks/${e.id}`)).body.data).toMatchObject({ enabled: false, disabled_reason: "failing" });
    const kept = await t.request("PATCH", `/webhooks/${e.id}`, { body: { description: "still off" } });
    expect(kept.body.data).toMatchObject({ enabled: false, disabled_reason: "failing" });
    const res = await t.request("PATCH", `/webhooks/${e.id}`, { body: { enabled: true } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('DELETE answers 200 {message: "Webhook deleted"}; the endpoint is gone', async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    const res = await t.request("DELETE", `/webhooks/${e.id}`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ message: "Webhook deleted" });
    expectError(await t.request("GET", `/webhooks/${e.id}`), 404, "not_found");
    expectError(await t.request("GET", `/webhooks/${e.id}/deliveries`), 404, "not_found");
  });

  it("DELETE removes the endpoint named, whichever of the account's endpoints it is", async () => {
    const t = await tenant();
    const made: Endpoint[] = [];
    for (let i = 0; i < 4; i++) made.push(await createEndpoint(t, { url: `${NOWHERE}/${i}`, events: ["*"] }));
    for (const [i, e] of [made[1], made[3], made[0], made[2]].entries()) {
      const res = await t.request("DELETE", `/webhooks/${e.id}`);
      expect(res.status, `delete #${i}: ${res.text}`).toBe(200);
      expectError(await t.request("GET", `/webhooks/${e.id}`), 404, "not_found");
    }
    expect((await t.request("GET", "/webhooks")).body.pagination.total).toBe(0);
  });

  it("DELETE of an id that names no endpoint is 404, even for an account that has none (or no longer has it)", async () => {
    const t = await tenant();
    expectError(await t.request("DELETE", `/webhooks/${UNKNOWN_ID}`), 404, "not_found");
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    expectError(await t.request("DELETE", `/webhooks/${UNKNOWN_ID}`), 404, "not_found");
    expect((await t.request("GET", "/webhooks")).body.pagination.total).toBe(1);
    expectStatus(await t.request("DELETE", `/webhooks/${e.id}`), 200);
    expectError(await t.request("DELETE", `/webhooks/${e.id}`), 404, "not_found");
  });

  it("lists newest first, paginated like the tournament list, with the true total past the end", async () => {
    const t = await tenant();
    const made: Endpoint[] = [];
    for (let i = 0; i < 5; i++) made.push(await createEndpoint(t, { url: `${NOWHERE}/${i}`, events: ["*"], description: `#${i}` }));
    const newest = [...made].reverse().map((e) => e.id);
    const all = await t.request("GET", "/webhooks");
    expect(all.body.data.map((e: Endpoint) => e.id)).toEqual(newest);
    const page2 = await t.request("GET", "/webhooks?page=2&limit=2");
    expectStatus(page2, 200);
    expect(page2.body.data.map((e: Endpoint) => e.id)).toEqual(newest.slice(2, 4));
    expect(page2.body.pagination).toMatchObject({ page: 2, limit: 2, total: 5 });
    const past = await t.request("GET", "/webhooks?page=9");
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.total).toBe(5);
    for (const q of ["limit=0", "limit=101", "page=0", "page=x"]) {
      expectError(await t.request("GET", `/webhooks?${q}`), 400, "validation_error", [q.split("=")[0]]);
    }
  });

  it("allows 20 endpoints per account: the 21st is 409 webhook_limit_reached, even with an Idempotency-Key; other accounts are not affected", async () => {
    const t = await tenant();
    await Promise.all(Array.from({ length: 20 }, (_, i) => createEndpoint(t, { url: `${NOWHERE}/${i}`, events: ["*"] })));
    const res = await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"] } });
    expectError(res, 409, "webhook_limit_reached");
    expect(res.body.error.message).toMatch(/20/);
    expectError(
      await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"] }, headers: { "idempotency-key": "21st" } }),
      409,
      "webhook_limit_reached",
    );
    expect((await t.request("GET", "/webhooks?limit=100")).body.pagination.total).toBe(20);
    await createEndpoint(await tenant(), { url: NOWHERE, events: ["*"] });
  });

  it("a slot freed by DELETE can be used again at the limit", async () => {
    const t = await tenant();
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => createEndpoint(t, { url: `${NOWHERE}/${i}`, events: ["*"] })));
    expectStatus(await t.request("DELETE", `/webhooks/${made[7].id}`), 200);
    expectStatus(await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"] } }), 201);
    expectError(await t.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"] } }), 409, "webhook_limit_reached");
  });

  it("at 19 endpoints, 8 concurrent creates give exactly one 201 and seven 409 webhook_limit_reached", async () => {
    const t = await tenant();
    for (let i = 0; i < 19; i++) await createEndpoint(t, { url: `${NOWHERE}/${i}`, events: ["*"] });
    const keys = await Promise.all(Array.from({ length: 8 }, () => t.newKey()));
    const results = await Promise.all(keys.map(({ key }) => request("POST", "/webhooks", { key, body: { url: NOWHERE, events: ["*"] } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe("webhook_limit_reached");
    const [{ n }] = await sql("select count(*)::int n from app.webhook_endpoints where account_id = $1", [t.accountId]);
    expect(n).toBe(20);
  });

  it("rotate-secret answers 200 with the endpoint and a new secret; GET still shows none", async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    const res = await t.request("POST", `/webhooks/${e.id}/rotate-secret`);
    expectStatus(res, 200);
    const { secret, ...endpoint } = res.body.data;
    expect(secret).toMatch(SECRET);
    expect(secret).not.toBe(e.secret);
    expect(Object.keys(endpoint).sort()).toEqual(ENDPOINT_FIELDS);
    const got = await t.request("GET", `/webhooks/${e.id}`);
    expect(got.body.data).toEqual(endpoint);
    expect(got.text).not.toContain("whsec_");
    expectError(await t.request("POST", `/webhooks/${UNKNOWN_ID}/rotate-secret`), 404, "not_found");
  });

  it("the deliveries list and retry check their input and their endpoint", async () => {
    const t = await tenant();
    const [a, b] = [await createEndpoint(t, { url: NOWHERE, events: ["*"] }), await createEndpoint(t, { url: NOWHERE, events: ["*"] })];
    const sent = await t.request("POST", `/webhooks/${a.id}/test`);
    expectStatus(sent, 202);
    const delivery: Delivery = sent.body.data;
    expect(Object.keys(delivery).sort()).toEqual(DELIVERY_FIELDS);
    for (const q of ["status=done", "status=", "limit=101", "page=0"]) {
      expectError(await t.request("GET", `/webhooks/${a.id}/deliveries?${q}`), 400, "validation_error", [q.split("=")[0]]);
    }
    expectError(await t.request("GET", `/webhooks/${UNKNOWN_ID}/deliveries`), 404, "not_found");
    const none = await t.request("GET", `/webhooks/${b.id}/deliveries`);
    expectStatus(none, 200);
    expect(none.body.data).toEqual([]);
    expect(none.body.pagination.total).toBe(0);
    // A delivery is retried through its own endpoint only.
    expectError(await t.request("POST", `/webhooks/${b.id}/deliveries/${delivery.id}/retry`), 404, "not_found");
    expectError(await t.request("POST", `/webhooks/${a.id}/deliveries/${UNKNOWN_ID}/retry`), 404, "not_found");
    expectError(await t.request("POST", `/webhooks/${a.id}/deliveries/not-a-uuid/retry`), 404, "not_found");
  });

  it("deletes events older than 30 days with their deliveries, and keeps the rest (webhooks.prune, as the dispatcher runs it)", async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    const old = (await t.request("POST", `/webhooks/${e.id}/test`)).body.data as Delivery;
    const fresh = (await t.request("POST", `/webhooks/${e.id}/test`)).body.data as Delivery;
    await sql("update app.webhook_events set created_at = now() - interval '31 days' where id = $1", [old.event_id]);
    const dispatcher = new pg.Client({ connectionString: inject("dispatcherDbUrl") });
    await dispatcher.connect();
    try {
      const { rows: [{ n }] } = await dispatcher.query("select webhooks.prune() as n");
      expect(n).toBeGreaterThanOrEqual(1);
    } finally {
      await dispatcher.end();
    }
    const { data } = await deliveries(t, e.id);
    expect(data.map((d) => d.id)).toEqual([fresh.id]);
    expect(await sql("select id from app.webhook_events where id = $1", [old.event_id])).toEqual([]);
  });

  it("needs read:webhooks to read and write:webhooks to change", async () => {
    const owner = await tenant();
    const e = await createEndpoint(owner, { url: NOWHERE, events: ["*"] });
    const { key: readOnly } = await owner.newKey(["read:webhooks"]);
    const { key: writeOnly } = await owner.newKey(["write:webhooks"]);
    expectStatus(await request("GET", `/webhooks/${e.id}`, { key: readOnly }), 200);
    const refused = await request("PATCH", `/webhooks/${e.id}`, { key: readOnly, body: { enabled: false } });
    expectError(refused, 403, "insufficient_scope");
    expect(refused.body.error.message).toContain("write:webhooks");
    const unread = await request("GET", `/webhooks/${e.id}/deliveries`, { key: writeOnly });
    expectError(unread, 403, "insufficient_scope");
    expect(unread.body.error.message).toContain("read:webhooks");
    const others = ALL_SCOPES.filter((s) => !s.endsWith(":webhooks"));
    const { key: noWebhooks } = await owner.newKey(others);
    expectError(await request("POST", "/webhooks", { key: noWebhooks, body: { url: NOWHERE, events: ["*"] } }), 403, "insufficient_scope");
    expect((await request("GET", `/webhooks/${e.id}`, { key: readOnly })).body.data.enabled).toBe(true);
  });
});

// =============================================================================================
describe("recording while endpoints change", () => {
  /** Waits until another session waits for transaction `xid` (to lock a row it changed). */
  async function someoneWaitsFor(xid: string): Promise<void> {
    const until = Date.now() + 5_000;
    while (Date.now() < until) {
      const [{ n }] = await sql(
        "select count(*)::int n from pg_locks where locktype = 'transactionid' and not granted and transactionid::text = $1",
        [xid],
      );
      if (n > 0) return;
      await sleep(20);
    }
    throw new Error(`no session waited for transaction ${xid}`);
  }

  it("a change that commits while one of its account's endpoints is being deleted succeeds, heard by the endpoints that remain", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const gone = await createEndpoint(t, { url: `${NOWHERE}/gone`, events: ["*"] });
    const kept = await createEndpoint(t, { url: `${NOWHERE}/kept`, events: ["*"] });
    // A DELETE of the endpoint in flight (as DELETE /webhooks/{id} runs it): its row deleted, not yet committed.
    const client = await admin().connect();
    let res: ApiResponse;
    try {
      await client.query("begin");
      await client.query("delete from app.webhook_endpoints where id = $1", [gone.id]);
      const { rows: [{ xid }] } = await client.query("select pg_current_xact_id()::text xid");
      const patch = t.request("PATCH", `/tournaments/${tournament.id}`, { body: { name: "Renamed Meanwhile" } });
      await someoneWaitsFor(xid); // the change, at its commit, waits on the endpoint's row
      await client.query("commit");
      res = await patch;
    } finally {
      await client.query("rollback").catch(() => {});
      client.release();
    }
    expectStatus(res, 200);
    expect((await t.request("GET", `/tournaments/${tournament.id}`)).body.data.name).toBe("Renamed Meanwhile");
    const { data } = await deliveries(t, kept.id);
    expect(data.map((d) => [d.event_type, d.payload.data.name])).toEqual([["tournament.updated", "Renamed Meanwhile"]]);
    expectError(await t.request("GET", `/webhooks/${gone.id}`), 404, "not_found");
  });
});

// =============================================================================================
describe("delivery, with one dispatcher", () => {
  /** The dispatcher's attempt timeout here. */
  const TIMEOUT_MS = 1500;
  beforeAll(async () => {
    await startTestDispatcher({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_RETRY_SECONDS: "1,1" });
  });
  afterAll(async () => {
    await stopDispatchers();
  });

  it("POSTs each event signed the Standard Webhooks way: headers, webhook-id = the delivery's event_id, the body sent kept as its payload", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t);
    const sent = Date.now();
    const created = await createTournament(t, { name: "Signed Cup" });
    const [r] = await rx.waitFor(path, 1);
    expect(r.method).toBe("POST");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["user-agent"]).toBe("TournamentAPI-Webhooks/1.0");
    expect(r.headers["webhook-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const stamp = Number(r.headers["webhook-timestamp"]);
    expect(String(stamp)).toBe(r.headers["webhook-timestamp"]);
    expect(stamp).toBeGreaterThanOrEqual(Math.floor(sent / 1000) - 1);
    expect(stamp).toBeLessThanOrEqual(Math.ceil(r.at / 1000) + 1);
    expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(r.headers["webhook-signature"]).toBe(signature(r, endpoint.secret));
    expect(verify(r, endpoint.secret)).toEqual(payloadOf(r));
    expect(() => verify(r, `whsec_${randomBytes(32).toString("base64")}`)).toThrow();
    expect(() => verify({ ...r, body: r.body.replace("Signed Cup", "Forged Cup") }, endpoint.secret)).toThrow();
    // actor (contract section 17): the key whose request caused the event
    expect(payloadOf(r)).toEqual({
      type: "tournament.created",
      timestamp: expect.stringMatching(ISO_Z),
      actor: { type: "key", id: t.keyId },
      data: created,
    });

    const [d] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.status === "succeeded");
    expect(Object.keys(d).sort()).toEqual(DELIVERY_FIELDS);
    expect(d).toMatchObject({
      event_id: r.headers["webhook-id"],
      event_type: "tournament.created",
      status: "succeeded",
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(d.payload).toEqual(payloadOf(r)); // the body sent
    expect(d.delivered_at).toMatch(ISO_Z);
    expect(d.last_attempt_at).toBe(d.delivered_at);
    // The deliveries list's status filter.
    expect((await deliveries(t, endpoint.id, "&status=succeeded")).total).toBe(1);
    expect((await deliveries(t, endpoint.id, "&status=pending")).total).toBe(0);
  });

  it("sends a first attempt within 1 second of the commit", async () => {
    const t = await tenant();
    const { path } = await hook(t);
    const tournament = await createTournament(t);
    await rx.waitFor(path, 1);
    const lags: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { name: `Quick Cup ${i}` } });
      expectStatus(res, 200);
      const answered = Date.now();
      const [r] = (await rx.waitFor(path, i + 2)).slice(-1);
      lags.push(r.at - answered);
    }
    expect(Math.max(...lags), `lags ${lags}`).toBeLessThan(1000);
  });

  it("delivers a tournament's whole life in order, each event's data as the API's GET showed it then", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t);
    const teams = await createTeams(5, "Life");
    /** What must arrive, each with the step (request) that made it and that request's time. */
    const expected: { type: string; data: unknown; before: number; after: number; step: number }[] = [];
    let steps = 0;
    /** Runs a change and records the events it must send, with the data read right after it. */
    const step = async (change: () => Promise<ApiResponse>, status: number, events: () => Promise<[string, unknown][]>) => {
      const before = Date.now();
      const res = await change();
      expectStatus(res, status);
      const after = Date.now();
      steps++;
      for (const [type, data] of await events()) expected.push({ type, data, before, after, step: steps });
      return res;
    };
    const getTournament = async (id: string) => (await t.request("GET", `/tournaments/${id}`)).body.data;
    const getRegistration = async (tid: string, id: string) =>
      (await t.request("GET", `/tournaments/${tid}/registrations/${id}`)).body.data;
    const getMatches = async (tid: string) => {
      const res = await t.request("GET", `/tournaments/${tid}/results`);
      expectStatus(res, 200);
      return (res.body.data.matches as { id: string; round: number; position: number }[]).map((m) => ({ ...m, tournament_id: tid }));
    };
    const match = async (tid: string, id: string) => (await getMatches(tid)).find((m) => m.id === id);
    /** A stage as GET .../stages shows it, with its tournament_id (section 12). */
    // A stage event's data: the stage as GET /stages/{number} shows it (standings included).
    const getStage = async (tid: string, number: number) => {
      const res = await t.request("GET", `/tournaments/${tid}/stages/${number}`);
      expectStatus(res, 200);
      return { ...res.body.data, tournament_id: tid };
    };

    const created = await step(
      () =>
        t.request("POST", "/tournaments", {
          body: tournamentBody({
            name: "Life Cup",
            max_teams: 4,
            entry_fee: 10,
            check_in_opens: new Date(Date.now() - 3_600_000).toISOString(),
          }),
        }),
      201,
      async () => [],
    );
    const tid = created.body.data.id;
    expected.push({ type: "tournament.created", data: await getTournament(tid), before: 0, after: Date.now(), step: steps });
    expect(expected[0].data).toEqual(created.body.data);
    const regs: string[] = [];
    for (const team_id of teams.slice(0, 4)) {
      const res = await step(() => t.request("POST", `/tournaments/${tid}/registrations`, { body: { team_id } }), 201, async () => []);
      regs.push(res.body.data.id);
      expected.push({ type: "registration.created", data: await getRegistration(tid, res.body.data.id), before: 0, after: 0, step: steps });
      expect(expected.at(-1)!.data).toEqual(res.body.data);
    }
    const updates = [{ seed: 1, checked_in: true }, { payment_status: "complete", checked_in: true }, { checked_in: true }, {
      checked_in: true,
    }];
    for (const [i, body] of updates.entries()) {
      await step(
        () => t.request("PATCH", `/tournaments/${tid}/registrations/${regs[i]}`, { body }),
        200,
        async () => [["registration.updated", await getRegistration(tid, regs[i])]],
      );
    }
    // A lineup change is a registration.updated (contract section 16); the same lineup sent again is none.
    const lineupPlayer = (await t.request("POST", "/players", { body: { handle: "life" } })).body.data.id;
    const lineup = { players: [{ player_id: lineupPlayer, role: "player", captain: true }] };
    for (let i = 0; i < 2; i++) {
      await step(
        () => t.request("PUT", `/tournaments/${tid}/registrations/${regs[0]}/lineup`, { body: lineup }),
        200,
        async () => i === 0 ? [["registration.updated", await getRegistration(tid, regs[0])]] : [],
      );
    }
    await step(
      () => t.request("PATCH", `/tournaments/${tid}`, { body: { name: "Life Cup Renamed" } }),
      200,
      async () => [["tournament.updated", await getTournament(tid)]],
    );
    let matches: Awaited<ReturnType<typeof getMatches>> = [];
    await step(() => t.request("PATCH", `/tournaments/${tid}`, { body: { status: "ongoing" } }), 200, async () => {
      matches = await getMatches(tid);
      const firstRound = matches.filter((m) => m.round === 1).sort((a, b) => a.position - b.position);
      // Stage 1 starts with the tournament: right after tournament.started, before the first matches are ready.
      const stage = await getStage(tid, 1);
      expect(stage).toMatchObject({ number: 1, status: "ongoing", team_count: 4, completed_at: null });
      return [
        ["tournament.started", await getTournament(tid)],
        ["stage.started", stage],
        ...firstRound.map((m): [string, unknown] => ["match.ready", m]),
      ];
    });
    const [m1, m2] = matches.filter((m) => m.round === 1).sort((a, b) => a.position - b.position);
    const final = matches.find((m) => m.round === 2)!;
    await step(
      () => t.request("PATCH", `/tournaments/${tid}/matches/${m1.id}`, { body: { team1_score: 2, team2_score: 1 } }),
      200,
      async () => [["match.completed", await match(tid, m1.id)]],
    );
    await step(
      () => t.request("PATCH", `/tournaments/${tid}/matches/${m2.id}`, { body: { team1_score: 0, team2_score: 2 } }),
      200,
      async () => [["match.completed", await match(tid, m2.id)], ["match.ready", await match(tid, final.id)]],
    );
    await step(
      () => t.request("PATCH", `/tournaments/${tid}/matches/${m1.id}`, { body: { team1_score: 3, team2_score: 1 } }),
      200,
      async () => [["match.corrected", await match(tid, m1.id)]],
    );
    await step(
      () =>
        t.request("PATCH", `/tournaments/${tid}/matches/${final.id}`, {
          body: { scheduled_at: new Date(Date.now() + 86_400_000).toISOString() },
        }),
      200,
      async () => [["match.scheduled", await match(tid, final.id)]],
    );
    // The last match of the stage decided: stage.completed right after its match.completed.
    await step(
      () => t.request("PATCH", `/tournaments/${tid}/matches/${final.id}`, { body: { team1_score: 1, team2_score: 0 } }),
      200,
      async () => {
        const stage = await getStage(tid, 1);
        expect(stage).toMatchObject({ number: 1, status: "completed", completed_at: expect.stringMatching(ISO_Z) });
        return [["match.completed", await match(tid, final.id)], ["stage.completed", stage]];
      },
    );
    await step(
      () => t.request("PATCH", `/tournaments/${tid}`, { body: { status: "completed" } }),
      200,
      async () => [["tournament.completed", await getTournament(tid)]],
    );
    // A withdrawal, in a tournament still taking registrations: the registration as it was.
    const other = await step(
      () => t.request("POST", "/tournaments", { body: tournamentBody({ name: "Withdrawal Cup" }) }),
      201,
      async () => [],
    );
    const oid = other.body.data.id;
    expected.push({ type: "tournament.created", data: await getTournament(oid), before: 0, after: 0, step: steps });
    const reg = await step(
      () => t.request("POST", `/tournaments/${oid}/registrations`, { body: { team_id: teams[4] } }),
      201,
      async () => [],
    );
    const withdrawn = await getRegistration(oid, reg.body.data.id);
    expected.push({ type: "registration.created", data: withdrawn, before: 0, after: 0, step: steps });
    await step(
      () => t.request("DELETE", `/tournaments/${oid}/registrations/${reg.body.data.id}`),
      200,
      async () => [["registration.withdrawn", withdrawn]],
    );
    await step(() => t.request("DELETE", `/tournaments/${tid}`), 200, async () => [["tournament.deleted", { id: tid }]]);
    await step(() => t.request("DELETE", `/tournaments/${oid}`), 200, async () => [["tournament.deleted", { id: oid }]]);

    const got = await rx.waitFor(path, expected.length, 15_000);
    await sleep(300); // nothing more comes
    // In the order the changes were made; the first round's match.ready events, made by one
    // statement, in any order among themselves (sorted here by position).
    const byPosition = <T>(
      list: T[],
      data: (x: T) => { round?: number; position?: number },
      type: (x: T) => string,
      step: (i: number) => number,
    ) =>
      list.map((x, i) => ({ x, i })).sort((a, b) =>
        step(a.i) - step(b.i) ||
        (type(a.x) === "match.ready" && type(b.x) === "match.ready"
          ? (data(a.x).round! - data(b.x).round!) || (data(a.x).position! - data(b.x).position!)
          : a.i - b.i)
      ).map((e) => e.x);
    const stepOf = (i: number) => expected[i]?.step ?? Infinity;
    const received = byPosition(rx.received(path), (r) => payloadOf(r).data, typeOf, stepOf);
    expect(received.map(typeOf)).toEqual(expected.map((e) => e.type));
    for (const [i, r] of received.entries()) {
      const body = payloadOf(r);
      expect(Object.keys(body).sort(), `#${i} ${body.type}`).toEqual(["actor", "data", "timestamp", "type"]);
      expect(body.data, `#${i} ${body.type}`).toEqual(expected[i].data);
      expect(body.timestamp).toMatch(ISO_Z);
      // when the change committed: inside the request that made it
      if (expected[i].before) {
        expect(Date.parse(body.timestamp), `#${i} ${body.type}`).toBeGreaterThanOrEqual(expected[i].before - 5);
        expect(Date.parse(body.timestamp), `#${i} ${body.type}`).toBeLessThanOrEqual(expected[i].after + 5);
      }
      verify(r, endpoint.secret);
      expect([r.method, r.headers["content-type"], r.headers["user-agent"]]).toEqual([
        "POST",
        "application/json",
        "TournamentAPI-Webhooks/1.0",
      ]);
      expect(Math.abs(Number(r.headers["webhook-timestamp"]) - r.at / 1000)).toBeLessThan(5);
    }
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(expected.length);
    // The deliveries say the same: one per event, each succeeded at the first attempt, payload = body.
    const { total, data } = await deliveries(t, endpoint.id);
    expect(total).toBe(expected.length);
    const byEvent = new Map(data.map((d) => [d.event_id, d]));
    for (const r of received) {
      const d = byEvent.get(String(r.headers["webhook-id"]))!;
      expect(d, typeOf(r)).toBeDefined();
      expect(d).toMatchObject({ event_type: typeOf(r), status: "succeeded", attempts: 1, last_status_code: 200 });
      expect(d.payload).toEqual(payloadOf(r));
    }
  });

  it("sends a test event (202) to a disabled endpoint not subscribed to anything it would hear, data = the endpoint", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t, { events: ["tournament.deleted"] });
    expectStatus(await t.request("PATCH", `/webhooks/${endpoint.id}`, { body: { enabled: false } }), 200);
    await createTournament(t); // not heard: disabled, and not subscribed
    const res = await t.request("POST", `/webhooks/${endpoint.id}/test`);
    expectStatus(res, 202);
    const shown = (await t.request("GET", `/webhooks/${endpoint.id}`)).body.data;
    expect(res.body.data).toMatchObject({
      event_type: "webhook.test",
      status: "pending",
      attempts: 0,
      last_status_code: null,
      last_error: null,
      delivered_at: null,
      last_attempt_at: null,
    });
    expect(res.body.data.payload).toEqual({
      type: "webhook.test",
      timestamp: expect.stringMatching(ISO_Z),
      actor: { type: "key", id: t.keyId },
      data: shown,
    });
    const [r] = await rx.waitFor(path, 1);
    await sleep(200);
    expect(rx.received(path)).toHaveLength(1);
    expect(payloadOf(r)).toEqual(res.body.data.payload);
    expect(r.headers["webhook-id"]).toBe(res.body.data.event_id);
    verify(r, endpoint.secret);
    await waitForDeliveries(t, endpoint.id, (list) => list.length === 1 && list[0].status === "succeeded");
  });

  it("after rotate-secret, each delivery carries two signatures, the new secret's then the old one's, each verifiable", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t);
    await marker(t, endpoint.id, path);
    const [before] = rx.received(path);
    expect(String(before.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    const rotated = await t.request("POST", `/webhooks/${endpoint.id}/rotate-secret`);
    expectStatus(rotated, 200);
    const fresh: string = rotated.body.data.secret;
    await createTournament(t);
    const [, after] = await rx.waitFor(path, 2);
    expect(typeOf(after)).toBe("tournament.created");
    const sigs = String(after.headers["webhook-signature"]).split(" ");
    expect(sigs).toEqual([signature(after, fresh), signature(after, endpoint.secret)]);
    expect(verify(after, fresh)).toEqual(payloadOf(after));
    expect(verify(after, endpoint.secret)).toEqual(payloadOf(after));
    expect(() => verify(after, `whsec_${randomBytes(32).toString("base64")}`)).toThrow();
    // A second rotation: the newest and the one before it (the first secret no longer signs).
    const again = (await t.request("POST", `/webhooks/${endpoint.id}/rotate-secret`)).body.data.secret;
    const [third] = (await marker(t, endpoint.id, path)).slice(-1);
    expect(String(third.headers["webhook-signature"]).split(" ")).toEqual([signature(third, again), signature(third, fresh)]);
    expect(() => verify(third, endpoint.secret)).toThrow();
    // 24 hours later (the clock moved on by the operator) the old secret no longer signs.
    await sql("update app.webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = $1", [endpoint.id]);
    const [fourth] = (await marker(t, endpoint.id, path)).slice(-1);
    expect(String(fourth.headers["webhook-signature"])).toBe(signature(fourth, again));
    expect(() => verify(fourth, fresh)).toThrow();
  });

  it("records nothing for refused, failed or replayed requests, nor for changes that change nothing", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t);
    const teams = await createTeams(3, "Refused");
    const tournament = await createTournament(t, { max_teams: 2 });
    const tid = tournament.id;
    const reg = (await register(t, tid, teams.slice(0, 1)))[0];
    const { key: readOnly } = await t.newKey(["read:tournaments", "read:webhooks"]);
    const limited = await t.newKey();
    await setRateHits(limited.id, Array(100).fill(1));
    const refusals: [string, Promise<ApiResponse>, number][] = [
      ["400", t.request("PATCH", `/tournaments/${tid}`, { body: { max_teams: 0 } }), 400],
      ["400 unknown field", t.request("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teams[1], x: 1 } }), 400],
      ["409 transition", t.request("PATCH", `/tournaments/${tid}`, { body: { status: "completed" } }), 409],
      ["409 not enough teams", t.request("PATCH", `/tournaments/${tid}`, { body: { status: "ongoing", name: "Never" } }), 409],
      ["409 already registered", t.request("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teams[0] } }), 409],
      ["403 scope", request("PATCH", `/tournaments/${tid}`, { key: readOnly, body: { name: "Scopeless" } }), 403],
      ["404", t.request("PATCH", `/tournaments/${UNKNOWN_ID}`, { body: { name: "Nowhere" } }), 404],
      ["429", request("PATCH", `/tournaments/${tid}`, { key: limited.key, body: { name: "Too Many" } }), 429],
    ];
    for (const [label, res, status] of refusals) expect((await res).status, label).toBe(status);
    // unchanged: the same values again
    expectStatus(await t.request("PATCH", `/tournaments/${tid}`, { body: { name: tournament.name, max_teams: 2 } }), 200);
    expectStatus(await t.request("PATCH", `/tournaments/${tid}`, { body: { status: "registration" } }), 200);
    expectStatus(
      await t.request("PATCH", `/tournaments/${tid}/registrations/${reg.id}`, { body: { payment_status: reg.payment_status, seed: null } }),
      200,
    );
    // replayed: the second of each pair records nothing; a mismatch (422) records nothing
    const idem = (k: string) => ({ "idempotency-key": k });
    const once = tournamentBody({ name: "Once Cup" });
    expectStatus(await t.request("POST", "/tournaments", { body: once, headers: idem("once") }), 201);
    expectStatus(await t.request("POST", "/tournaments", { body: once, headers: idem("once") }), 201);
    expectStatus(await t.request("POST", "/tournaments", { body: { ...once, name: "Twice Cup" }, headers: idem("once") }), 422);
    const body = { team_id: teams[1] };
    expectStatus(await t.request("POST", `/tournaments/${tid}/registrations`, { body, headers: idem("reg") }), 201);
    expectStatus(await t.request("POST", `/tournaments/${tid}/registrations`, { body, headers: idem("reg") }), 201);
    // full now: refused
    expectStatus(await t.request("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teams[2] } }), 409);
    const received = await marker(t, endpoint.id, path);
    expect(received.map(typeOf)).toEqual([
      "tournament.created",
      "registration.created",
      "tournament.created",
      "registration.created",
      "webhook.test",
    ]);
    expect((await deliveries(t, endpoint.id)).total).toBe(5);
    expect(payloadOf(received[2]).data.name).toBe("Once Cup");
  });

  it("hears only the events listed, and only the tournament named; one event has one webhook-id for every endpoint", async () => {
    const t = await tenant();
    const teams = await createTeams(4, "Filter");
    const [t1, t2] = [await createTournament(t, { name: "Filter One" }), await createTournament(t, { name: "Filter Two" })];
    const results = await hook(t, { events: ["match.completed", "tournament.created"] });
    const one = await hook(t, { tournament_id: t1.id });
    const twoRegs = await hook(t, { events: ["registration.created"], tournament_id: t2.id });
    const stageDone = await hook(t, { events: ["stage.completed"], tournament_id: t2.id });
    for (const [tid, team] of [[t1.id, teams[0]], [t2.id, teams[1]], [t1.id, teams[2]], [t2.id, teams[3]]]) await register(t, tid, [team]);
    for (const tid of [t1.id, t2.id]) expectStatus(await t.request("PATCH", `/tournaments/${tid}`, { body: { status: "ongoing" } }), 200);
    for (const tid of [t1.id, t2.id]) {
      const [m] = await sql("select id from app.matches where tournament_id = $1", [tid]);
      expectStatus(await t.request("PATCH", `/tournaments/${tid}/matches/${m.id}`, { body: { team1_score: 1, team2_score: 0 } }), 200);
    }
    const t3 = await createTournament(t, { name: "Filter Three" });
    const seen = async (h: { path: string; endpoint: Endpoint }) =>
      (await marker(t, h.endpoint.id, h.path)).map((r) =>
        `${typeOf(r)} ${
          typeOf(r) === "webhook.test" || typeOf(r).startsWith("tournament.") ? payloadOf(r).data.id : payloadOf(r).data.tournament_id
        }`
      );
    expect(await seen(results)).toEqual([
      `match.completed ${t1.id}`,
      `match.completed ${t2.id}`,
      `tournament.created ${t3.id}`,
      `webhook.test ${results.endpoint.id}`,
    ]);
    expect(await seen(one)).toEqual([
      `registration.created ${t1.id}`,
      `registration.created ${t1.id}`,
      `tournament.started ${t1.id}`,
      `stage.started ${t1.id}`,
      `match.ready ${t1.id}`,
      `match.completed ${t1.id}`,
      `stage.completed ${t1.id}`,
      `webhook.test ${one.endpoint.id}`,
    ]);
    expect(await seen(stageDone)).toEqual([`stage.completed ${t2.id}`, `webhook.test ${stageDone.endpoint.id}`]);
    expect(await seen(twoRegs)).toEqual([
      `registration.created ${t2.id}`,
      `registration.created ${t2.id}`,
      `webhook.test ${twoRegs.endpoint.id}`,
    ]);
    const completed = (h: { path: string }) =>
      rx.received(h.path).find((r) => typeOf(r) === "match.completed" && payloadOf(r).data.tournament_id === t1.id)!;
    expect(completed(results).headers["webhook-id"]).toBe(completed(one).headers["webhook-id"]);
    expect(completed(results).body).toBe(completed(one).body);
    // PATCHing the filters changes what is heard from then on.
    expectStatus(
      await t.request("PATCH", `/webhooks/${twoRegs.endpoint.id}`, { body: { events: ["tournament.updated"], tournament_id: null } }),
      200,
    );
    expectStatus(await t.request("PATCH", `/tournaments/${t3.id}`, { body: { name: "Filter Three Renamed" } }), 200);
    expect((await seen(twoRegs)).slice(3)).toEqual([`tournament.updated ${t3.id}`, `webhook.test ${twoRegs.endpoint.id}`]);
  });

  it("keeps accounts apart: another account's endpoint is 404 on every webhook route and hears nothing of this account", async () => {
    const [x, y] = await Promise.all([tenant(), tenant()]);
    const xh = await hook(x);
    const yh = await hook(y);
    await marker(x, xh.endpoint.id, xh.path);
    const [xDelivery] = (await deliveries(x, xh.endpoint.id)).data;
    const teams = await createTeams(2, "Apart");
    const yt = await createTournament(y, { name: "Y Only Cup" });
    await register(y, yt.id, teams);
    expectStatus(await y.request("PATCH", `/tournaments/${yt.id}`, { body: { status: "ongoing" } }), 200);
    expect((await marker(y, yh.endpoint.id, yh.path)).map(typeOf)).toEqual([
      "tournament.created",
      "registration.created",
      "registration.created",
      "tournament.started",
      "stage.started",
      "match.ready",
      "webhook.test",
    ]);
    const before = JSON.stringify(await sql("select * from app.webhook_endpoints where account_id = $1", [x.accountId]));
    const w = `/webhooks/${xh.endpoint.id}`;
    const routes: [string, string, unknown?][] = [
      ["GET", w],
      ["PATCH", w, { enabled: false, url: NOWHERE }],
      ["DELETE", w],
      ["POST", `${w}/rotate-secret`],
      ["POST", `${w}/test`],
      ["GET", `${w}/deliveries`],
      ["POST", `${w}/deliveries/${xDelivery.id}/retry`],
      // the other account's delivery through an endpoint of one's own
      ["POST", `/webhooks/${yh.endpoint.id}/deliveries/${xDelivery.id}/retry`],
    ];
    for (const [method, route, body] of routes) {
      const res = await y.request(method, route, { body });
      expectError(res, 404, "not_found");
      const nowhere = await y.request(method, route.replace(xh.endpoint.id, UNKNOWN_ID).replace(xDelivery.id, UNKNOWN_ID), { body });
      expect(res.body.error, `${method} ${route}`).toEqual(nowhere.body.error);
    }
    const list = await y.request("GET", "/webhooks");
    expect(list.body.data.map((e: Endpoint) => e.id)).toEqual([yh.endpoint.id]);
    expect(list.text).not.toContain(xh.endpoint.id);
    expect(JSON.stringify(await sql("select * from app.webhook_endpoints where account_id = $1", [x.accountId]))).toBe(before);
    const heard = await marker(x, xh.endpoint.id, xh.path);
    expect(heard.map(typeOf)).toEqual(["webhook.test", "webhook.test"]);
    expect((await deliveries(x, xh.endpoint.id)).total).toBe(2);
  });

  it("one PATCH that starts a tournament and renames it is one tournament.started showing the new name (no tournament.updated)", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { name: "Before Start" });
    await register(t, tournament.id, await createTeams(2, "Combined"));
    const { path, endpoint } = await hook(t, { events: ["tournament.started", "tournament.updated"] });
    const res = await t.request("PATCH", `/tournaments/${tournament.id}`, {
      body: { status: "ongoing", name: "After Start", rules: "New rules" },
    });
    expectStatus(res, 200);
    const received = await marker(t, endpoint.id, path);
    expect(received.map(typeOf)).toEqual(["tournament.started", "webhook.test"]);
    expect(payloadOf(received[0]).data).toEqual((await t.request("GET", `/tournaments/${tournament.id}`)).body.data);
    expect(payloadOf(received[0]).data).toMatchObject({ name: "After Start", rules: "New rules", status: "ongoing" });
  });

  it("a forfeit is match.completed; a correction that changes the winner is match.corrected, and the next match is ready again with its new team", async () => {
    const t = await tenant();
    const tournament = await createTournament(t, { max_teams: 4 });
    await register(t, tournament.id, await createTeams(4, "Forfeit"));
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
    const { path, endpoint } = await hook(t, { events: ["match.ready", "match.completed", "match.corrected"] });
    const matches = async () =>
      (await t.request("GET", `/tournaments/${tournament.id}/results`)).body.data.matches as {
        id: string;
        round: number;
        position: number;
        team1_id: string;
        team2_id: string;
      }[];
    const [m1, m2] = (await matches()).filter((m) => m.round === 1).sort((a, b) => a.position - b.position);
    const final = (await matches()).find((m) => m.round === 2)!;
    const withTid = async (id: string) => ({ ...(await matches()).find((m) => m.id === id), tournament_id: tournament.id });
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}/matches/${m1.id}`, { body: { forfeit: "team2" } }), 200);
    const forfeited = await withTid(m1.id);
    expectStatus(
      await t.request("PATCH", `/tournaments/${tournament.id}/matches/${m2.id}`, { body: { team1_score: 2, team2_score: 0 } }),
      200,
    );
    const m2done = await withTid(m2.id);
    const finalReady = await withTid(final.id);
    expectStatus(
      await t.request("PATCH", `/tournaments/${tournament.id}/matches/${m1.id}`, { body: { team1_score: 0, team2_score: 3 } }),
      200,
    );
    const corrected = await withTid(m1.id);
    const finalAgain = await withTid(final.id);
    expect(finalAgain).not.toEqual(finalReady); // the new winner of m1 plays the final
    const received = await marker(t, endpoint.id, path);
    expect(received.map((r) => [typeOf(r), payloadOf(r).data])).toEqual([
      ["match.completed", forfeited],
      ["match.completed", m2done],
      ["match.ready", finalReady],
      ["match.corrected", corrected],
      ["match.ready", finalAgain],
      ["webhook.test", expect.anything()],
    ]);
    expect(payloadOf(received[0]).data).toMatchObject({ forfeit: "team2", team1_score: null, team2_score: null, winner_id: m1.team1_id });
  });

  it("a team deleted by its owning account withdraws its registration from another account's tournament: that account hears registration.withdrawn, the owner nothing", async () => {
    const [organiser, teamOwner] = await Promise.all([tenant(), tenant()]);
    const made = await teamOwner.request("POST", "/teams", { body: { name: "Short Lived", tag: "SL" } });
    expectStatus(made, 201);
    const tournament = await createTournament(organiser);
    const [reg] = await register(organiser, tournament.id, [made.body.data.id]);
    const shown = (await organiser.request("GET", `/tournaments/${tournament.id}/registrations/${reg.id}`)).body.data;
    const org = await hook(organiser);
    const owner = await hook(teamOwner);
    expectStatus(await teamOwner.request("DELETE", `/teams/${made.body.data.id}`), 200);
    const heard = await marker(organiser, org.endpoint.id, org.path);
    expect(heard.map((r) => [typeOf(r), payloadOf(r).data])).toEqual([["registration.withdrawn", shown], [
      "webhook.test",
      expect.anything(),
    ]]);
    expect((await marker(teamOwner, owner.endpoint.id, owner.path)).map(typeOf)).toEqual(["webhook.test"]);
  });

  it("retries a failed attempt after each delay with the same webhook-id, and succeeds on a later one", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t, {}, (_r, nth) => ({ status: nth <= 2 ? 503 : 200 }));
    await createTournament(t);
    const tries = await rx.waitFor(path, 3, 8_000);
    expect(new Set(tries.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(tries.map((r) => r.body)).size).toBe(1);
    for (const r of tries) verify(r, endpoint.secret);
    for (let i = 1; i < 3; i++) {
      expect(tries[i].at - tries[i - 1].at, `delay before attempt ${i + 1}`).toBeGreaterThanOrEqual(900);
      expect(Number(tries[i].headers["webhook-timestamp"])).toBeGreaterThanOrEqual(Number(tries[i - 1].headers["webhook-timestamp"]));
    }
    // webhook-timestamp is each attempt's own (about 2 seconds apart here)
    expect(Number(tries[2].headers["webhook-timestamp"]) - Number(tries[0].headers["webhook-timestamp"])).toBeGreaterThanOrEqual(1);
    const [d] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.status === "succeeded");
    expect(d).toMatchObject({ attempts: 3, last_status_code: 200, last_error: null, next_attempt_at: null });
    await sleep(1200);
    expect(rx.received(path)).toHaveLength(3);
  });

  it("marks a delivery failed while retries remain and exhausted after the last (attempts = delays + 1); a manual retry then makes one more attempt", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t, {}, { status: 500 });
    await createTournament(t);
    await rx.waitFor(path, 1);
    const [failed] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.attempts === 1);
    expect(failed).toMatchObject({ status: "failed", last_status_code: 500, delivered_at: null });
    expect(failed.last_error).toMatch(/500/);
    expect(Date.parse(failed.next_attempt_at!) - Date.parse(failed.last_attempt_at!)).toBeGreaterThanOrEqual(900);
    const [exhausted] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.status === "exhausted", 8_000);
    expect(exhausted).toMatchObject({ attempts: 3, last_status_code: 500, next_attempt_at: null, delivered_at: null });
    expect(rx.received(path)).toHaveLength(3);
    await sleep(1200);
    expect(rx.received(path)).toHaveLength(3); // no retry left

    rx.answer(path, { status: 204 });
    const retried = await t.request("POST", `/webhooks/${endpoint.id}/deliveries/${exhausted.id}/retry`);
    expectStatus(retried, 202);
    expect(retried.body.data).toMatchObject({ id: exhausted.id, event_id: exhausted.event_id, status: "pending", attempts: 3 });
    const fourth = (await rx.waitFor(path, 4)).at(-1)!;
    expect(fourth.headers["webhook-id"]).toBe(exhausted.event_id);
    expect(fourth.body).toBe(rx.received(path)[0].body);
    const [succeeded] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.status === "succeeded");
    expect(succeeded).toMatchObject({ attempts: 4, last_status_code: 204, last_error: null, next_attempt_at: null });

    // A succeeded delivery can be resent too.
    expectStatus(await t.request("POST", `/webhooks/${endpoint.id}/deliveries/${exhausted.id}/retry`), 202);
    expect((await rx.waitFor(path, 5)).at(-1)!.headers["webhook-id"]).toBe(exhausted.event_id);
    await waitForDeliveries(t, endpoint.id, (list) => list[0]?.status === "succeeded" && list[0].attempts === 5);
    expect((await deliveries(t, endpoint.id)).total).toBe(1);
  });

  it("fails an attempt whose answer takes longer than WEBHOOK_TIMEOUT_MS: last_error set, last_status_code null", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t, {}, { delayMs: TIMEOUT_MS + 1500 });
    await createTournament(t);
    await rx.waitFor(path, 1);
    const [d] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.attempts === 1, TIMEOUT_MS + 3000);
    expect(d).toMatchObject({ status: "failed", last_status_code: null, delivered_at: null });
    expect(d.last_error).toMatch(new RegExp(`${TIMEOUT_MS}|time`, "i"));
    expect(d.last_error!.length).toBeLessThanOrEqual(500);
    expect(d.last_error).not.toContain(endpoint.secret.slice(6));
    expectStatus(await t.request("DELETE", `/webhooks/${endpoint.id}`), 200);
  });

  it.each([301, 302, 303, 307, 308])("fails on a %i redirect and does not follow it", async (status) => {
    const t = await tenant();
    const target = rx.newPath();
    const { path, endpoint } = await hook(t, {}, { status, location: rx.url(target) });
    await createTournament(t);
    await rx.waitFor(path, 1);
    const [d] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.attempts === 1);
    expect(d).toMatchObject({ status: "failed", last_status_code: status, delivered_at: null });
    expect(d.last_error).toMatch(new RegExp(String(status)));
    await sleep(200);
    expect(rx.received(target)).toEqual([]);
    expectStatus(await t.request("DELETE", `/webhooks/${endpoint.id}`), 200);
  });

  it("DELETE drops the endpoint's pending retries: the receiver hears no more", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t, {}, { status: 500 });
    await createTournament(t);
    await rx.waitFor(path, 1);
    await waitForDeliveries(t, endpoint.id, (list) => list[0]?.status === "failed");
    expectStatus(await t.request("DELETE", `/webhooks/${endpoint.id}`), 200);
    expect(await sql("select id from app.webhook_deliveries where endpoint_id = $1", [endpoint.id])).toEqual([]);
    await sleep(2500); // two retry delays
    expect(rx.received(path)).toHaveLength(1);
  });

  it("DELETE while a claimed batch is being sent: the batch's attempts not yet made are not made", async () => {
    const t = await tenant();
    const teams = await createTeams(8, "Batch");
    const tournament = await createTournament(t, { max_teams: 8 });
    await register(t, tournament.id, teams);
    const { path, endpoint } = await hook(t, {}, { delayMs: 800 });
    // One commit: tournament.started, stage.started and four match.ready, claimed and sent one after another.
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
    await rx.waitFor(path, 1);
    expectStatus(await t.request("DELETE", `/webhooks/${endpoint.id}`), 200);
    await sleep(3 * 800 + 500);
    expect(rx.received(path).map(typeOf)).toEqual(["tournament.started"]);
  });
});

// =============================================================================================
describe("an endpoint whose every attempt fails for WEBHOOK_DISABLE_AFTER_SECONDS", () => {
  beforeAll(async () => {
    await startTestDispatcher({ WEBHOOK_DISABLE_AFTER_SECONDS: "1", WEBHOOK_RETRY_SECONDS: "1,1,1,1" });
  });
  afterAll(async () => {
    await stopDispatchers();
  });

  it('is disabled (enabled false, disabled_reason "failing"), nothing is recorded for it, and re-enabling brings it back', async () => {
    const t = await tenant();
    const failing = await hook(t, {}, { status: 500 });
    const recovering = await hook(t, {}, (_r, nth) => ({ status: nth === 1 ? 500 : 200 }));
    const healthy = await hook(t);
    const tournament = await createTournament(t);
    await rx.waitFor(failing.path, 2, 5_000);
    const until = Date.now() + 6_000;
    let shown: Endpoint;
    do {
      await sleep(100);
      shown = (await t.request("GET", `/webhooks/${failing.endpoint.id}`)).body.data;
    } while (shown.enabled && Date.now() < until);
    expect(shown).toMatchObject({ enabled: false, disabled_reason: "failing" });
    // One success within the period keeps an endpoint on.
    expect(rx.received(recovering.path).length).toBeGreaterThanOrEqual(2);
    expect((await t.request("GET", `/webhooks/${recovering.endpoint.id}`)).body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
    });

    const before = (await deliveries(t, failing.endpoint.id)).total;
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { name: "Unheard Rename" } }), 200);
    expect((await deliveries(t, failing.endpoint.id)).total).toBe(before);
    expect((await marker(t, healthy.endpoint.id, healthy.path)).map(typeOf)).toEqual([
      "tournament.created",
      "tournament.updated",
      "webhook.test",
    ]);

    rx.answer(failing.path, { status: 200 });
    const res = await t.request("PATCH", `/webhooks/${failing.endpoint.id}`, { body: { enabled: true } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { name: "Heard Again" } }), 200);
    await rx.waitUntil(() => rx.received(failing.path).some((r) => payloadOf(r).data.name === "Heard Again"), 5_000, () => "the rename");
    expect((await t.request("GET", `/webhooks/${failing.endpoint.id}`)).body.data.enabled).toBe(true);
  });
});

// =============================================================================================
describe("several dispatchers, and faults", () => {
  afterEach(async () => {
    await stopDispatchers();
  });

  /** Creates `n` tournaments for an account in one SQL statement (as the operator): n tournament.created events. */
  async function bulkTournaments(accountId: string, n: number, prefix: string): Promise<void> {
    await sql(
      `insert into app.tournaments (account_id, name, slug, game_id, team_size, max_teams, starts_at, registration_closes)
       select $1, $3 || ' ' || lpad(i::text, 4, '0'), 'bulk-' || gen_random_uuid(), gen_random_uuid(), 5, 8,
              now() + interval '30 days', now() + interval '30 days'
         from generate_series(1, $2) i`,
      [accountId, n, prefix],
    );
  }

  it(
    "two dispatchers over one database deliver each of 1,000 events exactly once to each endpoint, each endpoint's in event order",
    async () => {
      const t = await tenant();
      const hooks = [
        await hook(t, { events: ["tournament.created"] }),
        await hook(t, { events: ["tournament.created"] }),
        await hook(t, { events: ["tournament.created"] }),
      ];
      await Promise.all([startTestDispatcher(), startTestDispatcher()]);
      for (let i = 0; i < 4; i++) await bulkTournaments(t.accountId, 250, `Bulk ${i}`);
      for (const h of hooks) await rx.waitFor(h.path, 1000, 30_000);
      await sleep(1500); // a duplicate would come now
      const events = await sql<{ id: string; seq: string }>(
        // An event's place in its account's order: its deliveries' (made in event order, at commit).
        `select e.id::text, min(d.seq) as seq from app.webhook_events e join app.webhook_deliveries d on d.event_id = e.id
        where e.account_id = $1 and e.type = 'tournament.created' group by e.id`,
        [t.accountId],
      );
      expect(events).toHaveLength(1000);
      const seq = new Map(events.map((e) => [e.id, Number(e.seq)]));
      for (const h of hooks) {
        const ids = rx.received(h.path).map((r) => String(r.headers["webhook-id"]));
        expect(ids).toHaveLength(1000);
        expect(new Set(ids).size).toBe(1000);
        expect(ids.every((id) => seq.has(id))).toBe(true);
        const order = ids.map((id) => seq.get(id)!);
        expect(order).toEqual([...order].sort((a, b) => a - b));
      }
      const [{ n, ok }] = await sql(
        `select count(*)::int n, count(*) filter (where d.status = 'succeeded' and d.attempts = 1)::int ok
         from app.webhook_deliveries d where d.endpoint_id = any($1::uuid[])`,
        [hooks.map((h) => h.endpoint.id)],
      );
      expect({ n, ok }).toEqual({ n: 3000, ok: 3000 });
    },
    60_000,
  );

  it("an attempt whose dispatcher is SIGKILLed mid-request is made again by another once the attempt's 60-second lease ends", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t, {}, { hold: true });
    const first = await startTestDispatcher();
    await createTournament(t);
    const [held] = await rx.waitFor(path, 1);
    await first.kill();
    rx.answer(path, { status: 200 });
    await startTestDispatcher();
    await sleep(2500);
    expect(rx.received(path)).toHaveLength(1); // still leased to the dead dispatcher
    const [row] = await sql("select status, attempts, lease_until > now() leased from app.webhook_deliveries where endpoint_id = $1", [
      endpoint.id,
    ]);
    expect(row).toEqual({ status: "pending", attempts: 0, leased: true });
    // The lease is 60 seconds: rather than wait that long, the operator moves its end into the
    // past, which is what the clock does a minute later.
    await sql("update app.webhook_deliveries set lease_until = now() - interval '1 second' where endpoint_id = $1", [endpoint.id]);
    const [, again] = await rx.waitFor(path, 2, 5_000);
    expect(again.headers["webhook-id"]).toBe(held.headers["webhook-id"]);
    expect(again.body).toBe(held.body);
    verify(again, endpoint.secret);
    const [d] = await waitForDeliveries(t, endpoint.id, (list) => list[0]?.status === "succeeded");
    expect(d.last_status_code).toBe(200);
    await sleep(1200);
    expect(rx.received(path)).toHaveLength(2);
  });

  it("loses nothing when the database goes away mid-dispatch", async () => {
    const t = await tenant();
    const { path, endpoint } = await hook(t, {}, { delayMs: 100 });
    const proxy = await DatabaseProxy.start(inject("dispatcherDbUrl"));
    try {
      const d = await startTestDispatcher({}, proxy.via(inject("dispatcherDbUrl")));
      await bulkTournaments(t.accountId, 40, "Away");
      await rx.waitFor(path, 3);
      // The database goes away for the dispatcher for 2 seconds: its connections are cut, new ones refused.
      proxy.down();
      await sleep(2000);
      proxy.up();
      expect(d.lines.some((l) => l.includes('"level":"error"')), d.lines.join("\n")).toBe(true);
      // Attempts made but not recorded stay leased for 60 seconds: once the dispatcher is done with
      // what it had claimed (nothing arrives for a second), the operator ends those leases rather
      // than wait for the clock (see the SIGKILL test).
      let count = -1;
      while (count !== rx.received(path).length) {
        count = rx.received(path).length;
        await sleep(1000);
      }
      await sql(
        `update app.webhook_deliveries set lease_until = now() - interval '1 second'
                  where endpoint_id = $1 and status in ('pending', 'failed') and lease_until > now()`,
        [endpoint.id],
      );
      const done = await waitForDeliveries(
        t,
        endpoint.id,
        (list) => list.length === 40 && list.every((x) => x.status === "succeeded"),
        20_000,
      );
      const heard = new Set(rx.received(path).map((r) => String(r.headers["webhook-id"])));
      for (const x of done) expect(heard.has(x.event_id), x.event_id).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 40_000);
});

// =============================================================================================
describe("destinations when WEBHOOK_ALLOW_LOCAL is not true (the deployed default)", () => {
  let fn: { url: string; stop: () => Promise<void> } | undefined;
  afterAll(async () => {
    await stopDispatchers();
    await fn?.stop();
  });

  it("a dispatcher contacts no loopback, localhost, private or link-local address: the attempt fails, last_error saying why", async () => {
    const t = await tenant();
    const targets = [
      `https://127.0.0.1:${rx.port}/strict/a`,
      `https://localhost:${rx.port}/strict/b`,
      `https://[::1]:${rx.port}/strict/c`,
      "https://169.254.169.254/latest/meta-data/",
      "https://10.1.2.3/hook",
      "https://192.168.1.1/hook",
      "https://100.64.0.1/hook",
      "https://0.0.0.0/hook",
    ];
    const endpoints: Endpoint[] = [];
    try {
      for (const url of targets) endpoints.push(await createEndpoint(t, { url, events: ["*"] }));
      await createTournament(t); // one delivery per endpoint, pending: no dispatcher runs
      const connections = rx.connections;
      await startTestDispatcher({ WEBHOOK_ALLOW_LOCAL: "", WEBHOOK_RETRY_SECONDS: "60" });
      for (const [i, e] of endpoints.entries()) {
        const [d] = await waitForDeliveries(t, e.id, (list) => list[0]?.attempts === 1, 10_000);
        expect(d, targets[i]).toMatchObject({ status: "failed", last_status_code: null, delivered_at: null });
        expect(d.last_error, targets[i]).toMatch(/refused|not contacted/i);
        expect(d.last_error, targets[i]).toMatch(/loopback|link-local|private|CGNAT|unspecified/);
      }
      expect(rx.connections).toBe(connections);
      expect(rx.received().filter((r) => r.path.startsWith("/strict/"))).toEqual([]);
    } finally {
      // (cleanup, as the operator: no later dispatcher should try them)
      await sql("delete from app.webhook_endpoints where account_id = $1", [t.accountId]);
    }
  });

  it("the API without it refuses http:// URLs at create and PATCH (400 naming url) and accepts https://", async () => {
    const strict = await startFunction({
      port: await freePort(),
      databaseUrl: inject("functionDbUrl"),
      env: { WEBHOOK_ENCRYPTION_KEY: inject("webhookEncryptionKey"), WEBHOOK_ALLOW_LOCAL: "", LOG_REQUESTS: "false" },
    });
    fn = strict;
    const base = `${strict.url}/functions/v1/api/v1`;
    const t = await tenant();
    const call = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
      const res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
    };
    for (const url of [rx.url("/plain"), "http://example.com/hook", "HTTP://example.com/hook"]) {
      expectInvalid(await call("POST", "/webhooks", { url, events: ["*"] }), "url");
    }
    const created = await call("POST", "/webhooks", { url: "https://127.0.0.1:9/secure", events: ["*"] });
    expectStatus(created, 201);
    expect(created.body.data.secret).toMatch(SECRET);
    expectInvalid(await call("PATCH", `/webhooks/${created.body.data.id}`, { url: "http://example.com/hook" }), "url");
    expect((await call("GET", `/webhooks/${created.body.data.id}`)).body.data.url).toBe("https://127.0.0.1:9/secure");
    expectStatus(await call("PATCH", `/webhooks/${created.body.data.id}`, { url: "https://127.0.0.1:9/other" }), 200);
    // The test function (WEBHOOK_ALLOW_LOCAL=true) accepts the same http:// URL.
    expectStatus(await t.request("PATCH", `/webhooks/${created.body.data.id}`, { body: { url: "http://127.0.0.1:9/local" } }), 200);
  });
});

// Contract section 17 (participants act for themselves), written from the contract alone by a second
// author: participant tokens (tpt_ format and checksum, minting both kinds, listing, revocation,
// expiry, tokens going with their registration or tournament), the participant routes, the wall
// between organiser keys and participant tokens, scopes, each token's own rate limit, sign-up
// (team, players and registration in one transaction; external_id reuse; max_uses; Idempotency-Key),
// registration states (approval, waitlist, accept/refuse, promotion when a slot frees), the races,
// webhook events' `actor`, and disqualification's 409s. Real function, real database, no mocks.
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type ApiResponse,
  type Call,
  caller,
  createTeams,
  expectError,
  expectStatus,
  request,
  type RequestOptions,
  sql,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const DEFAULT_SCOPES = ["participant:check_in", "participant:lineup", "participant:report", "participant:withdraw"];
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Nothing listens on port 9 of the loopback: webhook endpoints of this file point there. */
const NOWHERE = "http://127.0.0.1:9/x";

const uniq = () => randomBytes(5).toString("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const sorted = (xs: string[]) => [...xs].sort();

// --- section 6's checksum, computed here independently ------------------------------------------
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const b of new TextEncoder().encode(text)) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
function base62(value: number, width: number): string {
  let out = "";
  for (let n = value; n > 0; n = Math.floor(n / 62)) out = ALPHABET[n % 62] + out;
  return out.padStart(width, "0");
}
const checksumOf = (body: string) => base62(crc32(body), 6);
const checksumHolds = (key: string) => key.slice(-6) === checksumOf(key.slice(0, -6));

/** A well-formed token (valid checksum) that nobody minted. */
function unknownToken(prefix = "tpt_"): string {
  let body = prefix;
  for (const b of randomBytes(43)) body += ALPHABET[b % 62];
  return body + checksumOf(body);
}

/** The token with one checksum character changed. */
function badChecksum(key: string): string {
  const i = key.length - 2;
  return key.slice(0, i) + ALPHABET[(ALPHABET.indexOf(key[i]) + 1) % 62] + key.slice(i + 1);
}

// --- organiser side ---------------------------------------------------------------------------------
async function organiser() {
  const t = await tenant();
  return { t, call: caller(t) };
}

async function newTournament(call: Call, fields: Record<string, unknown> = {}): Promise<Json> {
  const res = await call("POST", "/tournaments", { body: tournamentBody({ team_size: 2, max_teams: 8, ...fields }) });
  expectStatus(res, 201);
  return res.body.data;
}

async function register(call: Call, tid: string, teamId: string): Promise<Json> {
  const res = await call("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teamId } });
  expectStatus(res, 201);
  return res.body.data;
}

/** Registers `n` fresh platform teams in order. */
async function registerTeams(call: Call, tid: string, n: number): Promise<Json[]> {
  const regs = [];
  for (const team of await createTeams(n, `P17-${uniq()}`)) regs.push(await register(call, tid, team));
  return regs;
}

async function mintFor(call: Call, tid: string, rid: string, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await call("POST", `/tournaments/${tid}/registrations/${rid}/tokens`, { body });
  expectStatus(res, 201);
  return res.body.data;
}

async function mintSignup(call: Call, tid: string, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await call("POST", `/tournaments/${tid}/signup-tokens`, { body });
  expectStatus(res, 201);
  return res.body.data;
}

async function listTokens(call: Call, tid: string): Promise<ApiResponse> {
  const res = await call("GET", `/tournaments/${tid}/tokens`);
  expectStatus(res, 200);
  return res;
}

async function registrations(call: Call, tid: string, query = ""): Promise<Json[]> {
  const res = await call("GET", `/tournaments/${tid}/registrations${query}`);
  expectStatus(res, 200);
  return res.body.data;
}

async function stateOf(call: Call, tid: string): Promise<Record<string, string>> {
  return Object.fromEntries((await registrations(call, tid)).map((r) => [r.id, r.state]));
}

const patchReg = (call: Call, tid: string, rid: string, body: unknown) =>
  call("PATCH", `/tournaments/${tid}/registrations/${rid}`, { body });

// --- participant side -----------------------------------------------------------------------------
/** A request to /api/v1/participant… with a token. */
const as = (token: string) => (method: string, path = "", options: Omit<RequestOptions, "key"> = {}) =>
  request(method, `/participant${path}`, { ...options, key: token });

function signUp(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return request("POST", "/participant/registrations", { key: token, body, headers });
}

const teamBody = (name = `Self ${uniq()}`, tag = "SLF") => ({ name, tag });

/**
 * Signs a fresh team up (with `st`, else a fresh sign-up token): the registration and the registration
 * token the sign-up answers (default scopes), the way most tests here get a registration token.
 */
async function signedUp(call: Call, tid: string, extra: Record<string, unknown> = {}, st?: Json): Promise<{ reg: Json; tok: Json }> {
  st ??= await mintSignup(call, tid);
  const res = await signUp(st.token, { team: teamBody(), ...extra });
  expectStatus(res, 201);
  return { reg: res.body.data.registration, tok: res.body.data.token };
}

/** A 400 validation_error whose details name `field` or an item of it (scopes[0], lineup.1.role). */
function expectNamed(res: ApiResponse, field: string): void {
  expectError(res, 400, "validation_error");
  const named: string[] = (res.body.error.details ?? []).map((d: { field: string }) => d.field);
  expect(named.some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)), res.text).toBe(true);
}

function expectUnauthorized(res: ApiResponse): void {
  expectError(res, 401, "unauthorized");
  expect(res.headers.get("www-authenticate") ?? "", res.text).toMatch(/^Bearer/);
}

/** The webhook events of an account, oldest first, parsed. */
async function events(accountId: string): Promise<Json[]> {
  const rows = await sql<{ payload: string }>(
    `select e.payload from app.webhook_events e join app.webhook_deliveries d on d.event_id = e.id
      where e.account_id = $1 order by d.seq`,
    [accountId],
  );
  return rows.map((r) => (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload));
}

// =================================================================================================
describe("tokens: format and minting", () => {
  it("our checksum is section 6's: it holds for an organiser key", async () => {
    const t = await tenant();
    expect(t.key.startsWith("tmk_")).toBe(true);
    expect(checksumHolds(t.key)).toBe(true);
    expect(checksumHolds(badChecksum(t.key))).toBe(false);
  });

  it("mints a registration token: 201, Location, the contract's fields, default scopes, tpt_ + ≥ 32 random bytes in base62 + checksum", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const [reg] = await registerTeams(call, tour.id, 1);
    const res = await call("POST", `/tournaments/${tour.id}/registrations/${reg.id}/tokens`, { body: {} });
    expectStatus(res, 201);
    expect(res.headers.get("location"), "POST 201 carries Location (section 2)").toBeTruthy();
    const tok = res.body.data;
    for (const f of ["id", "token", "name", "scopes", "registration_id", "expires_at", "created_at"]) expect(tok, f).toHaveProperty(f);
    expect(tok.id).toMatch(UUID);
    expect(tok.token).toMatch(/^tpt_[0-9A-Za-z]{49,}$/); // ≥ 43 base62 characters carry 32 bytes, then 6 of checksum
    expect(checksumHolds(tok.token), "tpt_ ends in section 6's CRC32 base62 checksum").toBe(true);
    expect(sorted(tok.scopes)).toEqual(DEFAULT_SCOPES);
    expect(tok.registration_id).toBe(reg.id);
    expect(tok.expires_at).toBeNull();
    expect(tok.created_at).toMatch(ISO_Z);
    expect(typeof tok.name).toBe("string");
    // Two tokens never share a secret.
    const other = await mintFor(call, tour.id, reg.id);
    expect(other.token).not.toBe(tok.token);
    expect(other.id).not.toBe(tok.id);
  });

  it("stores only the token's SHA-256: no column holds the plaintext", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id);
    const { tok } = await signedUp(call, tour.id, {}, st);
    for (const { id, token } of [st, tok]) {
      const rows = await sql<{ row: string; hash: string }>(
        "select to_jsonb(k)::text as row, encode(k.key_hash, 'hex') as hash from app.api_keys k where k.id = $1",
        [id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].hash).toBe(createHash("sha256").update(token).digest("hex"));
      expect(rows[0].row.includes(token.slice(4, 40))).toBe(false);
    }
  });

  it("takes name, scopes and expires_at; refuses bad bodies with 400 naming the field", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const [reg] = await registerTeams(call, tour.id, 1);
    const path = `/tournaments/${tour.id}/registrations/${reg.id}/tokens`;
    expectError(await call("POST", path, { body: { name: "n".repeat(101) } }), 400, "validation_error", ["name"]);
    expectNamed(await call("POST", path, { body: { scopes: ["read:tournaments"] } }), "scopes");
    expectNamed(await call("POST", path, { body: { scopes: ["participant:nothing"] } }), "scopes");
    expectNamed(await call("POST", path, { body: { scopes: ["participant:register"] } }), "scopes");
    expectError(await call("POST", path, { body: { expires_at: "tomorrow" } }), 400, "validation_error", ["expires_at"]);
    expectError(await call("POST", path, { body: { colour: "red" } }), 400, "validation_error");
    const expires = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    const tok = await mintFor(call, tour.id, reg.id, {
      name: "Captain's link",
      scopes: ["participant:check_in"],
      expires_at: expires.toISOString(),
    });
    expect(tok.name).toBe("Captain's link");
    expect(tok.scopes).toEqual(["participant:check_in"]);
    expect(Date.parse(tok.expires_at)).toBe(expires.getTime());
    expect(tok.expires_at).toMatch(ISO_Z);
    const me = await as(tok.token)("GET");
    expectStatus(me, 200);
    expect(me.body.data.token).toEqual({
      id: tok.id,
      name: "Captain's link",
      scopes: ["participant:check_in"],
      expires_at: tok.expires_at,
    });
    expect(me.body.data.registration.id).toBe(reg.id);
  });

  it("mints a sign-up token: 201, scopes [participant:register], uses 0, max_uses null by default; max_uses 1–10,000", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const res = await call("POST", `/tournaments/${tour.id}/signup-tokens`, { body: {} });
    expectStatus(res, 201);
    expect(res.headers.get("location"), "POST 201 carries Location (section 2)").toBeTruthy();
    const tok = res.body.data;
    for (const f of ["id", "token", "name", "scopes", "uses", "max_uses", "expires_at", "created_at"]) expect(tok, f).toHaveProperty(f);
    expect(tok.token).toMatch(/^tpt_[0-9A-Za-z]{49,}$/);
    expect(checksumHolds(tok.token)).toBe(true);
    expect(tok.scopes).toEqual(["participant:register"]);
    expect(tok.uses).toBe(0);
    expect(tok.max_uses).toBeNull();
    expect(tok.expires_at).toBeNull();
    const capped = await mintSignup(call, tour.id, { name: "Discord", max_uses: 10_000 });
    expect(capped).toMatchObject({ name: "Discord", max_uses: 10_000, uses: 0 });
    const path = `/tournaments/${tour.id}/signup-tokens`;
    expectError(await call("POST", path, { body: { max_uses: 0 } }), 400, "validation_error", ["max_uses"]);
    expectError(await call("POST", path, { body: { max_uses: 10_001 } }), 400, "validation_error", ["max_uses"]);
    expectError(await call("POST", path, { body: { max_uses: 1.5 } }), 400, "validation_error", ["max_uses"]);
  });

  it("404 for an unknown tournament or registration, a registration of another tournament, another account's tournament", async () => {
    const { call } = await organiser();
    const a = await newTournament(call);
    const b = await newTournament(call);
    const [regB] = await registerTeams(call, b.id, 1);
    expectError(await call("POST", `/tournaments/${UNKNOWN}/signup-tokens`, { body: {} }), 404, "not_found");
    const other = await organiser();
    expectError(await other.call("POST", `/tournaments/${b.id}/signup-tokens`, { body: {} }), 404, "not_found");
    expectError(await other.call("GET", `/tournaments/${b.id}/tokens`), 404, "not_found");
    expectError(await call("POST", `/tournaments/${a.id}/registrations/${UNKNOWN}/tokens`, { body: {} }), 404, "not_found");
    expectError(await call("POST", `/tournaments/${a.id}/registrations/${regB.id}/tokens`, { body: {} }), 404, "not_found");
    expectError(await other.call("POST", `/tournaments/${b.id}/registrations/${regB.id}/tokens`, { body: {} }), 404, "not_found");
  });

  it("minting needs write:registrations (403 insufficient_scope naming it)", async () => {
    const { t, call } = await organiser();
    const tour = await newTournament(call);
    const [reg] = await registerTeams(call, tour.id, 1);
    const { key } = await t.newKey(["read:tournaments", "read:registrations"]);
    for (
      const path of [`/tournaments/${tour.id}/registrations/${reg.id}/tokens`, `/tournaments/${tour.id}/signup-tokens`]
    ) {
      const res = await request("POST", path, { key, body: {} });
      expectError(res, 403, "insufficient_scope");
      expect(res.body.error.message).toContain("write:registrations");
    }
    expect((await listTokens(call, tour.id)).body.data).toEqual([]);
  });
});

// =================================================================================================
describe("tokens: list, last_used_at, revocation, expiry, deletion", () => {
  it("lists both kinds without any secret; last_used_at null until used, then set", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id, { name: "signup", max_uses: 5 });
    const { reg, tok: rt } = await signedUp(call, tour.id, {}, st);
    const before = await listTokens(call, tour.id);
    expect(before.text.includes(rt.token)).toBe(false);
    expect(before.text.includes(st.token)).toBe(false);
    expect(before.text.includes(rt.token.slice(12, 40))).toBe(false);
    const items: Json[] = before.body.data;
    expect(sorted(items.map((i) => i.id))).toEqual(sorted([rt.id, st.id]));
    for (const i of items) expect(i).not.toHaveProperty("token");
    const r = items.find((i) => i.id === rt.id);
    const s = items.find((i) => i.id === st.id);
    expect(r).toMatchObject({ registration_id: reg.id, expires_at: null, last_used_at: null });
    expect(sorted(r.scopes)).toEqual(DEFAULT_SCOPES);
    expect(s).toMatchObject({ name: "signup", scopes: ["participant:register"], uses: 1, max_uses: 5 });
    expect(s.last_used_at).toMatch(ISO_Z); // the sign-up was its use

    const t0 = Date.now();
    expectStatus(await as(rt.token)("GET"), 200);
    const after: Json[] = (await listTokens(call, tour.id)).body.data;
    const used = after.find((i) => i.id === rt.id);
    expect(used.last_used_at).toMatch(ISO_Z);
    expect(Math.abs(Date.parse(used.last_used_at) - t0)).toBeLessThan(120_000);
  });

  it("revocation is effective on the next request (401 as an unknown token), for both kinds", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id);
    const { tok: rt } = await signedUp(call, tour.id, {}, st);
    const { tok: keep } = await signedUp(call, tour.id, {}, st);
    expectStatus(await as(rt.token)("GET"), 200);
    expectStatus(await as(st.token)("GET"), 200);
    for (const tok of [rt, st]) {
      const del = await call("DELETE", `/tournaments/${tour.id}/tokens/${tok.id}`);
      expectStatus(del, 200);
      expect(typeof del.body.data.message).toBe("string");
    }
    const unknown = await as(unknownToken())("GET");
    expectUnauthorized(unknown);
    for (const tok of [rt, st]) {
      const res = await as(tok.token)("GET");
      expectUnauthorized(res);
      expect(res.body.error).toEqual(unknown.body.error);
    }
    expectUnauthorized(await signUp(st.token, { team: teamBody() }));
    expectUnauthorized(await as(rt.token)("PATCH", "/registration", { body: { checked_in: true } }));
    expectStatus(await as(keep.token)("GET"), 200);
    expect(await registrations(call, tour.id)).toHaveLength(2);
  });

  it("DELETE of a token: unknown, another tournament's, or an organiser key's id is 404 and revokes nothing", async () => {
    const { t, call } = await organiser();
    const a = await newTournament(call);
    const b = await newTournament(call);
    const { tok: rt } = await signedUp(call, a.id);
    expectError(await call("DELETE", `/tournaments/${a.id}/tokens/${UNKNOWN}`), 404, "not_found");
    expectError(await call("DELETE", `/tournaments/${b.id}/tokens/${rt.id}`), 404, "not_found");
    const spare = await t.newKey();
    expectError(await call("DELETE", `/tournaments/${a.id}/tokens/${spare.id}`), 404, "not_found");
    expectStatus(await request("GET", "/me", { key: spare.key }), 200);
    expectStatus(await as(rt.token)("GET"), 200);
    const other = await organiser();
    expectError(await other.call("DELETE", `/tournaments/${a.id}/tokens/${rt.id}`), 404, "not_found");
    expectStatus(await as(rt.token)("GET"), 200);
  });

  it("a token past its expires_at is refused (401)", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const expires = Date.now() + 2_500;
    const st = await mintSignup(call, tour.id, { expires_at: new Date(expires).toISOString() });
    const me = await as(st.token)("GET");
    expectStatus(me, 200);
    expect(Math.abs(Date.parse(me.body.data.token.expires_at) - expires)).toBeLessThan(1000);
    expectStatus(await signUp(st.token, { team: teamBody() }), 201);
    await sleep(expires - Date.now() + 400);
    expectUnauthorized(await as(st.token)("GET"));
    expectUnauthorized(await signUp(st.token, { team: teamBody() }));
    expect(await registrations(call, tour.id)).toHaveLength(1);
  });

  it("a malformed token or one with a changed checksum is 401 with the same body as an unknown one", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const { tok: rt } = await signedUp(call, tour.id);
    const responses = await Promise.all(
      [unknownToken(), badChecksum(rt.token), rt.token.slice(0, -1), `${rt.token}x`, "tpt_short", `tpt-${rt.token.slice(4)}`].map((k) =>
        as(k)("GET")
      ),
    );
    responses.push(await request("GET", "/participant"));
    for (const res of responses) expectUnauthorized(res);
    expect(new Set(responses.map((r) => JSON.stringify(r.body.error))).size).toBe(1);
    expectStatus(await as(rt.token)("GET"), 200);
  });

  it("withdrawing or deleting a registration takes its tokens; deleting the tournament takes all of them", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id);
    const { reg: r1, tok: t1 } = await signedUp(call, tour.id, {}, st);
    const { tok: t2 } = await signedUp(call, tour.id, {}, st);
    expectStatus(await call("DELETE", `/tournaments/${tour.id}/registrations/${r1.id}`), 200);
    expectUnauthorized(await as(t1.token)("GET"));
    const listed: Json[] = (await listTokens(call, tour.id)).body.data;
    expect(listed.map((i) => i.id)).not.toContain(t1.id);
    expect(listed.map((i) => i.id)).toContain(t2.id);
    expectStatus(await as(t2.token)("GET"), 200);
    expectStatus(await as(st.token)("GET"), 200);
    expectStatus(await call("DELETE", `/tournaments/${tour.id}`), 200);
    expectUnauthorized(await as(t2.token)("GET"));
    expectUnauthorized(await as(st.token)("GET"));
    expectUnauthorized(await signUp(st.token, { team: teamBody() }));
  });
});

// =================================================================================================
describe("the wall between organiser keys and participant tokens", () => {
  it("a participant token is 401 on every organiser route, with the body of an unknown key, and changes nothing", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const st = await mintSignup(call, tour.id);
    const { reg, tok: rt } = await signedUp(call, tour.id, {}, st);
    const routes: [string, string, unknown?][] = [
      ["GET", "/me"],
      ["GET", "/tournaments"],
      ["GET", `/tournaments/${tour.id}`],
      ["GET", `/tournaments/${tour.id}/registrations`],
      ["GET", `/tournaments/${tour.id}/registrations/${reg.id}`],
      ["PATCH", `/tournaments/${tour.id}/registrations/${reg.id}`, { checked_in: true }],
      ["DELETE", `/tournaments/${tour.id}/registrations/${reg.id}`],
      ["PUT", `/tournaments/${tour.id}/registrations/${reg.id}/lineup`, { players: [] }],
      ["POST", `/tournaments/${tour.id}/registrations`, { team_id: UNKNOWN }],
      ["GET", `/tournaments/${tour.id}/tokens`],
      ["POST", `/tournaments/${tour.id}/signup-tokens`, {}],
      ["POST", `/tournaments/${tour.id}/registrations/${reg.id}/tokens`, {}],
      ["GET", `/tournaments/${tour.id}/results`],
      ["GET", "/teams"],
    ];
    for (const [method, path, body] of routes) {
      const reference = await request(method, path, { key: unknownToken("tmk_"), body });
      expectUnauthorized(reference);
      for (const tok of [rt, st]) {
        const res = await request(method, path, { key: tok.token, body });
        expectUnauthorized(res);
        expect(res.body.error, `${method} ${path}`).toEqual(reference.body.error);
      }
    }
    const [after] = await registrations(call, tour.id);
    expect(after.id).toBe(reg.id);
    expect(after.checked_in_at).toBeNull();
    expect((await listTokens(call, tour.id)).body.data).toHaveLength(2);
  });

  it("an organiser key is 401 on every participant route, with the body of an unknown token", async () => {
    const { t, call } = await organiser();
    const tour = await newTournament(call);
    const [reg] = await registerTeams(call, tour.id, 1);
    const routes: [string, string, unknown?][] = [
      ["GET", ""],
      ["GET", "/matches"],
      ["POST", "/registrations", { team: teamBody() }],
      ["PUT", "/lineup", { players: [] }],
      ["PATCH", "/registration", { checked_in: true }],
      ["DELETE", "/registration"],
    ];
    for (const [method, path, body] of routes) {
      const reference = await as(unknownToken())(method, path, { body });
      expectUnauthorized(reference);
      const none = await request(method, `/participant${path}`, { body });
      expectUnauthorized(none);
      const res = await request(method, `/participant${path}`, { key: t.key, body });
      expectUnauthorized(res);
      expect(res.body.error, `${method} /participant${path}`).toEqual(reference.body.error);
      expect(none.body.error).toEqual(reference.body.error);
    }
    expect((await registrations(call, tour.id)).map((r) => r.id)).toEqual([reg.id]);
  });

  it("a missing scope is 403 insufficient_scope naming the scope: a registration token cannot sign up, a sign-up token cannot act for one", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const st = await mintSignup(call, tour.id);
    const { reg, tok } = await signedUp(call, tour.id, {}, st);
    const cases: [ApiResponse, string][] = [
      [await signUp(tok.token, { team: teamBody() }), "participant:register"],
      [await as(st.token)("PATCH", "/registration", { body: { checked_in: true } }), "participant:check_in"],
      [await as(st.token)("DELETE", "/registration"), "participant:withdraw"],
      [await as(st.token)("PUT", "/lineup", { body: { players: [] } }), "participant:lineup"],
    ];
    for (const [res, scope] of cases) {
      expectError(res, 403, "insufficient_scope");
      expect(res.body.error.message).toContain(scope);
    }
    const all = await registrations(call, tour.id);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: reg.id, checked_in_at: null });
  });

  it("a minted token with fewer scopes is refused the others (403); GET /participant needs none", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const [reg] = await registerTeams(call, tour.id, 1);
    const reportOnly = await mintFor(call, tour.id, reg.id, { scopes: ["participant:report"] });
    const p = as(reportOnly.token);
    expectStatus(await p("GET"), 200);
    const cases: [ApiResponse, string][] = [
      [await p("PATCH", "/registration", { body: { checked_in: true } }), "participant:check_in"],
      [await p("DELETE", "/registration"), "participant:withdraw"],
      [await p("PUT", "/lineup", { body: { players: [] } }), "participant:lineup"],
      [await signUp(reportOnly.token, { team: teamBody() }), "participant:register"],
    ];
    for (const [res, scope] of cases) {
      expectError(res, 403, "insufficient_scope");
      expect(res.body.error.message).toContain(scope);
    }
    const all = await registrations(call, tour.id);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: reg.id, checked_in_at: null });
  });
});

// =================================================================================================
describe("each token's own rate limit", () => {
  it("150 parallel requests with a fresh token: exactly 100 pass, with RateLimit-* headers; the organiser's key is not charged", async () => {
    const { t, call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id);
    const { tok: rt } = await signedUp(call, tour.id, {}, st);
    const { tok: sibling } = await signedUp(call, tour.id, {}, st);
    const watcher = await t.newKey();
    const me1 = await request("GET", "/me", { key: watcher.key });
    expectStatus(me1, 200);
    const orgBefore = Number(me1.headers.get("ratelimit-remaining"));
    const mintKeyBefore = await request("GET", "/me", { key: t.key });
    expectStatus(mintKeyBefore, 200);

    const all = await Promise.all(Array.from({ length: 150 }, () => as(rt.token)("GET")));
    const ok = all.filter((r) => r.status === 200);
    const limited = all.filter((r) => r.status === 429);
    expect(ok.length).toBe(100);
    expect(limited.length).toBe(50);
    expect(ok.map((r) => Number(r.headers.get("ratelimit-remaining"))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    for (const r of ok) {
      expect(r.headers.get("ratelimit-limit")).toBe("100");
      expect(r.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
      expect(r.headers.get("ratelimit") ?? "").toMatch(/^"default";r=\d+;t=\d+$/);
      expect(Number(r.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(0);
      expect(Number(r.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(60);
    }
    for (const r of limited) {
      expectError(r, 429, "rate_limited");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(r.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      expect(r.headers.get("ratelimit-remaining")).toBe("0");
    }
    // Another token of the same tournament and the organiser's keys have their own budgets.
    const sib = await as(sibling.token)("GET");
    expectStatus(sib, 200);
    expect(sib.headers.get("ratelimit-remaining")).toBe("99");
    const me2 = await request("GET", "/me", { key: watcher.key });
    expectStatus(me2, 200);
    expect(Number(me2.headers.get("ratelimit-remaining"))).toBe(orgBefore - 1);
    const mintKeyAfter = await request("GET", "/me", { key: t.key });
    expect(Number(mintKeyAfter.headers.get("ratelimit-remaining"))).toBe(Number(mintKeyBefore.headers.get("ratelimit-remaining")) - 1);
    // The limited token is still limited; the organiser is not.
    expectError(await as(rt.token)("GET"), 429, "rate_limited");
    expectStatus(await call("GET", `/tournaments/${tour.id}`), 200);
  });
});

// =================================================================================================
describe("GET /participant", () => {
  it("a registration token: its token, the tournament as the public view shows it (even private), the registration as the organiser reads it", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { entry_fee: 10 });
    expect(tour.visibility).toBe("private");
    const { reg, tok: rt } = await signedUp(call, tour.id);
    const me = await as(rt.token)("GET");
    expectStatus(me, 200);
    expect(me.body.success).toBe(true);
    expect(Object.keys(me.body.data).sort()).toEqual(["registration", "token", "tournament"]);
    expect(me.body.data.token).toEqual({ id: rt.id, name: rt.name, scopes: rt.scopes, expires_at: null });
    expect(me.text.includes(rt.token)).toBe(false);
    const orgReg = await call("GET", `/tournaments/${tour.id}/registrations/${reg.id}`);
    expectStatus(orgReg, 200);
    expect(me.body.data.registration).toEqual(orgReg.body.data);
    expect(me.body.data.registration).toMatchObject({ id: reg.id, state: "accepted", lineup: [], payment_status: "pending" });
    expect(me.body.data.tournament.id).toBe(tour.id);

    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { visibility: "public" } }), 200);
    const pub = await request("GET", `/public/tournaments/${tour.slug}`);
    expectStatus(pub, 200);
    const me2 = await as(rt.token)("GET");
    expectStatus(me2, 200);
    expect(me2.body.data.tournament).toEqual(pub.body.data.tournament);
  });

  it("a sign-up token: registration null, scopes [participant:register]", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id, { name: "open" });
    const me = await as(st.token)("GET");
    expectStatus(me, 200);
    expect(me.body.data.registration).toBeNull();
    expect(me.body.data.token).toEqual({ id: st.id, name: "open", scopes: ["participant:register"], expires_at: null });
    expect(me.body.data.tournament.id).toBe(tour.id);
  });
});

// =================================================================================================
describe("sign-up", () => {
  it("creates team, players and registration in the tournament's account; answers a registration token with default scopes, shown once", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1 });
    const st = await mintSignup(call, tour.id);
    const name = `Aurora ${uniq()}`;
    const h = uniq();
    const res = await signUp(st.token, {
      team: { name, tag: "AUR", logo_url: "https://example.com/aur.png" },
      lineup: [
        { handle: `frost-${h}`, country: "SE", external_id: `ext-frost-${h}`, role: "player", captain: true },
        { handle: `blaze-${h}`, role: "player" },
        { handle: `sub-${h}`, role: "substitute" },
      ],
    });
    expectStatus(res, 201);
    expect(res.headers.get("location"), "POST 201 carries Location (section 2)").toBeTruthy();
    expect(Object.keys(res.body.data).sort()).toEqual(["registration", "token"]);
    const { registration: reg, token: tok } = res.body.data;
    expect(reg).toMatchObject({ tournament_id: tour.id, state: "accepted", payment_status: "complete", seed: null, checked_in_at: null });
    expect(reg.teams).toMatchObject({ name, tag: "AUR", logo_url: "https://example.com/aur.png" });
    expect(reg.lineup.map((e: Json) => [e.handle, e.role, e.captain, e.country])).toEqual([
      [`frost-${h}`, "player", true, "SE"],
      [`blaze-${h}`, "player", false, null],
      [`sub-${h}`, "substitute", false, null],
    ]);
    expect(tok.token).toMatch(/^tpt_[0-9A-Za-z]{49,}$/);
    expect(checksumHolds(tok.token)).toBe(true);
    expect(sorted(tok.scopes)).toEqual(DEFAULT_SCOPES);
    expect(tok.registration_id).toBe(reg.id);

    // The organiser reads the same registration, owns the team and holds the players.
    const orgReg = await call("GET", `/tournaments/${tour.id}/registrations/${reg.id}`);
    expectStatus(orgReg, 200);
    expect(orgReg.body.data).toEqual(reg);
    const team = await call("GET", `/teams/${reg.team_id}`);
    expectStatus(team, 200);
    expect(team.body.data).toMatchObject({ name, tag: "AUR", owned: true });
    const players = await call("GET", `/players?search=${h}`);
    expectStatus(players, 200);
    expect(sorted(players.body.data.map((p: Json) => p.handle))).toEqual(sorted([`frost-${h}`, `blaze-${h}`, `sub-${h}`]));
    expect(players.body.data.find((p: Json) => p.handle === `frost-${h}`)).toMatchObject({ external_id: `ext-frost-${h}`, country: "SE" });

    // The new token acts for that registration; the list never shows it again.
    const me = await as(tok.token)("GET");
    expectStatus(me, 200);
    expect(me.body.data.registration).toEqual(reg);
    const listed = await listTokens(call, tour.id);
    expect(listed.text.includes(tok.token)).toBe(false);
    expect(listed.body.data.map((i: Json) => i.id)).toContain(tok.id);
    expect(listed.body.data.find((i: Json) => i.id === st.id).uses).toBe(1);
  });

  it("payment_status follows the entry fee", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { entry_fee: 12.5 });
    const st = await mintSignup(call, tour.id);
    const res = await signUp(st.token, { team: teamBody() });
    expectStatus(res, 201);
    expect(res.body.data.registration.payment_status).toBe("pending");
  });

  it("a player whose external_id exists in the account is that player, its handle updated", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const ext = `ext-${uniq()}`;
    const made = await call("POST", "/players", { body: { handle: "old-handle", external_id: ext, country: "DE" } });
    expectStatus(made, 201);
    const st = await mintSignup(call, tour.id);
    const res = await signUp(st.token, { team: teamBody(), lineup: [{ handle: "new-handle", external_id: ext, role: "player" }] });
    expectStatus(res, 201);
    expect(res.body.data.registration.lineup).toHaveLength(1);
    expect(res.body.data.registration.lineup[0]).toMatchObject({ player_id: made.body.data.id, handle: "new-handle" });
    const got = await call("GET", `/players/${made.body.data.id}`);
    expectStatus(got, 200);
    expect(got.body.data.handle).toBe("new-handle");
    const same = await call("GET", `/players?external_id=${ext}`);
    expect(same.body.data).toHaveLength(1);
  });

  it("one transaction: a sign-up refused by a lineup rule or by one player one team creates nothing and renames nobody", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { team_size: 2 });
    const st = await mintSignup(call, tour.id, { max_uses: 10 });
    const h = uniq();
    // Three starters for a team of two: 400 naming the lineup.
    const tooMany = await signUp(st.token, {
      team: { name: `Ghost ${h}`, tag: "GHO" },
      lineup: [1, 2, 3].map((i) => ({ handle: `ghost${i}-${h}`, role: "player" })),
    });
    expectError(tooMany, 400, "validation_error");
    expect(JSON.stringify(tooMany.body.error.details ?? [])).toContain("lineup");
    const twoCaptains = await signUp(st.token, {
      team: { name: `Ghost ${h}`, tag: "GHO" },
      lineup: [1, 2].map((i) => ({ handle: `ghost${i}-${h}`, role: "player", captain: true })),
    });
    expectError(twoCaptains, 400, "validation_error");
    // A player already in another registration's lineup of this tournament: 409, and no handle change.
    const ext = `taken-${h}`;
    const first = await signUp(st.token, { team: teamBody(), lineup: [{ handle: `orig-${h}`, external_id: ext, role: "player" }] });
    expectStatus(first, 201);
    const clash = await signUp(st.token, {
      team: { name: `Ghost ${h}`, tag: "GHO" },
      lineup: [{ handle: `ghost9-${h}`, role: "player" }, { handle: `renamed-${h}`, external_id: ext, role: "player" }],
    });
    expectError(clash, 409, "player_already_registered");

    const teams = await call("GET", `/teams?owned=true&search=${encodeURIComponent(`Ghost ${h}`)}`);
    expectStatus(teams, 200);
    expect(teams.body.pagination.total).toBe(0);
    const ghosts = await call("GET", `/players?search=ghost`);
    expect(ghosts.body.data.filter((p: Json) => p.handle.endsWith(h))).toEqual([]);
    const kept = await call("GET", `/players?external_id=${ext}`);
    expect(kept.body.data.map((p: Json) => p.handle)).toEqual([`orig-${h}`]);
    expect(await registrations(call, tour.id)).toHaveLength(1);
    const listed: Json[] = (await listTokens(call, tour.id)).body.data;
    expect(listed.find((i) => i.id === st.id).uses).toBe(1);
  });

  it("validates the body: team required and strict, lineup entries' roles", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id);
    expectError(await signUp(st.token, {}), 400, "validation_error", ["team"]);
    expectError(await signUp(st.token, { team: teamBody(), extra: 1 }), 400, "validation_error");
    const noTag = await signUp(st.token, { team: { name: "No tag" } });
    expectError(noTag, 400, "validation_error");
    expect(JSON.stringify(noTag.body.error.details)).toContain("tag");
    const badRole = await signUp(st.token, { team: teamBody(), lineup: [{ handle: "x", role: "captain" }] });
    expectError(badRole, 400, "validation_error");
    expect(JSON.stringify(badRole.body.error.details)).toContain("lineup");
    expectError(
      await request("POST", "/participant/registrations", { key: st.token, rawBody: "{", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
    expect(await registrations(call, tour.id)).toEqual([]);
  });

  it("section 4's rules: closed tournament 409 registration_closed; full without waitlist 409 tournament_full", async () => {
    const { call } = await organiser();
    const full = await newTournament(call, { max_teams: 2 });
    await registerTeams(call, full.id, 2);
    const st = await mintSignup(call, full.id);
    expectError(await signUp(st.token, { team: teamBody() }), 409, "tournament_full");
    const closed = await newTournament(call, { max_teams: 4 });
    await registerTeams(call, closed.id, 2);
    const st2 = await mintSignup(call, closed.id);
    expectStatus(await call("PATCH", `/tournaments/${closed.id}`, { body: { status: "ongoing" } }), 200);
    expectError(await signUp(st2.token, { team: teamBody() }), 409, "registration_closed");
    expect(await registrations(call, full.id)).toHaveLength(2);
    expect(await registrations(call, closed.id)).toHaveLength(2);
    // Neither refusal used the token.
    const listed: Json[] = (await listTokens(call, full.id)).body.data;
    expect(listed.find((i) => i.id === st.id).uses).toBe(0);
  });

  it("max_uses: past it, 409 token_exhausted; a refused sign-up does not count", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id, { max_uses: 2 });
    expectError(await signUp(st.token, {}), 400, "validation_error");
    expectStatus(await signUp(st.token, { team: teamBody() }), 201);
    expectStatus(await signUp(st.token, { team: teamBody() }), 201);
    expectError(await signUp(st.token, { team: teamBody() }), 409, "token_exhausted");
    expect(await registrations(call, tour.id)).toHaveLength(2);
    const listed: Json[] = (await listTokens(call, tour.id)).body.data;
    expect(listed.find((i) => i.id === st.id)).toMatchObject({ uses: 2, max_uses: 2 });
    // The exhausted token still identifies itself.
    expectStatus(await as(st.token)("GET"), 200);
  });

  it("max_uses holds under concurrency: 8 parallel sign-ups on a token of 3 uses give exactly three 201", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 16 });
    const st = await mintSignup(call, tour.id, { max_uses: 3 });
    const all = await Promise.all(Array.from({ length: 8 }, () => signUp(st.token, { team: teamBody() })));
    expect(all.filter((r) => r.status >= 500)).toEqual([]);
    expect(all.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of all.filter((r) => r.status !== 201)) expectError(r, 409, "token_exhausted");
    expect(await registrations(call, tour.id)).toHaveLength(3);
  });

  it("Idempotency-Key: replay gives the first response, another body 422, scoped to the token", async () => {
    const { t, call } = await organiser();
    await call("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"] } });
    const tour = await newTournament(call);
    const st = await mintSignup(call, tour.id);
    const st2 = await mintSignup(call, tour.id);
    const body = { team: teamBody(`Replay ${uniq()}`), lineup: [{ handle: `r-${uniq()}`, role: "player" }] };
    const headers = { "idempotency-key": `signup-${uniq()}` };
    const first = await signUp(st.token, body, headers);
    expectStatus(first, 201);
    const eventsAfterFirst = (await events(t.accountId)).length;
    const again = await signUp(st.token, body, headers);
    expect(again.status).toBe(201);
    // Section 7 replays the first response; section 17 keeps only a token's SHA-256, so the first
    // token's secret cannot be shown again: the replay is the same registration with a fresh
    // registration token (docs/api.md, "Participants"), and both tokens work.
    expect(again.body.data.registration).toEqual(first.body.data.registration);
    expect(again.body.data.token.token).not.toBe(first.body.data.token.token);
    expect((await as(again.body.data.token.token)("GET", "")).status).toBe(200);
    expect((await as(first.body.data.token.token)("GET", "")).status).toBe(200);
    expect((await events(t.accountId)).length).toBe(eventsAfterFirst);
    expectError(await signUp(st.token, { ...body, team: teamBody("Other") }, headers), 422, "idempotency_mismatch");
    expect(await registrations(call, tour.id)).toHaveLength(1);
    expect(((await listTokens(call, tour.id)).body.data as Json[]).find((i) => i.id === st.id).uses).toBe(1);
    // The same Idempotency-Key from another token is another request.
    const other = await signUp(st2.token, body, headers);
    expectStatus(other, 201);
    expect(other.body.data.registration.id).not.toBe(first.body.data.registration.id);
    expect(await registrations(call, tour.id)).toHaveLength(2);
  });
});

// =================================================================================================
describe("participant routes: lineup, check-in, withdrawal, matches", () => {
  it("PUT /participant/lineup: by player_id from the lineup or roster, by handle/external_id; section 16's caps; locked after the start", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1, max_teams: 4 });
    const h = uniq();
    const { reg, tok } = await signedUp(call, tour.id, { lineup: [{ handle: `first-${h}`, role: "player" }] });
    const [first] = reg.lineup;
    // The organiser puts a player of its own on the signed-up team's roster.
    const rostered = (await call("POST", "/players", { body: { handle: `roster-${h}` } })).body.data;
    const stranger = (await call("POST", "/players", { body: { handle: `stranger-${h}` } })).body.data;
    expectStatus(await call("PUT", `/teams/${reg.team_id}/players/${rostered.id}`, { body: { role: "player" } }), 200);
    const p = as(tok.token);
    const ext = `lineup-${h}`;
    const put = await p("PUT", "/lineup", {
      body: {
        players: [
          { player_id: rostered.id, role: "player", captain: true },
          { handle: "newcomer", country: "FR", external_id: ext, role: "player" },
          { player_id: first.player_id, role: "substitute" },
        ],
      },
    });
    expectStatus(put, 200);
    expect(put.body.data.id).toBe(reg.id);
    expect(put.body.data.lineup.map((e: Json) => [e.handle, e.role, e.captain, e.country])).toEqual([
      [`roster-${h}`, "player", true, null],
      ["newcomer", "player", false, "FR"],
      [`first-${h}`, "substitute", false, null],
    ]);
    expect(put.body.data.lineup[0].player_id).toBe(rostered.id);
    expect(put.body.data.lineup[2].player_id).toBe(first.player_id);
    const org = await call("GET", `/tournaments/${tour.id}/registrations/${reg.id}`);
    expect(org.body.data.lineup).toEqual(put.body.data.lineup);
    const newcomer = await call("GET", `/players?external_id=${ext}`);
    expect(newcomer.body.data).toHaveLength(1);
    expect(newcomer.body.data[0].id).toBe(put.body.data.lineup[1].player_id);
    // The same external_id again is the same player.
    const again = await p("PUT", "/lineup", { body: { players: [{ handle: "newcomer", external_id: ext, role: "player" }] } });
    expectStatus(again, 200);
    expect(again.body.data.lineup.map((e: Json) => e.player_id)).toEqual([newcomer.body.data[0].id]);
    // Section 16's caps: three starters for a team of two.
    const tooMany = await p("PUT", "/lineup", {
      body: { players: [1, 2, 3].map((i) => ({ handle: `x${i}-${h}`, role: "player" })) },
    });
    expectError(tooMany, 400, "validation_error");
    // A player of the account that is in neither the lineup nor the roster cannot be pulled in by id.
    const pulled = await p("PUT", "/lineup", { body: { players: [{ player_id: stranger.id, role: "player" }] } });
    expect(pulled.status, pulled.text).toBeGreaterThanOrEqual(400);
    expect(pulled.status, pulled.text).toBeLessThan(500);
    const kept = await call("GET", `/tournaments/${tour.id}/registrations/${reg.id}`);
    expect(kept.body.data.lineup.map((e: Json) => e.player_id)).toEqual([newcomer.body.data[0].id]);
    expect((await call("GET", `/players?search=x1-${h}`)).body.data).toEqual([]);
    // Locked once the tournament starts.
    await registerTeams(call, tour.id, 1);
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    expectError(await p("PUT", "/lineup", { body: { players: [{ handle: "late", role: "player" }] } }), 409, "tournament_locked");
  });

  it("PATCH /participant/registration checks in and out under section 9's window", async () => {
    const { call } = await organiser();
    const open = await newTournament(call, { check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const later = await newTournament(call, { check_in_opens: inDays(10) });
    const { reg: rOpen, tok: tOpen } = await signedUp(call, open.id);
    const { reg: rLater, tok: tLater } = await signedUp(call, later.id);
    const pOpen = as(tOpen.token);
    expectError(await as(tLater.token)("PATCH", "/registration", { body: { checked_in: true } }), 409, "check_in_closed");
    const t0 = Date.now();
    const inRes = await pOpen("PATCH", "/registration", { body: { checked_in: true } });
    expectStatus(inRes, 200);
    expect(inRes.body.data.id).toBe(rOpen.id);
    expect(inRes.body.data.checked_in_at).toMatch(ISO_Z);
    expect(Math.abs(Date.parse(inRes.body.data.checked_in_at) - t0)).toBeLessThan(60_000);
    const org = await call("GET", `/tournaments/${open.id}/registrations/${rOpen.id}`);
    expect(org.body.data.checked_in_at).toBe(inRes.body.data.checked_in_at);
    const outRes = await pOpen("PATCH", "/registration", { body: { checked_in: false } });
    expectStatus(outRes, 200);
    expect(outRes.body.data.checked_in_at).toBeNull();
    expectError(await pOpen("PATCH", "/registration", { body: {} }), 400, "validation_error");
    expectError(await pOpen("PATCH", "/registration", { body: { checked_in: "yes" } }), 400, "validation_error", ["checked_in"]);
    expectError(await pOpen("PATCH", "/registration", { body: { seed: 1 } }), 400, "validation_error");
    expect((await call("GET", `/tournaments/${later.id}/registrations/${rLater.id}`)).body.data.checked_in_at).toBeNull();
  });

  it("with lineups required, a participant's check-in with a short lineup is 409 lineup_incomplete", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, {
      team_size: 2,
      lineups: "required",
      check_in_opens: new Date(Date.now() - 60_000).toISOString(),
    });
    const { reg, tok } = await signedUp(call, tour.id, { lineup: [{ handle: `one-${uniq()}`, role: "player" }] });
    const p = as(tok.token);
    expectError(await p("PATCH", "/registration", { body: { checked_in: true } }), 409, "lineup_incomplete");
    expect((await call("GET", `/tournaments/${tour.id}/registrations/${reg.id}`)).body.data.checked_in_at).toBeNull();
    const full = await p("PUT", "/lineup", {
      body: { players: [{ player_id: reg.lineup[0].player_id, role: "player" }, { handle: `two-${uniq()}`, role: "player" }] },
    });
    expectStatus(full, 200);
    const checkedIn = await p("PATCH", "/registration", { body: { checked_in: true } });
    expectStatus(checkedIn, 200);
    expect(checkedIn.body.data.checked_in_at).toMatch(ISO_Z);
  });

  it("DELETE /participant/registration withdraws; its token stops working; 409 once started", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4 });
    const st = await mintSignup(call, tour.id);
    const { tok: a } = await signedUp(call, tour.id, {}, st);
    const { reg: r2, tok: c } = await signedUp(call, tour.id, {}, st);
    const { reg: r3 } = await signedUp(call, tour.id, {}, st);
    const res = await as(a.token)("DELETE", "/registration");
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ message: "Registration withdrawn" });
    expect((await registrations(call, tour.id)).map((r) => r.id)).toEqual([r2.id, r3.id]);
    expectUnauthorized(await as(a.token)("GET"));
    expectUnauthorized(await as(a.token)("DELETE", "/registration"));
    expectStatus(await as(st.token)("GET"), 200);
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    expectError(await as(c.token)("DELETE", "/registration"), 409, "registration_closed");
    expect((await registrations(call, tour.id)).map((r) => r.id)).toEqual([r2.id, r3.id]);
  });

  it("withdrawal takes every token of the registration, minted ones included", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4 });
    const { reg, tok } = await signedUp(call, tour.id);
    const extra = await mintFor(call, tour.id, reg.id, { scopes: ["participant:check_in"] });
    expectStatus(await as(extra.token)("GET"), 200);
    expectStatus(await as(tok.token)("DELETE", "/registration"), 200);
    expectUnauthorized(await as(extra.token)("GET"));
  });

  it("GET /participant/matches: [] before the start, then the registration's matches as the results show them", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4 });
    const st = await mintSignup(call, tour.id);
    const signed = [];
    for (let i = 0; i < 4; i++) signed.push(await signedUp(call, tour.id, {}, st));
    const { reg, tok } = signed[2];
    const before = await as(tok.token)("GET", "/matches");
    expectStatus(before, 200);
    expect(before.body.data).toEqual([]);
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    const results = await call("GET", `/tournaments/${tour.id}/results`);
    const mine = (results.body.data.matches as Json[]).filter((m) => m.team1_id === reg.team_id || m.team2_id === reg.team_id);
    expect(mine.length).toBeGreaterThan(0);
    const res = await as(tok.token)("GET", "/matches");
    expectStatus(res, 200);
    expect(res.body.data.map((m: Json) => m.id)).toEqual(mine.map((m) => m.id));
    for (const [i, m] of mine.entries()) expect(res.body.data[i]).toMatchObject(m);
  });
});

// =================================================================================================
describe("registration states", () => {
  it("approval and waitlist: false by default, changeable in registration, locked after", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4 });
    expect(tour).toMatchObject({ approval: false, waitlist: false });
    const patched = await call("PATCH", `/tournaments/${tour.id}`, { body: { approval: true, waitlist: true } });
    expectStatus(patched, 200);
    expect(patched.body.data).toMatchObject({ approval: true, waitlist: true });
    expectError(await call("PATCH", `/tournaments/${tour.id}`, { body: { approval: "yes" } }), 400, "validation_error", ["approval"]);
    const made = await newTournament(call, { approval: true, waitlist: true });
    expect(made).toMatchObject({ approval: true, waitlist: true });
    await registerTeams(call, tour.id, 2);
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    expectError(await call("PATCH", `/tournaments/${tour.id}`, { body: { waitlist: false } }), 409, "tournament_locked");
  });

  it("with approval a sign-up is pending, the organiser's own is accepted; accept needs a slot, refusing frees one", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 2, approval: true });
    const st = await mintSignup(call, tour.id);
    const s1 = await signUp(st.token, { team: teamBody() });
    expectStatus(s1, 201);
    expect(s1.body.data.registration.state).toBe("pending");
    const pending = s1.body.data.registration;
    const [a, b] = await registerTeams(call, tour.id, 2);
    expect([a.state, b.state]).toEqual(["accepted", "accepted"]);
    expectError(await patchReg(call, tour.id, pending.id, { state: "accepted" }), 409, "tournament_full");
    const refused = await patchReg(call, tour.id, a.id, { state: "refused" });
    expectStatus(refused, 200);
    expect(refused.body.data.state).toBe("refused");
    const accepted = await patchReg(call, tour.id, pending.id, { state: "accepted" });
    expectStatus(accepted, 200);
    expect(accepted.body.data.state).toBe("accepted");
    expect(await stateOf(call, tour.id)).toEqual({ [pending.id]: "accepted", [a.id]: "refused", [b.id]: "accepted" });
    expectError(await patchReg(call, tour.id, b.id, { state: "waitlisted" }), 400, "validation_error", ["state"]);
    expectError(await patchReg(call, tour.id, b.id, { state: "pending" }), 400, "validation_error", ["state"]);
  });

  it("full with waitlist on: a new registration is waitlisted (organiser's or sign-up's); without it, 409 tournament_full", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 2, waitlist: true });
    const [a, b, c] = await registerTeams(call, tour.id, 3);
    expect([a.state, b.state, c.state]).toEqual(["accepted", "accepted", "waitlisted"]);
    const st = await mintSignup(call, tour.id);
    const s = await signUp(st.token, { team: teamBody() });
    expectStatus(s, 201);
    expect(s.body.data.registration.state).toBe("waitlisted");
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { waitlist: false } }), 200);
    const [team] = await createTeams(1, `Late-${uniq()}`);
    expectError(await call("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: team } }), 409, "tournament_full");
    expectError(await signUp(st.token, { team: teamBody() }), 409, "tournament_full");
  });

  it("?state= filters the list; ?status= still filters by payment; a bad state is 400", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 2, waitlist: true, approval: true, entry_fee: 5 });
    const st = await mintSignup(call, tour.id);
    const p = (await signUp(st.token, { team: teamBody() })).body.data.registration;
    const [a, b, c, d] = await registerTeams(call, tour.id, 4);
    expectStatus(await patchReg(call, tour.id, a.id, { payment_status: "complete" }), 200);
    const ids = async (q: string) => (await registrations(call, tour.id, q)).map((r) => r.id);
    expect(await ids("?state=accepted")).toEqual([a.id, b.id]);
    expect(await ids("?state=waitlisted")).toEqual([c.id, d.id]);
    expect(await ids("?state=pending")).toEqual([p.id]);
    expect(await ids("?state=refused")).toEqual([]);
    expect(await ids("?status=complete")).toEqual([a.id]);
    expect(await ids("?state=accepted&status=pending")).toEqual([b.id]);
    expectError(await call("GET", `/tournaments/${tour.id}/registrations?state=maybe`), 400, "validation_error", ["state"]);
  });

  it("the oldest waitlisted is promoted when a slot frees: withdrawal, refusal, deletion, max_teams raised", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 2, waitlist: true });
    const teams: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call("POST", "/teams", { body: { name: `Wait ${i} ${uniq()}`, tag: `W${i}` } });
      expectStatus(res, 201);
      teams.push(res.body.data.id);
    }
    const regs: Json[] = [];
    for (const team of teams.slice(0, 5)) regs.push(await register(call, tour.id, team));
    const [a, b, c, d, e] = regs;
    expect(regs.map((r) => r.state)).toEqual(["accepted", "accepted", "waitlisted", "waitlisted", "waitlisted"]);

    expectStatus(await call("DELETE", `/tournaments/${tour.id}/registrations/${a.id}`), 200); // withdrawal
    expect(await stateOf(call, tour.id)).toEqual({ [b.id]: "accepted", [c.id]: "accepted", [d.id]: "waitlisted", [e.id]: "waitlisted" });

    expectStatus(await patchReg(call, tour.id, b.id, { state: "refused" }), 200); // refusal
    expect(await stateOf(call, tour.id)).toEqual({ [b.id]: "refused", [c.id]: "accepted", [d.id]: "accepted", [e.id]: "waitlisted" });

    expectStatus(await call("DELETE", `/teams/${teams[2]}`), 200); // deletion: C's team, and its open registration with it
    expect(await stateOf(call, tour.id)).toEqual({ [b.id]: "refused", [d.id]: "accepted", [e.id]: "accepted" });

    const [f, g, h] = [
      await register(call, tour.id, teams[5]),
      await register(call, tour.id, teams[6]),
      await register(call, tour.id, teams[7]),
    ];
    expect([f.state, g.state, h.state]).toEqual(["waitlisted", "waitlisted", "waitlisted"]);
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 4 } }), 200); // max_teams raised by two
    expect(await stateOf(call, tour.id)).toEqual({
      [b.id]: "refused",
      [d.id]: "accepted",
      [e.id]: "accepted",
      [f.id]: "accepted",
      [g.id]: "accepted",
      [h.id]: "waitlisted",
    });
  });

  it("a participant's withdrawal promotes the oldest waitlisted too", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 2, waitlist: true });
    const st = await mintSignup(call, tour.id);
    const [a, b, c, d] = [
      await signedUp(call, tour.id, {}, st),
      await signedUp(call, tour.id, {}, st),
      await signedUp(call, tour.id, {}, st),
      await signedUp(call, tour.id, {}, st),
    ];
    expect([a, b, c, d].map((x) => x.reg.state)).toEqual(["accepted", "accepted", "waitlisted", "waitlisted"]);
    expectStatus(await as(b.tok.token)("DELETE", "/registration"), 200);
    expect(await stateOf(call, tour.id)).toEqual({ [a.reg.id]: "accepted", [c.reg.id]: "accepted", [d.reg.id]: "waitlisted" });
    const me = await as(c.tok.token)("GET");
    expect(me.body.data.registration.state).toBe("accepted");
  });

  it("only accepted registrations count toward max_teams", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4, approval: true });
    const st = await mintSignup(call, tour.id);
    for (let i = 0; i < 3; i++) expectStatus(await signUp(st.token, { team: teamBody() }), 201);
    const [a, b] = await registerTeams(call, tour.id, 2);
    // Five registrations, two accepted: max_teams may go down to 2, not below the accepted ones.
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 2 } }), 200);
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 3 } }), 200);
    const [c] = await registerTeams(call, tour.id, 1);
    expect(c.state).toBe("accepted");
    expectError(await call("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 2 } }), 409, "tournament_full");
    expect((await registrations(call, tour.id, "?state=accepted")).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
  });

  it("only accepted registrations take part at the start; fewer than two accepted cannot start", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 3, approval: true, waitlist: true });
    const st = await mintSignup(call, tour.id);
    const pending = (await signUp(st.token, { team: teamBody() })).body.data.registration;
    const refused = (await signUp(st.token, { team: teamBody() })).body.data.registration;
    expectStatus(await patchReg(call, tour.id, refused.id, { state: "refused" }), 200);
    const [a] = await registerTeams(call, tour.id, 1);
    expectError(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 409, "invalid_status_transition");
    const [b, c, w] = await registerTeams(call, tour.id, 3);
    expect(w.state).toBe("waitlisted");
    expect(pending.state).toBe("pending");
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    const results = await call("GET", `/tournaments/${tour.id}/results`);
    const playing = new Set<string>();
    for (const m of results.body.data.matches as Json[]) for (const id of [m.team1_id, m.team2_id]) if (id) playing.add(id);
    expect(sorted([...playing])).toEqual(sorted([a.team_id, b.team_id, c.team_id]));
  });
});

// =================================================================================================
describe("disqualification (its 409s and disqualified_at)", () => {
  it("on an ongoing tournament: sets disqualified_at; not reversible ({disqualified: false} is 409 invalid_status_transition)", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4 });
    const regs = await registerTeams(call, tour.id, 4);
    for (const r of regs) expect(r.disqualified_at).toBeNull();
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    const t0 = Date.now();
    const res = await patchReg(call, tour.id, regs[3].id, { disqualified: true });
    expectStatus(res, 200);
    expect(res.body.data.disqualified_at).toMatch(ISO_Z);
    expect(Math.abs(Date.parse(res.body.data.disqualified_at) - t0)).toBeLessThan(60_000);
    const got = await call("GET", `/tournaments/${tour.id}/registrations/${regs[3].id}`);
    expect(got.body.data.disqualified_at).toBe(res.body.data.disqualified_at);
    expectError(await patchReg(call, tour.id, regs[3].id, { disqualified: false }), 409, "invalid_status_transition");
    // Disqualifying again changes nothing (a no-op or a 409, never a new instant).
    const again = await patchReg(call, tour.id, regs[3].id, { disqualified: true });
    expect([200, 409], again.text).toContain(again.status);
    expect((await call("GET", `/tournaments/${tour.id}/registrations/${regs[3].id}`)).body.data.disqualified_at).toBe(
      res.body.data.disqualified_at,
    );
  });

  it("disqualification is refused (409) while the tournament is still in registration", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4 });
    const [reg] = await registerTeams(call, tour.id, 1);
    const res = await patchReg(call, tour.id, reg.id, { disqualified: true });
    expect(res.status, res.text).toBe(409);
    expect((await call("GET", `/tournaments/${tour.id}/registrations/${reg.id}`)).body.data.disqualified_at).toBeNull();
  });
});

// =================================================================================================
describe("webhooks: every event carries actor", () => {
  it("key or participant token as actor, at the top level beside type and data", async () => {
    const { t } = await organiser();
    const call: Call = (m, p, o) => t.request(m, p, o); // one key throughout: the actor's id is t.keyId
    expectStatus(await call("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"] } }), 201);
    const tour = await newTournament(call, { max_teams: 2, waitlist: true, check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const st = await mintSignup(call, tour.id);
    const { reg: a, tok: ta } = await signedUp(call, tour.id, {}, st);
    const { reg: b, tok: tb } = await signedUp(call, tour.id, {}, st);
    const [w] = await registerTeams(call, tour.id, 1);
    expect(w.state).toBe("waitlisted");
    expectStatus(await as(tb.token)("PATCH", "/registration", { body: { checked_in: true } }), 200);
    expectStatus(await as(tb.token)("PUT", "/lineup", { body: { players: [{ handle: `w-${uniq()}`, role: "player" }] } }), 200);
    expectStatus(await patchReg(call, tour.id, w.id, { payment_status: "refunded" }), 200);
    expectStatus(await as(ta.token)("DELETE", "/registration"), 200); // promotes w
    expectStatus(await patchReg(call, tour.id, b.id, { state: "refused" }), 200);

    const evs = await events(t.accountId);
    for (const e of evs) {
      expect(Object.keys(e), JSON.stringify(e)).toEqual(expect.arrayContaining(["type", "timestamp", "data", "actor"]));
      expect(e.data).not.toHaveProperty("actor");
    }
    const key = { type: "key", id: t.keyId };
    const tokenActor = (id: string) => ({ type: "participant", id });
    const seen = evs.map((e) => JSON.stringify([e.type, e.data?.id, e.actor])).sort();
    expect(seen).toEqual(
      ([
        ["tournament.created", tour.id, key],
        ["registration.created", a.id, tokenActor(st.id)],
        ["registration.created", b.id, tokenActor(st.id)],
        ["registration.created", w.id, key],
        ["registration.updated", b.id, tokenActor(tb.id)], // check-in
        ["registration.updated", b.id, tokenActor(tb.id)], // lineup
        ["registration.updated", w.id, key], // payment
        ["registration.withdrawn", a.id, tokenActor(ta.id)],
        ["registration.updated", w.id, tokenActor(ta.id)], // promoted by that withdrawal
        ["registration.updated", b.id, key], // refused
      ] as unknown[]).map((x) => JSON.stringify(x)).sort(),
    );
    const promoted = evs.find((e) => e.type === "registration.updated" && e.data.id === w.id && e.actor.type === "participant");
    expect(promoted.data.state).toBe("accepted");
    const refusedEv = evs.find((e) => e.type === "registration.updated" && e.data.state === "refused");
    expect(refusedEv?.data.id).toBe(b.id);
    expect(refusedEv?.actor).toEqual(key);
    const checkIn = evs.find((e) => e.type === "registration.updated" && e.data.id === b.id && e.data.checked_in_at !== null);
    expect(checkIn?.actor).toEqual(tokenActor(tb.id));
  });
});

// =================================================================================================
describe("races", () => {
  it("10 parallel sign-ups for the last 3 slots with waitlist on: exactly 3 accepted, the rest waitlisted in registration order", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 5, waitlist: true });
    const [first] = await registerTeams(call, tour.id, 2);
    const st = await mintSignup(call, tour.id);
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => signUp(st.token, { team: teamBody(`Race ${i} ${uniq()}`) })));
    for (const r of all) expectStatus(r, 201);
    const states = all.map((r) => r.body.data.registration.state);
    expect(states.filter((s) => s === "accepted")).toHaveLength(3);
    expect(states.filter((s) => s === "waitlisted")).toHaveLength(7);
    const list = await registrations(call, tour.id);
    expect(list).toHaveLength(12);
    // In registration order the accepted come first, then the waitlisted.
    expect(list.map((r) => r.state)).toEqual([...Array(5).fill("accepted"), ...Array(7).fill("waitlisted")]);
    const firstWaiting = list[5];
    expectStatus(await call("DELETE", `/tournaments/${tour.id}/registrations/${first.id}`), 200);
    const after = await stateOf(call, tour.id);
    expect(after[firstWaiting.id]).toBe("accepted");
    expect(Object.values(after).filter((s) => s === "accepted")).toHaveLength(5);
  });

  it("8 parallel sign-ups for the last 2 slots without waitlist: exactly two 201, the rest 409 tournament_full", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 4 });
    await registerTeams(call, tour.id, 2);
    const st = await mintSignup(call, tour.id);
    const all = await Promise.all(Array.from({ length: 8 }, () => signUp(st.token, { team: teamBody() })));
    expect(all.filter((r) => r.status === 201)).toHaveLength(2);
    for (const r of all.filter((r) => r.status !== 201)) expectError(r, 409, "tournament_full");
    expect(await registrations(call, tour.id)).toHaveLength(4);
  });

  it("tokens withdrawing and checking in at once: no 5xx, every registration gone, its token dead", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 8, check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const st = await mintSignup(call, tour.id);
    const toks: Json[] = [];
    for (let i = 0; i < 6; i++) toks.push((await signedUp(call, tour.id, {}, st)).tok);
    const outcomes = await Promise.all(
      toks.flatMap((
        tok,
      ) => [as(tok.token)("DELETE", "/registration"), as(tok.token)("PATCH", "/registration", { body: { checked_in: true } })]),
    );
    expect(outcomes.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    for (let i = 0; i < outcomes.length; i += 2) {
      expectStatus(outcomes[i], 200);
      expect([200, 401, 404]).toContain(outcomes[i + 1].status);
    }
    expect(await registrations(call, tour.id)).toEqual([]);
    for (const tok of toks) expectUnauthorized(await as(tok.token)("GET"));
  });

  it("two tokens of one registration, one withdrawing and one checking in at once: no 5xx, the registration gone, both dead", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 8, check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const st = await mintSignup(call, tour.id);
    const pairs: Json[][] = [];
    for (let i = 0; i < 4; i++) {
      const { reg, tok } = await signedUp(call, tour.id, {}, st);
      pairs.push([tok, await mintFor(call, tour.id, reg.id, { scopes: ["participant:check_in"] })]);
    }
    const outcomes = await Promise.all(
      pairs.flatMap((
        [w, c],
      ) => [as(w.token)("DELETE", "/registration"), as(c.token)("PATCH", "/registration", { body: { checked_in: true } })]),
    );
    expect(outcomes.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    for (let i = 0; i < outcomes.length; i += 2) expectStatus(outcomes[i], 200);
    expect(await registrations(call, tour.id)).toEqual([]);
    for (const [w, c] of pairs) {
      expectUnauthorized(await as(w.token)("GET"));
      expectUnauthorized(await as(c.token)("GET"));
    }
  });

  it("participant withdrawals, an organiser refusal and a max_teams raise at once: the oldest waitlisted take exactly the free slots", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 3, waitlist: true });
    const st = await mintSignup(call, tour.id);
    const signed = [];
    for (let i = 0; i < 9; i++) signed.push(await signedUp(call, tour.id, {}, st));
    const [a, b, c, ...waiting] = signed;
    expect(signed.map((x) => x.reg.state)).toEqual([...Array(3).fill("accepted"), ...Array(6).fill("waitlisted")]);
    const outcomes = await Promise.all([
      as(a.tok.token)("DELETE", "/registration"),
      as(b.tok.token)("DELETE", "/registration"),
      patchReg(call, tour.id, c.reg.id, { state: "refused" }),
      call("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 5 } }),
    ]);
    for (const r of outcomes) expectStatus(r, 200);
    // Five slots, none held by a, b or c: the five oldest waitlisted take them, the sixth waits.
    expect(await stateOf(call, tour.id)).toEqual({
      [c.reg.id]: "refused",
      ...Object.fromEntries(waiting.map((w, i) => [w.reg.id, i < 5 ? "accepted" : "waitlisted"])),
    });
  });

  it("withdrawals, check-ins and a max_teams raise at once: the oldest waitlisted take exactly the free slots", async () => {
    const { call } = await organiser();
    const tour = await newTournament(call, { max_teams: 2, waitlist: true, check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const st = await mintSignup(call, tour.id);
    const signed = [];
    for (let i = 0; i < 6; i++) signed.push(await signedUp(call, tour.id, {}, st));
    const [a, b, w1, w2, w3, w4] = signed;
    expect(signed.map((x) => x.reg.state)).toEqual(["accepted", "accepted", "waitlisted", "waitlisted", "waitlisted", "waitlisted"]);
    const outcomes = await Promise.all([
      as(a.tok.token)("DELETE", "/registration"),
      as(a.tok.token)("PATCH", "/registration", { body: { checked_in: true } }),
      as(b.tok.token)("DELETE", "/registration"),
      as(b.tok.token)("PATCH", "/registration", { body: { checked_in: true } }),
      call("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 3 } }),
    ]);
    expect(outcomes.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    expectStatus(outcomes[0], 200);
    expectStatus(outcomes[2], 200);
    expectStatus(outcomes[4], 200);
    expect(await stateOf(call, tour.id)).toEqual({
      [w1.reg.id]: "accepted",
      [w2.reg.id]: "accepted",
      [w3.reg.id]: "accepted",
      [w4.reg.id]: "waitlisted",
    });
  });
});

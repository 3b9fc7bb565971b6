// Contract section 16 (players, rosters and lineups), written from the contract alone by a second
// author: player CRUD and validation, privacy across accounts, rosters and captains, the tournament
// fields substitutes_max and lineups, lineup caps, one player one team per tournament, rosters
// copied into lineups, required lineups at check-in and start, the registration's `lineup` in the
// keyed and public views, games' lineups, team names frozen at the start, player deletion, and the
// registration.updated webhook. Real function, real database, no mocks.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  type ApiResponse,
  apiUrl,
  type Call,
  caller,
  createTeams,
  expectError,
  expectStatus,
  request,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const PLAYER_FIELDS = ["country", "created_at", "external_id", "game_accounts", "handle", "id", "name", "updated_at"];
const LINEUP_ENTRY_FIELDS = ["captain", "country", "handle", "player_id", "role"];
const PROVIDERS = ["steam", "riot", "epic", "battlenet", "psn", "xbox", "nintendo", "discord", "ea", "ubisoft", "faceit", "other"];

type Role = "player" | "substitute" | "coach";
interface Entry {
  player_id: string;
  role: Role;
  captain?: boolean;
}

const uniq = () => randomBytes(5).toString("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tenant and a caller on it that renews its key before the rate limit bites. */
async function account() {
  const t = await tenant();
  return { t, call: caller(t) };
}

// deno-lint-ignore no-explicit-any
async function newPlayer(call: Call, body: Record<string, unknown> = {}): Promise<any> {
  const res = await call("POST", "/players", { body: { handle: `p-${uniq()}`, ...body } });
  expectStatus(res, 201);
  return res.body.data;
}

async function newPlayers(call: Call, n: number, prefix = "pl"): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await newPlayer(call, { handle: `${prefix}${i}-${uniq()}` })).id);
  return ids;
}

async function ownTeam(call: Call, name = `Team ${uniq()}`, tag = "TAG"): Promise<string> {
  const res = await call("POST", "/teams", { body: { name, tag } });
  expectStatus(res, 201);
  return res.body.data.id;
}

// deno-lint-ignore no-explicit-any
async function newTournament(call: Call, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await call("POST", "/tournaments", { body: tournamentBody({ team_size: 2, max_teams: 8, ...fields }) });
  expectStatus(res, 201);
  return res.body.data;
}

// deno-lint-ignore no-explicit-any
async function register(call: Call, tid: string, teamId: string): Promise<any> {
  const res = await call("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teamId } });
  expectStatus(res, 201);
  return res.body.data;
}

function putLineup(call: Call, tid: string, rid: string, players: unknown): Promise<ApiResponse> {
  return call("PUT", `/tournaments/${tid}/registrations/${rid}/lineup`, { body: { players } });
}

async function setLineup(call: Call, tid: string, rid: string, players: Entry[]) {
  const res = await putLineup(call, tid, rid, players);
  expectStatus(res, 200);
  return res.body.data;
}

function putMember(call: Call, teamId: string, playerId: string, body: Record<string, unknown>) {
  return call("PUT", `/teams/${teamId}/players/${playerId}`, { body });
}

// deno-lint-ignore no-explicit-any
async function registrations(call: Call, tid: string): Promise<any[]> {
  const res = await call("GET", `/tournaments/${tid}/registrations`);
  expectStatus(res, 200);
  return res.body.data;
}

// deno-lint-ignore no-explicit-any
async function registration(call: Call, tid: string, rid: string): Promise<any> {
  const res = await call("GET", `/tournaments/${tid}/registrations/${rid}`);
  expectStatus(res, 200);
  return res.body.data;
}

async function tournamentState(call: Call, tid: string): Promise<{ version: number; etag: string | null; status: string }> {
  const res = await call("GET", `/tournaments/${tid}`);
  expectStatus(res, 200);
  return { version: res.body.data.version, etag: res.headers.get("etag"), status: res.body.data.status };
}

async function start(call: Call, tid: string) {
  const res = await call("PATCH", `/tournaments/${tid}`, { body: { status: "ongoing" } });
  expectStatus(res, 200);
  return res.body.data;
}

// deno-lint-ignore no-explicit-any
async function results(call: Call, tid: string): Promise<any> {
  const res = await call("GET", `/tournaments/${tid}/results`);
  expectStatus(res, 200);
  return res.body.data;
}

const fieldsOf = (res: ApiResponse): string[] => (res.body?.error?.details ?? []).map((d: { field: string }) => String(d.field));

/** Asserts a 400 validation_error whose details name lineup entry `index` (players.2, players[2], players.2.role, ...). */
function expectEntryError(res: ApiResponse, indexes: number[]) {
  expectError(res, 400, "validation_error");
  const fields = fieldsOf(res);
  const named = fields.some((f) => indexes.some((i) => new RegExp(`^players(\\.|\\[)${i}(\\]|\\.|$)`).test(f)));
  expect(named, `details should name players entry ${indexes.join(" or ")}: ${res.text}`).toBe(true);
}

/** Asserts a 400 validation_error naming the side `side` (lineups.team1) of a game's lineups and not the other. */
function expectSideError(res: ApiResponse, side: "team1" | "team2") {
  expectError(res, 400, "validation_error");
  const fields = fieldsOf(res);
  const other = side === "team1" ? "team2" : "team1";
  expect(fields.some((f) => f === `lineups.${side}` || f.startsWith(`lineups.${side}.`) || f.startsWith(`lineups.${side}[`)), res.text)
    .toBe(true);
  expect(fields.some((f) => f.startsWith(`lineups.${other}`)), res.text).toBe(false);
}

const ids = (lineup: { player_id: string }[]) => lineup.map((e) => e.player_id);

// ---------------------------------------------------------------------------------------------

describe("players: create, read, update, delete", () => {
  it("creates a player with every field and returns 201, Location and exactly the contract's fields", async () => {
    const { call } = await account();
    const body = {
      handle: "s1mple",
      name: "Oleksandr Kostyliev",
      country: "UA",
      external_id: `user-${uniq()}`,
      game_accounts: { steam: "76561198034202275", faceit: "s1mple" },
    };
    const res = await call("POST", "/players", { body });
    expectStatus(res, 201);
    const p = res.body.data;
    expect(Object.keys(p).sort(), res.text).toEqual(PLAYER_FIELDS);
    expect(p).toMatchObject(body);
    expect(p.created_at).toMatch(/Z$/);
    expect(p.updated_at).toMatch(/Z$/);
    expect(res.headers.get("location")).toBe(`${apiUrl()}/players/${p.id}`);
    const got = await call("GET", `/players/${p.id}`);
    expectStatus(got, 200);
    expect(got.body.data).toEqual(p);
  });

  it("a player with only a handle has null country and external_id and game_accounts {}", async () => {
    const { call } = await account();
    const p = await newPlayer(call, { handle: "solo" });
    expect(Object.keys(p).sort()).toEqual(PLAYER_FIELDS);
    expect(p.handle).toBe("solo");
    expect(p.country).toBeNull();
    expect(p.external_id).toBeNull();
    expect(p.game_accounts).toEqual({});
  });

  it("accepts every provider of the contract's list, ids of 1 and 100 characters", async () => {
    const { call } = await account();
    const accounts = Object.fromEntries(PROVIDERS.map((p, i) => [p, i % 2 ? "x" : "y".repeat(100)]));
    const p = await newPlayer(call, { game_accounts: accounts });
    expect(p.game_accounts).toEqual(accounts);
  });

  it("accepts the bounds: handle 1 and 50 characters, name 100, external_id 1 and 200", async () => {
    const { call } = await account();
    expect((await newPlayer(call, { handle: "h" })).handle).toBe("h");
    expect((await newPlayer(call, { handle: "h".repeat(50) })).handle).toBe("h".repeat(50));
    expect((await newPlayer(call, { name: "n".repeat(100) })).name).toBe("n".repeat(100));
    expect((await newPlayer(call, { external_id: "e" })).external_id).toBe("e");
    const long = "e".repeat(199) + "f";
    expect((await newPlayer(call, { external_id: long })).external_id).toBe(long);
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["a missing handle", { name: "No Handle" }, "handle"],
    ["an empty handle", { handle: "" }, "handle"],
    ["a 51-character handle", { handle: "h".repeat(51) }, "handle"],
    ["a numeric handle", { handle: 42 }, "handle"],
    ["a 101-character name", { handle: "x", name: "n".repeat(101) }, "name"],
    ["a lower-case country", { handle: "x", country: "de" }, "country"],
    ["a three-letter country", { handle: "x", country: "DEU" }, "country"],
    ["a country with a digit", { handle: "x", country: "D1" }, "country"],
    ["a country that is no ISO 3166-1 code", { handle: "x", country: "AB" }, "country"],
    ["an empty external_id", { handle: "x", external_id: "" }, "external_id"],
    ["a 201-character external_id", { handle: "x", external_id: "e".repeat(201) }, "external_id"],
    ["an unknown provider", { handle: "x", game_accounts: { myspace: "abc" } }, "game_accounts"],
    ["an empty game account id", { handle: "x", game_accounts: { steam: "" } }, "game_accounts"],
    ["a 101-character game account id", { handle: "x", game_accounts: { riot: "r".repeat(101) } }, "game_accounts"],
    ["a numeric game account id", { handle: "x", game_accounts: { steam: 7656 } }, "game_accounts"],
    ["game_accounts as an array", { handle: "x", game_accounts: ["steam"] }, "game_accounts"],
    ["an unknown field", { handle: "x", nickname: "y" }, "nickname"],
    ["a read-only id", { handle: "x", id: UNKNOWN }, "id"],
  ];
  for (const [what, body, field] of invalid) {
    it(`POST /players refuses ${what} with 400 naming ${field}`, async () => {
      const { call } = await account();
      const res = await call("POST", "/players", { body });
      expectError(res, 400, "validation_error");
      expect(fieldsOf(res).some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)), res.text).toBe(true);
      const list = await call("GET", "/players");
      expect(list.body.data, list.text).toEqual([]);
    });
  }

  it("POST /players with a body that is not an object is 400 invalid_json", async () => {
    const { call } = await account();
    expectError(await call("POST", "/players", { body: ["handle"] }), 400, "invalid_json");
    expectError(
      await call("POST", "/players", { rawBody: "{handle", headers: { "content-type": "application/json" } }),
      400,
      "invalid_json",
    );
  });

  it("external_id is unique in the account (409 external_id_taken on create and PATCH) but not across accounts", async () => {
    const a = await account();
    const b = await account();
    const ext = `ext-${uniq()}`;
    const first = await newPlayer(a.call, { external_id: ext });
    expectError(await a.call("POST", "/players", { body: { handle: "again", external_id: ext } }), 409, "external_id_taken");
    const second = await newPlayer(a.call, { external_id: `${ext}-2` });
    expectError(await a.call("PATCH", `/players/${second.id}`, { body: { external_id: ext } }), 409, "external_id_taken");
    expect((await a.call("GET", `/players/${second.id}`)).body.data.external_id).toBe(`${ext}-2`);
    // Another account's organiser may use the same user id.
    const other = await newPlayer(b.call, { external_id: ext });
    expect(other.external_id).toBe(ext);
    // Setting a player's own external_id again is no conflict.
    expectStatus(await a.call("PATCH", `/players/${first.id}`, { body: { external_id: ext } }), 200);
  });

  it("PATCH changes the given fields, keeps the others, validates like create and raises updated_at", async () => {
    const { call } = await account();
    const p = await newPlayer(call, { handle: "before", name: "Full Name", country: "SE", game_accounts: { steam: "1" } });
    await sleep(20);
    const res = await call("PATCH", `/players/${p.id}`, { body: { handle: "after", game_accounts: { riot: "r#1" } } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ id: p.id, handle: "after", name: "Full Name", country: "SE", game_accounts: { riot: "r#1" } });
    expect(res.body.data.created_at).toBe(p.created_at);
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(p.updated_at));
    expect((await call("GET", `/players/${p.id}`)).body.data).toEqual(res.body.data);
    expectError(await call("PATCH", `/players/${p.id}`, { body: { country: "se" } }), 400, "validation_error", ["country"]);
    expectError(await call("PATCH", `/players/${p.id}`, { body: { handle: "" } }), 400, "validation_error", ["handle"]);
    expectError(await call("PATCH", `/players/${p.id}`, { body: { role: "player" } }), 400, "validation_error", ["role"]);
    expect((await call("GET", `/players/${p.id}`)).body.data).toEqual(res.body.data);
  });

  it("DELETE removes the player (200, then 404); unknown ids are 404", async () => {
    const { call } = await account();
    const p = await newPlayer(call);
    const res = await call("DELETE", `/players/${p.id}`);
    expectStatus(res, 200);
    expect(typeof res.body.data.message).toBe("string");
    expectError(await call("GET", `/players/${p.id}`), 404, "not_found");
    expectError(await call("DELETE", `/players/${p.id}`), 404, "not_found");
    expectError(await call("PATCH", `/players/${UNKNOWN}`, { body: { handle: "x" } }), 404, "not_found");
    expectError(await call("GET", `/players/not-a-uuid`), 404, "not_found");
  });

  it("Idempotency-Key replays a POST /players and refuses the same key with another body (422)", async () => {
    const { call } = await account();
    const headers = { "idempotency-key": `idem-${uniq()}` };
    const first = await call("POST", "/players", { body: { handle: "once" }, headers });
    expectStatus(first, 201);
    const again = await call("POST", "/players", { body: { handle: "once" }, headers });
    expectStatus(again, 201);
    expect(again.body.data).toEqual(first.body.data);
    expectError(await call("POST", "/players", { body: { handle: "twice" }, headers }), 422, "idempotency_mismatch");
    const list = await call("GET", "/players");
    expect(list.body.pagination.total).toBe(1);
  });
});

describe("players: list", () => {
  it("pages with page/limit and pagination.total, every player exactly once", async () => {
    const { call } = await account();
    const made = await newPlayers(call, 5);
    const seen: string[] = [];
    for (const page of [1, 2, 3]) {
      const res = await call("GET", `/players?page=${page}&limit=2`);
      expectStatus(res, 200);
      expect(res.body.pagination.total, res.text).toBe(5);
      expect(res.body.data.length).toBe(page === 3 ? 1 : 2);
      for (const p of res.body.data) expect(Object.keys(p).sort()).toEqual(PLAYER_FIELDS);
      seen.push(...res.body.data.map((p: { id: string }) => p.id));
    }
    expect([...seen].sort()).toEqual([...made].sort());
    const past = await call("GET", "/players?page=9&limit=2");
    expectStatus(past, 200);
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.total).toBe(5);
  });

  it("refuses page 0, limit 0 and limit 101 with 400 naming the parameter", async () => {
    const { call } = await account();
    expectError(await call("GET", "/players?page=0"), 400, "validation_error", ["page"]);
    expectError(await call("GET", "/players?limit=0"), 400, "validation_error", ["limit"]);
    expectError(await call("GET", "/players?limit=101"), 400, "validation_error", ["limit"]);
    expectError(await call("GET", "/players?page=abc"), 400, "validation_error", ["page"]);
    expectStatus(await call("GET", "/players?limit=100"), 200);
  });

  it("search matches handle, name or external_id case-insensitively as a substring", async () => {
    const { call } = await account();
    const byHandle = await newPlayer(call, { handle: "ZywOo" });
    const byName = await newPlayer(call, { handle: "m0NESY", name: "Ilya Osipov" });
    const byExt = await newPlayer(call, { handle: "donk", external_id: "DISCORD-ZYW-77" });
    await newPlayer(call, { handle: "ropz", name: "Robin Kool", external_id: "u-1" });
    const search = async (q: string) => {
      const res = await call("GET", `/players?search=${encodeURIComponent(q)}`);
      expectStatus(res, 200);
      return res.body.data.map((p: { id: string }) => p.id).sort();
    };
    expect(await search("zyw")).toEqual([byHandle.id, byExt.id].sort());
    expect(await search("OSIP")).toEqual([byName.id]);
    expect(await search("discord-zyw")).toEqual([byExt.id]);
    expect(await search("nobody-has-this")).toEqual([]);
  });

  it("search treats % and _ as plain characters", async () => {
    const { call } = await account();
    const underscore = await newPlayer(call, { handle: "a_b" });
    await newPlayer(call, { handle: "axb" });
    const percent = await newPlayer(call, { handle: "100%" });
    await newPlayer(call, { handle: "1000" });
    const search = async (q: string) =>
      (await call("GET", `/players?search=${encodeURIComponent(q)}`)).body.data.map((p: { id: string }) => p.id);
    expect(await search("a_b")).toEqual([underscore.id]);
    expect(await search("%")).toEqual([percent.id]);
  });

  it("external_id filters exactly (no substring)", async () => {
    const { call } = await account();
    const one = await newPlayer(call, { external_id: "u-1" });
    await newPlayer(call, { external_id: "u-10" });
    await newPlayer(call, { external_id: "xu-1" });
    const res = await call("GET", "/players?external_id=u-1");
    expectStatus(res, 200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([one.id]);
    expect(res.body.pagination.total).toBe(1);
    expect((await call("GET", "/players?external_id=nope")).body.data).toEqual([]);
  });
});

describe("players: privacy across accounts", () => {
  it("another account's player is 404 on GET, PATCH and DELETE and absent from lists and searches", async () => {
    const a = await account();
    const b = await account();
    const p = await newPlayer(a.call, { handle: `secret-${uniq()}`, external_id: `ext-${uniq()}` });
    expectError(await b.call("GET", `/players/${p.id}`), 404, "not_found");
    expectError(await b.call("PATCH", `/players/${p.id}`, { body: { handle: "stolen" } }), 404, "not_found");
    expectError(await b.call("DELETE", `/players/${p.id}`), 404, "not_found");
    const list = await b.call("GET", "/players");
    expectStatus(list, 200);
    expect(list.body.data).toEqual([]);
    expect(list.body.pagination.total).toBe(0);
    expect((await b.call("GET", `/players?search=${p.handle}`)).body.data).toEqual([]);
    expect((await b.call("GET", `/players?external_id=${p.external_id}`)).body.data).toEqual([]);
    expect((await a.call("GET", `/players/${p.id}`)).body.data).toEqual(p);
  });

  it("another account's team roster never shows this account's players", async () => {
    const a = await account();
    const b = await account();
    const team = await ownTeam(a.call);
    const p = await newPlayer(a.call, { handle: `hidden-${uniq()}` });
    expectStatus(await putMember(a.call, team, p.id, { role: "player" }), 200);
    const res = await b.call("GET", `/teams/${team}/players`);
    expect([200, 403, 404], res.text).toContain(res.status);
    expect(res.text).not.toContain(p.id);
    expect(res.text).not.toContain(p.handle);
  });

  it("scopes: players read with read:teams and write with write:teams; a lineup needs write:registrations", async () => {
    const { t, call } = await account();
    const p = await newPlayer(call);
    const readOnly = await t.newKey(["read:teams"]);
    expectError(await request("POST", "/players", { key: readOnly.key, body: { handle: "x" } }), 403, "insufficient_scope");
    expectError(await request("PATCH", `/players/${p.id}`, { key: readOnly.key, body: { handle: "x" } }), 403, "insufficient_scope");
    expectError(await request("DELETE", `/players/${p.id}`, { key: readOnly.key }), 403, "insufficient_scope");
    expectStatus(await request("GET", `/players/${p.id}`, { key: readOnly.key }), 200);
    const writeOnly = await t.newKey(["write:teams"]);
    expectError(await request("GET", "/players", { key: writeOnly.key }), 403, "insufficient_scope");
    expectError(await request("GET", `/players/${p.id}`, { key: writeOnly.key }), 403, "insufficient_scope");

    const tour = await newTournament(call);
    const [team] = await createTeams(1, "Scopes");
    const reg = await register(call, tour.id, team);
    const teamsOnly = await t.newKey(["read:teams", "write:teams", "read:tournaments", "read:registrations"]);
    const denied = await request("PUT", `/tournaments/${tour.id}/registrations/${reg.id}/lineup`, {
      key: teamsOnly.key,
      body: { players: [{ player_id: p.id, role: "player" }] },
    });
    expectError(denied, 403, "insufficient_scope");
    expect(denied.body.error.message).toContain("write:registrations");
    const regsOnly = await t.newKey(["write:registrations"]);
    const ok = await request("PUT", `/tournaments/${tour.id}/registrations/${reg.id}/lineup`, {
      key: regsOnly.key,
      body: { players: [{ player_id: p.id, role: "player" }] },
    });
    expectStatus(ok, 200);
    expect(ids(ok.body.data.lineup)).toEqual([p.id]);
  });
});

describe("rosters", () => {
  it("PUT adds a member (200, the player's fields plus role and captain), GET lists them, DELETE removes", async () => {
    const { call } = await account();
    const team = await ownTeam(call);
    const p = await newPlayer(call, { handle: "rain", country: "NO" });
    const q = await newPlayer(call, { handle: "karrigan", country: "DK" });
    const put = await putMember(call, team, p.id, { role: "player" });
    expectStatus(put, 200);
    for (const f of PLAYER_FIELDS) expect(put.body.data, put.text).toHaveProperty(f, p[f]);
    expect(put.body.data.role).toBe("player");
    expect(put.body.data.captain).toBe(false);
    expectStatus(await putMember(call, team, q.id, { role: "coach", captain: true }), 200);
    const list = await call("GET", `/teams/${team}/players`);
    expectStatus(list, 200);
    const byId = Object.fromEntries(list.body.data.map((m: { id: string }) => [m.id, m]));
    expect(Object.keys(byId).sort()).toEqual([p.id, q.id].sort());
    expect(byId[q.id]).toMatchObject({ handle: "karrigan", role: "coach", captain: true });
    // PUT again changes the member's role.
    const again = await putMember(call, team, p.id, { role: "substitute" });
    expectStatus(again, 200);
    expect(again.body.data.role).toBe("substitute");
    const del = await call("DELETE", `/teams/${team}/players/${p.id}`);
    expectStatus(del, 200);
    expect(del.body.data).toEqual({ message: "Player removed" });
    const after = await call("GET", `/teams/${team}/players`);
    expect(after.body.data.map((m: { id: string }) => m.id)).toEqual([q.id]);
    // The player still exists; only the membership went.
    expectStatus(await call("GET", `/players/${p.id}`), 200);
  });

  it("at most one captain: setting one clears the other", async () => {
    const { call } = await account();
    const team = await ownTeam(call);
    const [a, b] = await newPlayers(call, 2);
    expectStatus(await putMember(call, team, a, { role: "player", captain: true }), 200);
    const res = await putMember(call, team, b, { role: "player", captain: true });
    expectStatus(res, 200);
    expect(res.body.data.captain).toBe(true);
    const list = (await call("GET", `/teams/${team}/players`)).body.data;
    const captains = list.filter((m: { captain: boolean }) => m.captain).map((m: { id: string }) => m.id);
    expect(captains).toEqual([b]);
  });

  it("a player may be on many teams", async () => {
    const { call } = await account();
    const [t1, t2] = [await ownTeam(call), await ownTeam(call)];
    const p = await newPlayer(call);
    expectStatus(await putMember(call, t1, p.id, { role: "player" }), 200);
    expectStatus(await putMember(call, t2, p.id, { role: "coach" }), 200);
    expect((await call("GET", `/teams/${t1}/players`)).body.data.map((m: { id: string }) => m.id)).toEqual([p.id]);
    expect((await call("GET", `/teams/${t2}/players`)).body.data.map((m: { id: string }) => m.id)).toEqual([p.id]);
  });

  it("validates the body strictly: role required and one of three, captain boolean, no unknown field", async () => {
    const { call } = await account();
    const team = await ownTeam(call);
    const p = await newPlayer(call);
    expectError(await putMember(call, team, p.id, {}), 400, "validation_error", ["role"]);
    expectError(await putMember(call, team, p.id, { role: "manager" }), 400, "validation_error", ["role"]);
    expectError(await putMember(call, team, p.id, { role: "player", captain: "yes" }), 400, "validation_error", ["captain"]);
    expectError(await putMember(call, team, p.id, { role: "player", number: 7 }), 400, "validation_error", ["number"]);
    expect((await call("GET", `/teams/${team}/players`)).body.data).toEqual([]);
  });

  it("another account's team and a platform team are 403 team_not_owned; another account's player is 404", async () => {
    const a = await account();
    const b = await account();
    const bTeam = await ownTeam(b.call);
    const [platform] = await createTeams(1, "Roster platform");
    const mine = await ownTeam(a.call);
    const p = await newPlayer(a.call);
    const theirs = await newPlayer(b.call);
    expectError(await putMember(a.call, bTeam, p.id, { role: "player" }), 403, "team_not_owned");
    expectError(await putMember(a.call, platform, p.id, { role: "player" }), 403, "team_not_owned");
    expectError(await a.call("DELETE", `/teams/${bTeam}/players/${p.id}`), 403, "team_not_owned");
    expectError(await a.call("DELETE", `/teams/${platform}/players/${p.id}`), 403, "team_not_owned");
    expectError(await putMember(a.call, mine, theirs.id, { role: "player" }), 404, "not_found");
    expectError(await putMember(a.call, mine, UNKNOWN, { role: "player" }), 404, "not_found");
    expectError(await putMember(a.call, UNKNOWN, p.id, { role: "player" }), 404, "not_found");
    expect((await a.call("GET", `/teams/${mine}/players`)).body.data).toEqual([]);
    expect((await b.call("GET", `/teams/${bTeam}/players`)).body.data).toEqual([]);
  });
});

describe("tournament fields substitutes_max and lineups", () => {
  it("default to 0 and off, accept 0-50 and off/required, refuse others with 400 naming the field", async () => {
    const { call } = await account();
    const plain = await newTournament(call);
    expect(plain.substitutes_max).toBe(0);
    expect(plain.lineups).toBe("off");
    const full = await newTournament(call, { substitutes_max: 50, lineups: "required" });
    expect(full.substitutes_max).toBe(50);
    expect(full.lineups).toBe("required");
    for (const bad of [-1, 51, 1.5, "2"]) {
      const res = await call("POST", "/tournaments", { body: tournamentBody({ substitutes_max: bad }) });
      expectError(res, 400, "validation_error", ["substitutes_max"]);
    }
    for (const bad of ["on", "optional", true, null]) {
      const res = await call("POST", "/tournaments", { body: tournamentBody({ lineups: bad }) });
      expectError(res, 400, "validation_error", ["lineups"]);
    }
    const patched = await call("PATCH", `/tournaments/${plain.id}`, { body: { substitutes_max: 3, lineups: "required" } });
    expectStatus(patched, 200);
    expect(patched.body.data).toMatchObject({ substitutes_max: 3, lineups: "required" });
  });

  it("are locked once ongoing (409 tournament_locked), as team_size is", async () => {
    const { call } = await account();
    const tour = await newTournament(call);
    for (const team of await createTeams(2, "Locked fields")) await register(call, tour.id, team);
    await start(call, tour.id);
    for (const body of [{ substitutes_max: 2 }, { lineups: "required" }, { team_size: 3 }]) {
      expectError(await call("PATCH", `/tournaments/${tour.id}`, { body }), 409, "tournament_locked");
    }
    const got = (await call("GET", `/tournaments/${tour.id}`)).body.data;
    expect(got).toMatchObject({ substitutes_max: 0, lineups: "off", team_size: 2 });
  });
});

describe("lineups: PUT", () => {
  async function setup(fields: Record<string, unknown> = {}) {
    const { t, call } = await account();
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1, ...fields });
    const [team1, team2] = await createTeams(2, "Lineup");
    const reg1 = await register(call, tour.id, team1);
    const reg2 = await register(call, tour.id, team2);
    const players = await newPlayers(call, 8);
    return { t, call, tour, reg1, reg2, players };
  }

  it("a registration of a platform team starts with lineup [] in POST, GET and the list", async () => {
    const { call, tour, reg1 } = await setup();
    expect(reg1.lineup).toEqual([]);
    expect((await registration(call, tour.id, reg1.id)).lineup).toEqual([]);
    for (const r of await registrations(call, tour.id)) expect(r.lineup).toEqual([]);
  });

  it("replaces the lineup and answers 200 with the registration, entries in lineup order with exactly the contract's fields", async () => {
    const { call, tour, reg1, players } = await setup();
    const p0 = await newPlayer(call, {
      handle: "NiKo",
      country: "BA",
      name: "Nikola Kovač",
      external_id: "nk",
      game_accounts: { steam: "1" },
    });
    const body: Entry[] = [
      { player_id: players[3], role: "coach" },
      { player_id: p0.id, role: "player", captain: true },
      { player_id: players[1], role: "substitute" },
      { player_id: players[2], role: "player" },
    ];
    const res = await putLineup(call, tour.id, reg1.id, body);
    expectStatus(res, 200);
    const data = res.body.data;
    expect(data.id).toBe(reg1.id);
    expect(data.team_id).toBe(reg1.team_id);
    expect(ids(data.lineup)).toEqual(body.map((e) => e.player_id));
    for (const e of data.lineup) expect(Object.keys(e).sort()).toEqual(LINEUP_ENTRY_FIELDS);
    expect(data.lineup[1]).toEqual({ player_id: p0.id, handle: "NiKo", country: "BA", role: "player", captain: true });
    expect(data.lineup.map((e: { role: string }) => e.role)).toEqual(["coach", "player", "substitute", "player"]);
    expect(data.lineup.map((e: { captain: boolean }) => e.captain)).toEqual([false, true, false, false]);
    expect((await registration(call, tour.id, reg1.id)).lineup).toEqual(data.lineup);
    const listed = (await registrations(call, tour.id)).find((r) => r.id === reg1.id);
    expect(listed.lineup).toEqual(data.lineup);
    // Replacing: the new list is the whole lineup.
    const replaced = await setLineup(call, tour.id, reg1.id, [{ player_id: players[4], role: "player" }]);
    expect(ids(replaced.lineup)).toEqual([players[4]]);
    expect((await setLineup(call, tour.id, reg1.id, [])).lineup).toEqual([]);
  });

  it("a lineup change raises the tournament's version; the same lineup sent again does not", async () => {
    const { call, tour, reg1, players } = await setup();
    const v0 = await tournamentState(call, tour.id);
    const lineup: Entry[] = [{ player_id: players[0], role: "player" }, { player_id: players[1], role: "player" }];
    await setLineup(call, tour.id, reg1.id, lineup);
    const v1 = await tournamentState(call, tour.id);
    expect(v1.version).toBeGreaterThan(v0.version);
    expect(v1.etag).not.toBe(v0.etag);
    await setLineup(call, tour.id, reg1.id, lineup);
    const v2 = await tournamentState(call, tour.id);
    expect(v2.version).toBe(v1.version);
  });

  it("caps: more than team_size players is 400 naming the entry over the cap", async () => {
    const { call, tour, reg1, players } = await setup();
    const res = await putLineup(call, tour.id, reg1.id, [
      { player_id: players[0], role: "player" },
      { player_id: players[1], role: "player" },
      { player_id: players[2], role: "player" },
    ]);
    expectEntryError(res, [2]);
    expect((await registration(call, tour.id, reg1.id)).lineup).toEqual([]);
  });

  it("caps: more than substitutes_max substitutes is 400 naming the entry; with the default 0 any substitute is", async () => {
    const { call, tour, reg1, players } = await setup();
    const res = await putLineup(call, tour.id, reg1.id, [
      { player_id: players[0], role: "substitute" },
      { player_id: players[1], role: "player" },
      { player_id: players[2], role: "substitute" },
    ]);
    expectEntryError(res, [2]);
    const plain = await newTournament(call);
    const [team] = await createTeams(1, "No subs");
    const reg = await register(call, plain.id, team);
    expectEntryError(await putLineup(call, plain.id, reg.id, [{ player_id: players[3], role: "substitute" }]), [0]);
  });

  it("caps: more than 2 coaches is 400 naming the third coach", async () => {
    const { call, tour, reg1, players } = await setup();
    const res = await putLineup(call, tour.id, reg1.id, [
      { player_id: players[0], role: "coach" },
      { player_id: players[1], role: "coach" },
      { player_id: players[2], role: "player" },
      { player_id: players[3], role: "coach" },
    ]);
    expectEntryError(res, [3]);
    expect(ids(
      (await setLineup(call, tour.id, reg1.id, [
        { player_id: players[0], role: "coach" },
        { player_id: players[1], role: "coach" },
      ])).lineup,
    )).toEqual([players[0], players[1]]);
  });

  it("caps: more than one captain is 400 naming the second captain", async () => {
    const { call, tour, reg1, players } = await setup();
    const res = await putLineup(call, tour.id, reg1.id, [
      { player_id: players[0], role: "player", captain: true },
      { player_id: players[1], role: "player" },
      { player_id: players[2], role: "coach", captain: true },
    ]);
    expectEntryError(res, [2]);
  });

  it("each player once: a repeated player is 400 naming the repeat", async () => {
    const { call, tour, reg1, players } = await setup();
    const res = await putLineup(call, tour.id, reg1.id, [
      { player_id: players[0], role: "player" },
      { player_id: players[0], role: "coach" },
    ]);
    expectEntryError(res, [1, 0]);
    expect((await registration(call, tour.id, reg1.id)).lineup).toEqual([]);
  });

  it("validates the body strictly: players required and an array, entries with a known role and no unknown field", async () => {
    const { call, tour, reg1, players } = await setup();
    const path = `/tournaments/${tour.id}/registrations/${reg1.id}/lineup`;
    expectError(await call("PUT", path, { body: {} }), 400, "validation_error", ["players"]);
    expectError(await call("PUT", path, { body: { players: "all" } }), 400, "validation_error", ["players"]);
    expectError(await call("PUT", path, { body: { players: [], extra: 1 } }), 400, "validation_error", ["extra"]);
    expectEntryError(await putLineup(call, tour.id, reg1.id, [{ player_id: players[0], role: "captain" }]), [0]);
    expectEntryError(await putLineup(call, tour.id, reg1.id, [{ player_id: players[0] }]), [0]);
    expectEntryError(await putLineup(call, tour.id, reg1.id, [{ player_id: "not-a-uuid", role: "player" }]), [0]);
    expectEntryError(await putLineup(call, tour.id, reg1.id, [{ player_id: players[0], role: "player", jersey: 9 }]), [0]);
    expectEntryError(await putLineup(call, tour.id, reg1.id, [{ player_id: players[0], role: "player", captain: "y" }]), [0]);
    expect((await registration(call, tour.id, reg1.id)).lineup).toEqual([]);
  });

  it("cannot hold another account's player: 400 naming the entry, the same answer as an unknown player, and another account cannot touch the lineup", async () => {
    const { call, tour, reg1, players } = await setup();
    const other = await account();
    const theirs = await newPlayer(other.call);
    const foreign = await putLineup(call, tour.id, reg1.id, [{ player_id: theirs.id, role: "player" }]);
    const unknown = await putLineup(call, tour.id, reg1.id, [{ player_id: UNKNOWN, role: "player" }]);
    // "Players of the tournament's account; ... (400 naming the entry)": and no oracle between the two.
    expectEntryError(foreign, [0]);
    expectEntryError(unknown, [0]);
    expect(foreign.body.error.details).toEqual(unknown.body.error.details);
    expect(foreign.body.error.message).toBe(unknown.body.error.message);
    expect((await registration(call, tour.id, reg1.id)).lineup).toEqual([]);
    // The other account cannot see or change this tournament's lineups, even with its own players.
    expectError(await putLineup(other.call, tour.id, reg1.id, [{ player_id: theirs.id, role: "player" }]), 404, "not_found");
    expectError(await putLineup(other.call, tour.id, reg1.id, [{ player_id: players[0], role: "player" }]), 404, "not_found");
    expectError(await putLineup(call, tour.id, UNKNOWN, []), 404, "not_found");
    expectError(await putLineup(call, UNKNOWN, reg1.id, []), 404, "not_found");
  });

  it("is 409 tournament_locked once the tournament has started, and the lineup stays", async () => {
    const { call, tour, reg1, players } = await setup();
    await setLineup(call, tour.id, reg1.id, [{ player_id: players[0], role: "player" }]);
    await start(call, tour.id);
    expectError(await putLineup(call, tour.id, reg1.id, [{ player_id: players[1], role: "player" }]), 409, "tournament_locked");
    expect(ids((await registration(call, tour.id, reg1.id)).lineup)).toEqual([players[0]]);
  });
});

describe("lineups: one player, one team per tournament", () => {
  async function setup() {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1 });
    const teams = await createTeams(3, "One team");
    const regs = [];
    for (const team of teams) regs.push(await register(call, tour.id, team));
    const players = await newPlayers(call, 6);
    return { call, tour, regs, players };
  }

  it("409 player_already_registered with details naming the player and the other registration; nothing changes", async () => {
    const { call, tour, regs, players } = await setup();
    await setLineup(call, tour.id, regs[0].id, [{ player_id: players[0], role: "player" }]);
    await setLineup(call, tour.id, regs[1].id, [{ player_id: players[2], role: "player" }]);
    for (const role of ["player", "substitute"] as const) {
      const res = await putLineup(call, tour.id, regs[1].id, [
        { player_id: players[1], role: "player" },
        { player_id: players[0], role },
      ]);
      expectError(res, 409, "player_already_registered");
      const details = JSON.stringify(res.body.error.details ?? []);
      expect(details, res.text).toContain(players[0]);
      expect(details, res.text).toContain(regs[0].id);
      expect(ids((await registration(call, tour.id, regs[1].id)).lineup)).toEqual([players[2]]);
    }
    // The same player in its own registration's lineup again is no conflict.
    await setLineup(call, tour.id, regs[0].id, [{ player_id: players[0], role: "substitute" }, { player_id: players[1], role: "player" }]);
  });

  it("coaches are exempt: a coach may coach two teams and a player of one team may coach another", async () => {
    const { call, tour, regs, players } = await setup();
    await setLineup(call, tour.id, regs[0].id, [{ player_id: players[0], role: "coach" }, { player_id: players[1], role: "player" }]);
    await setLineup(call, tour.id, regs[1].id, [{ player_id: players[0], role: "coach" }, { player_id: players[1], role: "coach" }]);
    const regs2 = await registrations(call, tour.id);
    expect(ids(regs2.find((r) => r.id === regs[1].id).lineup)).toEqual([players[0], players[1]]);
    // But a coach elsewhere does not let a second team field them as a player twice.
    await setLineup(call, tour.id, regs[2].id, [{ player_id: players[0], role: "player" }]);
    expectError(
      await putLineup(call, tour.id, regs[0].id, [{ player_id: players[0], role: "substitute" }, {
        player_id: players[1],
        role: "player",
      }]),
      409,
      "player_already_registered",
    );
  });

  it("a player freed by another lineup's change may join a new one", async () => {
    const { call, tour, regs, players } = await setup();
    await setLineup(call, tour.id, regs[0].id, [{ player_id: players[0], role: "player" }]);
    expectError(await putLineup(call, tour.id, regs[1].id, [{ player_id: players[0], role: "player" }]), 409, "player_already_registered");
    await setLineup(call, tour.id, regs[0].id, []);
    await setLineup(call, tour.id, regs[1].id, [{ player_id: players[0], role: "player" }]);
    // A withdrawn registration frees its players too.
    expectStatus(await call("DELETE", `/tournaments/${tour.id}/registrations/${regs[1].id}`), 200);
    await setLineup(call, tour.id, regs[2].id, [{ player_id: players[0], role: "player" }]);
  });

  it("the same player in another tournament of the account is no conflict", async () => {
    const { call, tour, regs, players } = await setup();
    await setLineup(call, tour.id, regs[0].id, [{ player_id: players[0], role: "player" }]);
    const other = await newTournament(call, { team_size: 2 });
    const [team] = await createTeams(1, "Other event");
    const reg = await register(call, other.id, team);
    expect(ids((await setLineup(call, other.id, reg.id, [{ player_id: players[0], role: "player" }])).lineup)).toEqual([players[0]]);
  });

  it("two lineups racing for one player: exactly one wins, every time", async () => {
    const { call, tour, regs, players } = await setup();
    for (let round = 0; round < 5; round++) {
      const p = players[round];
      const [r0, r1] = await Promise.all([
        putLineup(call, tour.id, regs[0].id, [{ player_id: p, role: "player" }]),
        putLineup(call, tour.id, regs[1].id, [{ player_id: p, role: "substitute" }]),
      ]);
      const statuses = [r0.status, r1.status].sort();
      expect(statuses, `${r0.text} ${r1.text}`).toEqual([200, 409]);
      const loser = r0.status === 409 ? r0 : r1;
      expect(loser.body.error.code).toBe("player_already_registered");
      const holding = (await registrations(call, tour.id)).filter((r) => ids(r.lineup).includes(p));
      expect(holding.length).toBe(1);
      // Clear both for the next round.
      await setLineup(call, tour.id, regs[0].id, []);
      await setLineup(call, tour.id, regs[1].id, []);
    }
  });
});

describe("lineups: rosters copied into new registrations", () => {
  it("a registration of the account's own team starts with its roster in the order added, members beyond the caps left out", async () => {
    const { call } = await account();
    const team = await ownTeam(call);
    const names = ["c1", "p1", "s1", "p2", "p3", "s2", "c2", "c3"];
    const roles: Record<string, Role> = { c: "coach", p: "player", s: "substitute" };
    const made: Record<string, string> = {};
    for (const n of names) {
      made[n] = (await newPlayer(call, { handle: `${n}-${uniq()}`, country: "FR" })).id;
      expectStatus(await putMember(call, team, made[n], { role: roles[n[0]], captain: n === "p2" }), 200);
    }
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1 });
    const reg = await register(call, tour.id, team);
    const expected = ["c1", "p1", "s1", "p2", "c2"];
    expect(ids(reg.lineup), JSON.stringify(reg.lineup)).toEqual(expected.map((n) => made[n]));
    expect(reg.lineup.map((e: { role: string }) => e.role)).toEqual(["coach", "player", "substitute", "player", "coach"]);
    expect(reg.lineup.map((e: { captain: boolean }) => e.captain)).toEqual([false, false, false, true, false]);
    for (const e of reg.lineup) expect(Object.keys(e).sort()).toEqual(LINEUP_ENTRY_FIELDS);
    expect((await registration(call, tour.id, reg.id)).lineup).toEqual(reg.lineup);
  });

  it("the lineup is a snapshot: later roster changes leave it alone", async () => {
    const { call } = await account();
    const team = await ownTeam(call);
    const [a, b, c] = await newPlayers(call, 3);
    expectStatus(await putMember(call, team, a, { role: "player" }), 200);
    expectStatus(await putMember(call, team, b, { role: "player" }), 200);
    const tour = await newTournament(call, { team_size: 2 });
    const reg = await register(call, tour.id, team);
    expect(ids(reg.lineup)).toEqual([a, b]);
    expectStatus(await call("DELETE", `/teams/${team}/players/${a}`), 200);
    expectStatus(await putMember(call, team, c, { role: "player" }), 200);
    expect(ids((await registration(call, tour.id, reg.id)).lineup)).toEqual([a, b]);
  });

  it("a team of another account, or a platform team, starts with an empty lineup", async () => {
    const a = await account();
    const b = await account();
    const bTeam = await ownTeam(b.call);
    const bPlayer = await newPlayer(b.call, { handle: `bp-${uniq()}` });
    expectStatus(await putMember(b.call, bTeam, bPlayer.id, { role: "player" }), 200);
    const tour = await newTournament(a.call);
    const reg = await register(a.call, tour.id, bTeam);
    expect(reg.lineup).toEqual([]);
    const text = (await a.call("GET", `/tournaments/${tour.id}/registrations`)).text;
    expect(text).not.toContain(bPlayer.id);
    expect(text).not.toContain(bPlayer.handle);
  });

  it("a roster copy never puts a player in two lineups of one tournament", async () => {
    const { call } = await account();
    const [t1, t2] = [await ownTeam(call), await ownTeam(call)];
    const [shared, other] = await newPlayers(call, 2);
    expectStatus(await putMember(call, t1, shared, { role: "player" }), 200);
    expectStatus(await putMember(call, t2, shared, { role: "player" }), 200);
    expectStatus(await putMember(call, t2, other, { role: "player" }), 200);
    const tour = await newTournament(call, { team_size: 2 });
    const first = await register(call, tour.id, t1);
    expect(ids(first.lineup)).toEqual([shared]);
    const second = await call("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: t2 } });
    if (second.status === 201) {
      expect(ids(second.body.data.lineup)).not.toContain(shared);
    } else {
      expectError(second, 409, "player_already_registered");
    }
    const holding = (await registrations(call, tour.id)).filter((r) => ids(r.lineup).includes(shared));
    expect(holding.map((r) => r.id)).toEqual([first.id]);
  });
});

describe("lineups: required", () => {
  it("start with short lineups is 409 lineup_incomplete listing each short registration, and nothing starts", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1, lineups: "required" });
    const teams = await createTeams(3, "Required");
    const regs = [];
    for (const team of teams) regs.push(await register(call, tour.id, team));
    const p = await newPlayers(call, 6);
    await setLineup(call, tour.id, regs[0].id, [{ player_id: p[0], role: "player" }, { player_id: p[1], role: "player" }]);
    // One player and a substitute: the substitute does not count.
    await setLineup(call, tour.id, regs[1].id, [{ player_id: p[2], role: "player" }, { player_id: p[3], role: "substitute" }]);
    // Two coaches only.
    await setLineup(call, tour.id, regs[2].id, [{ player_id: p[4], role: "coach" }, { player_id: p[5], role: "coach" }]);
    const before = await tournamentState(call, tour.id);
    const res = await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } });
    expectError(res, 409, "lineup_incomplete");
    const details = res.body.error.details ?? [];
    expect(details.length, res.text).toBe(2);
    const text = JSON.stringify(details);
    expect(text).toContain(regs[1].id);
    expect(text).toContain(regs[2].id);
    expect(text).not.toContain(regs[0].id);
    // Each entry names the registration, its team and the players it holds (1 and 0 here).
    for (const [reg, held] of [[regs[1], 1], [regs[2], 0]] as const) {
      const entry = details.find((d: unknown) => JSON.stringify(d).includes(reg.id));
      expect(JSON.stringify(entry), res.text).toContain(reg.team_id);
      expect(Object.values(entry), res.text).toContain(held);
    }
    const after = await tournamentState(call, tour.id);
    expect(after.status).toBe("registration");
    expect(after.version).toBe(before.version);
    expect((await results(call, tour.id)).matches).toEqual([]);
    // Completing the lineups lets it start.
    await setLineup(call, tour.id, regs[1].id, [{ player_id: p[2], role: "player" }, { player_id: p[3], role: "player" }]);
    await setLineup(call, tour.id, regs[2].id, [
      { player_id: p[4], role: "player" },
      { player_id: p[5], role: "player" },
      { player_id: p[0], role: "coach" },
    ]);
    expect((await start(call, tour.id)).status).toBe("ongoing");
  });

  it("with lineups off, empty lineups start as before", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 5 });
    for (const team of await createTeams(2, "Off")) await register(call, tour.id, team);
    expect((await start(call, tour.id)).status).toBe("ongoing");
  });

  it("checking in with fewer than team_size players is 409 lineup_incomplete; with enough it checks in", async () => {
    const { call } = await account();
    const opens = new Date(Date.now() + 1500).toISOString();
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1, lineups: "required", check_in_opens: opens });
    const [team1, team2] = await createTeams(2, "Check-in");
    const reg1 = await register(call, tour.id, team1);
    const reg2 = await register(call, tour.id, team2);
    const p = await newPlayers(call, 4);
    await setLineup(call, tour.id, reg1.id, [{ player_id: p[0], role: "player" }, { player_id: p[1], role: "substitute" }]);
    await sleep(Math.max(0, Date.parse(opens) - Date.now()) + 300);
    const short = await call("PATCH", `/tournaments/${tour.id}/registrations/${reg1.id}`, { body: { checked_in: true } });
    expectError(short, 409, "lineup_incomplete");
    expect((await registration(call, tour.id, reg1.id)).checked_in_at).toBeNull();
    expectError(
      await call("PATCH", `/tournaments/${tour.id}/registrations/${reg2.id}`, { body: { checked_in: true } }),
      409,
      "lineup_incomplete",
    );
    await setLineup(call, tour.id, reg1.id, [{ player_id: p[0], role: "player" }, { player_id: p[1], role: "player" }]);
    const ok = await call("PATCH", `/tournaments/${tour.id}/registrations/${reg1.id}`, { body: { checked_in: true } });
    expectStatus(ok, 200);
    expect(ok.body.data.checked_in_at).not.toBeNull();
    expect(ids(ok.body.data.lineup)).toEqual([p[0], p[1]]);
  });
});

describe("lineups: the public view", () => {
  it("shows each entry's player_id, handle, country, role and captain, and never name, external_id or game accounts", async () => {
    const { call } = await account();
    const secretName = `Name-${uniq()}`;
    const secretExt = `ext-${uniq()}`;
    const secretSteam = `steam-${uniq()}`;
    const secretRiot = `riot-${uniq()}`;
    const team = await ownTeam(call);
    const star = await newPlayer(call, {
      handle: `star-${uniq()}`,
      name: secretName,
      country: "BR",
      external_id: secretExt,
      game_accounts: { steam: secretSteam, riot: secretRiot },
    });
    const mate = await newPlayer(call, { handle: `mate-${uniq()}` });
    expectStatus(await putMember(call, team, star.id, { role: "player", captain: true }), 200);
    expectStatus(await putMember(call, team, mate.id, { role: "player" }), 200);
    const tour = await newTournament(call, { team_size: 2, visibility: "public" });
    const reg = await register(call, tour.id, team);
    const [platform] = await createTeams(1, "Public");
    await register(call, tour.id, platform);
    const check = async () => {
      const res = await request("GET", `/public/tournaments/${encodeURIComponent(tour.slug)}`);
      expectStatus(res, 200);
      for (const secret of [secretName, secretExt, secretSteam, secretRiot]) expect(res.text).not.toContain(secret);
      const regs = res.body.data.registrations;
      const mine = regs.find((r: { id: string }) => r.id === reg.id);
      expect(mine, res.text).toBeDefined();
      expect(mine.lineup).toEqual([
        { player_id: star.id, handle: star.handle, country: "BR", role: "player", captain: true },
        { player_id: mate.id, handle: mate.handle, country: null, role: "player", captain: false },
      ]);
      for (const r of regs) expect(r).toHaveProperty("lineup");
      expect(regs.find((r: { team_id: string }) => r.team_id === platform).lineup).toEqual([]);
    };
    await check();
    await start(call, tour.id);
    await check();
    // Nor anywhere else the public sees: the page and the bracket picture.
    for (const route of ["/page", "/bracket.svg"]) {
      const res = await request("GET", `/public/tournaments/${encodeURIComponent(tour.slug)}${route}`);
      expectStatus(res, 200);
      for (const secret of [secretName, secretExt, secretSteam, secretRiot]) expect(res.text, route).not.toContain(secret);
    }
  });
});

describe("games: lineups", () => {
  it("accepts exactly team_size per side from that side's lineup, shows them, null when not given; else 400 naming the side", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 2, substitutes_max: 1, format_options: { best_of: 3 } });
    const [teamA, teamB] = await createTeams(2, "Games");
    const regA = await register(call, tour.id, teamA);
    const regB = await register(call, tour.id, teamB);
    const pa = await newPlayers(call, 4, "a");
    const pb = await newPlayers(call, 4, "b");
    await setLineup(call, tour.id, regA.id, [
      { player_id: pa[0], role: "player" },
      { player_id: pa[1], role: "player" },
      { player_id: pa[2], role: "substitute" },
      { player_id: pa[3], role: "coach" },
    ]);
    await setLineup(call, tour.id, regB.id, [
      { player_id: pb[0], role: "player" },
      { player_id: pb[1], role: "player" },
      { player_id: pb[2], role: "substitute" },
      { player_id: pb[3], role: "coach" },
    ]);
    await start(call, tour.id);
    const match = (await results(call, tour.id)).matches.find((m: { status: string }) => m.status === "ready");
    const side = (teamId: string) => (teamId === teamA ? pa : pb);
    const t1 = side(match.team1_id);
    const t2 = side(match.team2_id);
    const game = (n: number, body: Record<string, unknown>) =>
      call("PUT", `/tournaments/${tour.id}/matches/${match.id}/games/${n}`, { body: { team1_score: 13, team2_score: 7, ...body } });

    expectSideError(await game(1, { lineups: { team1: [t1[0]], team2: [t2[0], t2[1]] } }), "team1");
    expectSideError(await game(1, { lineups: { team1: [t1[0], t1[1], t1[2]], team2: [t2[0], t2[1]] } }), "team1");
    expectSideError(await game(1, { lineups: { team1: [t1[0], t1[1]], team2: [t2[0], t1[1]] } }), "team2");
    expectSideError(await game(1, { lineups: { team1: [t1[0], t1[3]], team2: [t2[0], t2[1]] } }), "team1");
    expectSideError(await game(1, { lineups: { team1: [t1[0], t1[1]], team2: [t2[0], UNKNOWN] } }), "team2");
    expectSideError(await game(1, { lineups: { team1: [t1[0], t1[0]], team2: [t2[0], t2[1]] } }), "team1");
    expectSideError(await game(1, { lineups: { team1: [t1[0], t1[1]] } }), "team2");
    expect((await results(call, tour.id)).matches.find((m: { id: string }) => m.id === match.id).games).toEqual([]);

    const g1 = await game(1, {});
    expectStatus(g1, 200);
    expect(g1.body.data.games[0].lineups, g1.text).toBeNull();
    const lineups = { team1: [t1[0], t1[2]], team2: [t2[1], t2[0]] };
    const g2 = await game(2, { team1_score: 3, team2_score: 13, lineups });
    expectStatus(g2, 200);
    expect(g2.body.data.games[1].lineups).toEqual(lineups);
    expect(g2.body.data.games[0].lineups).toBeNull();
    // Correcting game 1 with lineups.
    const fixed = { team1: [t1[1], t1[0]], team2: [t2[2], t2[1]] };
    const g1b = await game(1, { lineups: fixed });
    expectStatus(g1b, 200);
    expect(g1b.body.data.games[0].lineups).toEqual(fixed);
    const shown = (await results(call, tour.id)).matches.find((m: { id: string }) => m.id === match.id);
    expect(shown.games.map((g: { lineups: unknown }) => g.lineups)).toEqual([fixed, lineups]);
  });
});

describe("team names frozen at the start", () => {
  it("a rename after the start leaves the started tournament (names, version, ETag) and renames the open one", async () => {
    const { call } = await account();
    const renamed = await ownTeam(call, "Old Name", "OLD");
    const other = await ownTeam(call, "Before Start", "BS");
    const started = await newTournament(call, { visibility: "public" });
    const open = await newTournament(call);
    await register(call, started.id, renamed);
    await register(call, started.id, other);
    await register(call, open.id, renamed);
    // A rename before the start counts: names freeze at the start.
    expectStatus(await call("PATCH", `/teams/${other}`, { body: { name: "At Start", tag: "AS" } }), 200);
    await start(call, started.id);
    const match = (await results(call, started.id)).matches[0];
    expectStatus(await call("PATCH", `/tournaments/${started.id}/matches/${match.id}`, { body: { team1_score: 2, team2_score: 0 } }), 200);
    const before = await call("GET", `/tournaments/${started.id}`);
    const beforeRegs = await call("GET", `/tournaments/${started.id}/registrations`);
    const beforeResults = await call("GET", `/tournaments/${started.id}/results`);
    const openBefore = await tournamentState(call, open.id);

    expectStatus(await call("PATCH", `/teams/${renamed}`, { body: { name: "New Name", tag: "NEWT" } }), 200);

    const after = await call("GET", `/tournaments/${started.id}`);
    expect(after.body.data.version).toBe(before.body.data.version);
    expect(after.headers.get("etag")).toBe(before.headers.get("etag"));
    const cached = await call("GET", `/tournaments/${started.id}/registrations`, {
      headers: { "if-none-match": beforeRegs.headers.get("etag")! },
    });
    expect(cached.status, cached.text).toBe(304);
    const regs = await registrations(call, started.id);
    const names = Object.fromEntries(regs.map((r) => [r.team_id, [r.teams.name, r.teams.tag]]));
    expect(names[renamed]).toEqual(["Old Name", "OLD"]);
    expect(names[other]).toEqual(["At Start", "AS"]);
    const standings = (await results(call, started.id)).standings;
    expect(standings).toEqual(beforeResults.body.data.standings);
    const entry = standings.find((s: { team_id: string }) => s.team_id === renamed);
    expect([entry.team_name, entry.team_tag]).toEqual(["Old Name", "OLD"]);
    const pub = await request("GET", `/public/tournaments/${encodeURIComponent(started.slug)}`);
    expectStatus(pub, 200);
    expect(pub.text).not.toContain("New Name");
    expect(pub.text).not.toContain("NEWT");
    // The bracket picture and the stage's standings show the name it was played under.
    const svg = await call("GET", `/tournaments/${started.id}/bracket.svg`);
    expectStatus(svg, 200);
    expect(svg.text).not.toContain("New Name");
    expect(svg.text).not.toContain("NEWT");
    expect(svg.text.includes("OLD") || svg.text.includes("Old Name"), svg.text).toBe(true);
    const stage = await call("GET", `/tournaments/${started.id}/stages/1`);
    expectStatus(stage, 200);
    expect(stage.text).not.toContain("New Name");
    expect(stage.text).not.toContain("NEWT");

    const openRegs = await registrations(call, open.id);
    expect([openRegs[0].teams.name, openRegs[0].teams.tag]).toEqual(["New Name", "NEWT"]);
    expect((await tournamentState(call, open.id)).version).toBeGreaterThan(openBefore.version);
  });
});

describe("deleting a player", () => {
  it("in the lineup of a started tournament is 409 player_in_use (also once completed) and nothing changes", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 1 });
    const [team1, team2] = await createTeams(2, "In use");
    const reg1 = await register(call, tour.id, team1);
    await register(call, tour.id, team2);
    const p = await newPlayer(call);
    const team = await ownTeam(call);
    expectStatus(await putMember(call, team, p.id, { role: "player" }), 200);
    await setLineup(call, tour.id, reg1.id, [{ player_id: p.id, role: "player" }]);
    // Also in an open tournament's lineup: the refused deletion leaves it there.
    const open = await newTournament(call, { team_size: 1 });
    const [openTeam] = await createTeams(1, "In use, open");
    const openReg = await register(call, open.id, openTeam);
    await setLineup(call, open.id, openReg.id, [{ player_id: p.id, role: "player" }]);
    await start(call, tour.id);
    const openBefore = await tournamentState(call, open.id);
    expectError(await call("DELETE", `/players/${p.id}`), 409, "player_in_use");
    expectStatus(await call("GET", `/players/${p.id}`), 200);
    expect(ids((await registration(call, tour.id, reg1.id)).lineup)).toEqual([p.id]);
    expect(ids((await registration(call, open.id, openReg.id)).lineup)).toEqual([p.id]);
    expect((await tournamentState(call, open.id)).version).toBe(openBefore.version);
    expect((await call("GET", `/teams/${team}/players`)).body.data.map((m: { id: string }) => m.id)).toEqual([p.id]);
    const match = (await results(call, tour.id)).matches[0];
    expectStatus(await call("PATCH", `/tournaments/${tour.id}/matches/${match.id}`, { body: { team1_score: 1, team2_score: 0 } }), 200);
    expectStatus(await call("PATCH", `/tournaments/${tour.id}`, { body: { status: "completed" } }), 200);
    expectError(await call("DELETE", `/players/${p.id}`), 409, "player_in_use");
  });

  it("otherwise leaves every roster and open lineup, and raises that tournament's version", async () => {
    const { call } = await account();
    const [teamX, teamY] = [await ownTeam(call), await ownTeam(call)];
    const [gone, stays] = await newPlayers(call, 2);
    expectStatus(await putMember(call, teamX, gone, { role: "player", captain: true }), 200);
    expectStatus(await putMember(call, teamX, stays, { role: "player" }), 200);
    expectStatus(await putMember(call, teamY, gone, { role: "coach" }), 200);
    const tour = await newTournament(call, { team_size: 2 });
    const reg = await register(call, tour.id, teamX);
    const regY = await register(call, tour.id, teamY);
    expect(ids(reg.lineup)).toEqual([gone, stays]);
    expect(ids(regY.lineup)).toEqual([gone]);
    const untouched = await newTournament(call);
    const before = await tournamentState(call, tour.id);
    const untouchedBefore = await tournamentState(call, untouched.id);
    const res = await call("DELETE", `/players/${gone}`);
    expectStatus(res, 200);
    expectError(await call("GET", `/players/${gone}`), 404, "not_found");
    expect((await call("GET", `/teams/${teamX}/players`)).body.data.map((m: { id: string }) => m.id)).toEqual([stays]);
    expect((await call("GET", `/teams/${teamY}/players`)).body.data).toEqual([]);
    expect(ids((await registration(call, tour.id, reg.id)).lineup)).toEqual([stays]);
    expect((await registration(call, tour.id, regY.id)).lineup).toEqual([]);
    const after = await tournamentState(call, tour.id);
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.etag).not.toBe(before.etag);
    expect((await tournamentState(call, untouched.id)).version).toBe(untouchedBefore.version);
  });
});

describe("webhooks: registration.updated on a lineup change", () => {
  async function deliveriesOf(call: Call, webhookId: string) {
    const res = await call("GET", `/webhooks/${webhookId}/deliveries?limit=100`);
    expectStatus(res, 200);
    // deno-lint-ignore no-explicit-any
    return res.body.data as any[];
  }

  async function waitForCount(call: Call, webhookId: string, n: number) {
    const until = Date.now() + 10_000;
    for (;;) {
      const list = await deliveriesOf(call, webhookId);
      if (list.length >= n || Date.now() > until) return list;
      await sleep(200);
    }
  }

  it("records registration.updated with the registration as GET shows it; the same lineup again records nothing", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 2 });
    const [team] = await createTeams(1, "Hooks");
    const reg = await register(call, tour.id, team);
    const [p0, p1] = await newPlayers(call, 2);
    const hook = await call("POST", "/webhooks", {
      body: { url: "http://127.0.0.1:9/lineups", events: ["registration.updated"], tournament_id: tour.id },
    });
    expectStatus(hook, 201);
    const hookId = hook.body.data.id;
    const lineup: Entry[] = [{ player_id: p0, role: "player", captain: true }, { player_id: p1, role: "player" }];
    await setLineup(call, tour.id, reg.id, lineup);
    const shown = await registration(call, tour.id, reg.id);
    const first = await waitForCount(call, hookId, 1);
    expect(first.length).toBe(1);
    expect(first[0].event_type).toBe("registration.updated");
    expect(first[0].payload.type).toBe("registration.updated");
    expect(first[0].payload.data).toEqual(shown);

    await setLineup(call, tour.id, reg.id, lineup);
    await sleep(1000);
    expect((await deliveriesOf(call, hookId)).length).toBe(1);

    // A player's deletion takes them out of the open lineup: that is a lineup change too.
    expectStatus(await call("DELETE", `/players/${p0}`), 200);
    const shownAfter = await registration(call, tour.id, reg.id);
    expect(ids(shownAfter.lineup)).toEqual([p1]);
    const second = await waitForCount(call, hookId, 2);
    expect(second.length, JSON.stringify(second.map((d) => d.event_type))).toBe(2);
    expect(second[0].event_type).toBe("registration.updated");
    expect(second[0].payload.data).toEqual(shownAfter);
  });
});

describe("lineups: required, with check-in", () => {
  it("a registration that did not check in takes no part: its short lineup does not stop the start, and its players stay in use", async () => {
    const { call } = await account();
    const opens = new Date(Date.now() + 1500).toISOString();
    const tour = await newTournament(call, { team_size: 1, lineups: "required", check_in_opens: opens });
    const teams = await createTeams(3, "Partial check-in");
    const regs = [];
    for (const team of teams) regs.push(await register(call, tour.id, team));
    const p = await newPlayers(call, 3);
    await setLineup(call, tour.id, regs[0].id, [{ player_id: p[0], role: "player" }]);
    await setLineup(call, tour.id, regs[1].id, [{ player_id: p[1], role: "player" }]);
    // The third holds only a coach and never checks in.
    await setLineup(call, tour.id, regs[2].id, [{ player_id: p[2], role: "coach" }]);
    await sleep(Math.max(0, Date.parse(opens) - Date.now()) + 300);
    for (const r of regs.slice(0, 2)) {
      expectStatus(await call("PATCH", `/tournaments/${tour.id}/registrations/${r.id}`, { body: { checked_in: true } }), 200);
    }
    expect((await start(call, tour.id)).status).toBe("ongoing");
    // "DELETE of a player in the lineup of a tournament that has started is 409 player_in_use".
    expectError(await call("DELETE", `/players/${p[2]}`), 409, "player_in_use");
  });
});

describe("deleting a player: coaches and races", () => {
  it("a coach in a started tournament's lineup is in use too", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 1 });
    const [team1, team2] = await createTeams(2, "Coach in use");
    const reg1 = await register(call, tour.id, team1);
    await register(call, tour.id, team2);
    const coach = await newPlayer(call);
    await setLineup(call, tour.id, reg1.id, [{ player_id: coach.id, role: "coach" }]);
    await start(call, tour.id);
    expectError(await call("DELETE", `/players/${coach.id}`), 409, "player_in_use");
    expect(ids((await registration(call, tour.id, reg1.id)).lineup)).toEqual([coach.id]);
  });

  // A deleted player is an unknown player: the request that lost the race answers as for one (400 naming
  // the entry for a lineup, 404 for a roster), never 500, and no lineup or roster keeps the player.
  const ROUNDS = 25;

  it("a deletion racing lineup PUTs that take the player: 200 or 400, never 500, and the player in no lineup", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 2 });
    const regs = [];
    for (const team of await createTeams(4, "Delete race")) regs.push(await register(call, tour.id, team));
    const keep = await newPlayers(call, regs.length);
    // Each lineup holds its keeper before and after every round, whichever request wins.
    for (const [i, r] of regs.entries()) await setLineup(call, tour.id, r.id, [{ player_id: keep[i], role: "player" }]);
    for (let round = 0; round < ROUNDS; round++) {
      const p = (await newPlayer(call)).id;
      // The player coaches every team at once (coaches are exempt from one team per tournament).
      const [del, ...puts] = await Promise.all([
        call("DELETE", `/players/${p}`),
        ...regs.map((r, i) => putLineup(call, tour.id, r.id, [{ player_id: keep[i], role: "player" }, { player_id: p, role: "coach" }])),
      ]);
      for (const put of puts) expect([200, 400], `round ${round}: ${put.text}`).toContain(put.status);
      expectStatus(del, 200);
      const shown = await registrations(call, tour.id);
      expect(shown.map((r) => ids(r.lineup)), `round ${round}`).toEqual(keep.map((k) => [k]));
    }
  });

  it("a deletion racing a roster PUT of the player: 200 or 404, never 500, and the player on no roster", async () => {
    const { call } = await account();
    const team = await ownTeam(call);
    for (let round = 0; round < ROUNDS; round++) {
      const p = (await newPlayer(call)).id;
      const [put, del] = await Promise.all([putMember(call, team, p, { role: "player" }), call("DELETE", `/players/${p}`)]);
      expect([200, 404], `round ${round}: ${put.text}`).toContain(put.status);
      expectStatus(del, 200);
      const roster = (await call("GET", `/teams/${team}/players`)).body.data;
      expect(roster, JSON.stringify({ put: put.status, roster })).toEqual([]);
    }
  });

  it("a deletion racing the registration that copies a roster holding the player: 201, never 500, and the player in no lineup", async () => {
    const { call } = await account();
    for (let round = 0; round < ROUNDS; round++) {
      const team = await ownTeam(call);
      const p = (await newPlayer(call)).id;
      expectStatus(await putMember(call, team, p, { role: "player" }), 200);
      const tour = await newTournament(call, { team_size: 2 });
      const [reg, del] = await Promise.all([
        call("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: team } }),
        call("DELETE", `/players/${p}`),
      ]);
      expectStatus(reg, 201);
      expectStatus(del, 200);
      const regs = await registrations(call, tour.id);
      expect(regs.flatMap((r) => ids(r.lineup)), `round ${round}`).toEqual([]);
    }
  });

  it("with lineups required, a deletion racing the start never leaves a started tournament with a short lineup", async () => {
    const { call } = await account();
    for (let round = 0; round < 4; round++) {
      const tour = await newTournament(call, { team_size: 1, lineups: "required" });
      const [team1, team2] = await createTeams(2, "Start race");
      const reg1 = await register(call, tour.id, team1);
      const reg2 = await register(call, tour.id, team2);
      const [p1, p2] = await newPlayers(call, 2);
      await setLineup(call, tour.id, reg1.id, [{ player_id: p1, role: "player" }]);
      await setLineup(call, tour.id, reg2.id, [{ player_id: p2, role: "player" }]);
      const [started, del] = await Promise.all([
        call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }),
        call("DELETE", `/players/${p1}`),
      ]);
      const outcome = `start ${started.status} ${started.body?.error?.code ?? ""}, delete ${del.status} ${del.body?.error?.code ?? ""}`;
      expect(
        (started.status === 200 && del.status === 409 && del.body.error.code === "player_in_use") ||
          (started.status === 409 && started.body.error.code === "lineup_incomplete" && del.status === 200),
        outcome,
      ).toBe(true);
    }
  });
});

describe("lineups: racing the start", () => {
  it("with lineups required, a lineup emptied while the tournament starts: either the PUT is locked out or the start refused", async () => {
    const { call } = await account();
    for (let round = 0; round < 5; round++) {
      const tour = await newTournament(call, { team_size: 1, lineups: "required" });
      const [team1, team2] = await createTeams(2, "Lineup start race");
      const reg1 = await register(call, tour.id, team1);
      const reg2 = await register(call, tour.id, team2);
      const [p1, p2] = await newPlayers(call, 2);
      await setLineup(call, tour.id, reg1.id, [{ player_id: p1, role: "player" }]);
      await setLineup(call, tour.id, reg2.id, [{ player_id: p2, role: "player" }]);
      const [started, put] = await Promise.all([
        call("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }),
        putLineup(call, tour.id, reg1.id, []),
      ]);
      const outcome = `start ${started.status} ${started.body?.error?.code ?? ""}, put ${put.status} ${put.body?.error?.code ?? ""}`;
      expect(
        (started.status === 200 && put.status === 409 && put.body.error.code === "tournament_locked") ||
          (started.status === 409 && started.body.error.code === "lineup_incomplete" && put.status === 200),
        outcome,
      ).toBe(true);
      const state = await tournamentState(call, tour.id);
      const held = ids((await registration(call, tour.id, reg1.id)).lineup);
      if (state.status === "ongoing") expect(held).toEqual([p1]);
      else expect(held).toEqual([]);
    }
  });
});

describe("versions: a player's change shown in registrations", () => {
  it("when a player's handle or country changes what a tournament's registrations show, their ETag changes too", async () => {
    const { call } = await account();
    const p = await newPlayer(call, { handle: `before-${uniq()}`, country: "PL" });
    const mate = await newPlayer(call);
    const open = await newTournament(call, { team_size: 1 });
    const started = await newTournament(call, { team_size: 1 });
    const [t1, t2, t3] = await createTeams(3, "Handle versions");
    const openReg = await register(call, open.id, t1);
    await setLineup(call, open.id, openReg.id, [{ player_id: p.id, role: "player" }]);
    const startedReg = await register(call, started.id, t2);
    await register(call, started.id, t3);
    await setLineup(call, started.id, startedReg.id, [{ player_id: p.id, role: "player" }, { player_id: mate.id, role: "coach" }]);
    await start(call, started.id);
    const read = async (tid: string) => {
      const res = await call("GET", `/tournaments/${tid}/registrations`);
      expectStatus(res, 200);
      return { etag: res.headers.get("etag"), body: JSON.stringify(res.body.data) };
    };
    const before = { open: await read(open.id), started: await read(started.id) };
    expectStatus(await call("PATCH", `/players/${p.id}`, { body: { handle: `after-${uniq()}`, country: "CZ" } }), 200);
    for (const which of ["open", "started"] as const) {
      const after = await read(which === "open" ? open.id : started.id);
      if (after.body !== before[which].body) {
        expect(after.etag, `${which}: the registrations changed (${after.body}) under the same ETag ${after.etag}`).not.toBe(
          before[which].etag,
        );
        const cached = await call("GET", `/tournaments/${which === "open" ? open.id : started.id}/registrations`, {
          headers: { "if-none-match": before[which].etag! },
        });
        expect(cached.status, `${which}: a 304 for a changed list`).toBe(200);
      }
    }
  });
});

describe("games: lineups, strictness", () => {
  it("refuses an unknown side and ids that are not UUIDs with 400, and takes team_size 1", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 1, format_options: { best_of: 3 } });
    const [teamA, teamB] = await createTeams(2, "Game strict");
    const regA = await register(call, tour.id, teamA);
    const regB = await register(call, tour.id, teamB);
    const [a, b] = await newPlayers(call, 2);
    await setLineup(call, tour.id, regA.id, [{ player_id: a, role: "player" }]);
    await setLineup(call, tour.id, regB.id, [{ player_id: b, role: "player" }]);
    await start(call, tour.id);
    const match = (await results(call, tour.id)).matches[0];
    const one = match.team1_id === teamA ? a : b;
    const two = match.team1_id === teamA ? b : a;
    const game = (body: Record<string, unknown>) =>
      call("PUT", `/tournaments/${tour.id}/matches/${match.id}/games/1`, { body: { team1_score: 1, team2_score: 0, ...body } });
    const extra = await game({ lineups: { team1: [one], team2: [two], team3: [] } });
    expectError(extra, 400, "validation_error");
    expect(fieldsOf(extra).some((f) => f.startsWith("lineups")), extra.text).toBe(true);
    expectSideError(await game({ lineups: { team1: ["not-a-uuid"], team2: [two] } }), "team1");
    const swapped = await game({ lineups: { team1: [two], team2: [one] } });
    expectError(swapped, 400, "validation_error");
    expect(fieldsOf(swapped).some((f) => f.startsWith("lineups.team1")), swapped.text).toBe(true);
    const ok = await game({ lineups: { team1: [one], team2: [two] } });
    expectStatus(ok, 200);
    expect(ok.body.data.games[0].lineups).toEqual({ team1: [one], team2: [two] });
  });
});

describe("races", () => {
  // Whatever wins a race, the loser answers as the contract says for the state it finds (never 500),
  // and the rules hold afterwards.
  const ROUNDS = 15;

  it("two members made captain at once: exactly one captain remains", async () => {
    const { call } = await account();
    for (let round = 0; round < ROUNDS; round++) {
      const team = await ownTeam(call);
      const [a, b] = await newPlayers(call, 2);
      const [ra, rb] = await Promise.all([
        putMember(call, team, a, { role: "player", captain: true }),
        putMember(call, team, b, { role: "player", captain: true }),
      ]);
      expectStatus(ra, 200);
      expectStatus(rb, 200);
      const roster = (await call("GET", `/teams/${team}/players`)).body.data;
      const captains = roster.filter((m: { captain: boolean }) => m.captain);
      expect(captains.length, `round ${round}: ${JSON.stringify(roster)}`).toBe(1);
    }
  });

  it("two players created at once with one external_id: one 201, one 409 external_id_taken", async () => {
    const { call } = await account();
    for (let round = 0; round < ROUNDS; round++) {
      const ext = `race-${uniq()}`;
      const [a, b] = await Promise.all([
        call("POST", "/players", { body: { handle: "a", external_id: ext } }),
        call("POST", "/players", { body: { handle: "b", external_id: ext } }),
      ]);
      expect([a.status, b.status].sort(), `${a.text} ${b.text}`).toEqual([201, 409]);
      expect((a.status === 409 ? a : b).body.error.code).toBe("external_id_taken");
    }
  });

  it("a lineup PUT racing the registration's withdrawal: 200 or 404, never 500", async () => {
    const { call } = await account();
    const tour = await newTournament(call, { team_size: 2, max_teams: 64 });
    const p = (await newPlayer(call)).id;
    const teams = await createTeams(ROUNDS, "Withdraw race");
    for (const team of teams) {
      const reg = await register(call, tour.id, team);
      const [put, del] = await Promise.all([
        putLineup(call, tour.id, reg.id, [{ player_id: p, role: "player" }]),
        call("DELETE", `/tournaments/${tour.id}/registrations/${reg.id}`),
      ]);
      expect([200, 404], put.text).toContain(put.status);
      expectStatus(del, 200);
    }
    expect(await registrations(call, tour.id)).toEqual([]);
  });

  it("a lineup PUT racing the tournament's deletion: 200 or 404, never 500", async () => {
    const { call } = await account();
    const p = (await newPlayer(call)).id;
    for (let round = 0; round < ROUNDS; round++) {
      const tour = await newTournament(call, { team_size: 2 });
      const [team] = await createTeams(1, "Tournament delete race");
      const reg = await register(call, tour.id, team);
      const [put, del] = await Promise.all([
        putLineup(call, tour.id, reg.id, [{ player_id: p, role: "player" }]),
        call("DELETE", `/tournaments/${tour.id}`),
      ]);
      expect([200, 404], put.text).toContain(put.status);
      expectStatus(del, 200);
    }
  });

  it("roster PUTs racing the team's deletion: 200 or 404, never 500", async () => {
    const { call } = await account();
    const players = await newPlayers(call, 4);
    for (let round = 0; round < ROUNDS; round++) {
      const team = await ownTeam(call);
      const [del, ...puts] = await Promise.all([
        call("DELETE", `/teams/${team}`),
        ...players.map((p) => putMember(call, team, p, { role: "player" })),
      ]);
      for (const put of puts) expect([200, 404], `round ${round}: ${put.text}`).toContain(put.status);
      expectStatus(del, 200);
      expectError(await call("GET", `/teams/${team}/players`), 404, "not_found");
    }
  });

  it("a lineup PUT racing a registration whose roster holds the same player: the player ends in one lineup", async () => {
    const { call } = await account();
    for (let round = 0; round < ROUNDS; round++) {
      const tour = await newTournament(call, { team_size: 2 });
      const [platform] = await createTeams(1, "Copy race");
      const reg = await register(call, tour.id, platform);
      const team = await ownTeam(call);
      const p = (await newPlayer(call)).id;
      expectStatus(await putMember(call, team, p, { role: "player" }), 200);
      const [put, post] = await Promise.all([
        putLineup(call, tour.id, reg.id, [{ player_id: p, role: "player" }]),
        call("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: team } }),
      ]);
      expect([200, 409], put.text).toContain(put.status);
      expect([201, 409], post.text).toContain(post.status);
      const holding = (await registrations(call, tour.id)).filter((r) => ids(r.lineup).includes(p));
      expect(holding.length, `round ${round}: put ${put.status}, registration ${post.status}`).toBe(1);
    }
  });
});

// Test harness: a fresh account and key per test, an HTTP client for the real function, and
// SQL access as the operator (postgres) or as the function's role.
import { expect, inject } from "vitest";
import pg from "pg";

export { type Scope, SCOPES as ALL_SCOPES } from "../../functions/api/contract.ts";
import { SCOPES as ALL_SCOPES } from "../../functions/api/contract.ts";

export const apiUrl = () => inject("apiUrl");

let adminPool: pg.Pool | undefined;
/** A pool connected as the operator (postgres, superuser). */
export function admin(): pg.Pool {
  if (!adminPool) {
    adminPool = new pg.Pool({ connectionString: inject("adminDbUrl"), max: 4 });
    // An idle connection the server ends (the stack stopping at the end of the run, a fault
    // test's restart) must not fail the run as an unhandled error; the next query reconnects.
    adminPool.on("error", () => {});
  }
  return adminPool;
}

/** Runs SQL as the operator. */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = []) {
  return (await admin().query<T>(text, values)).rows;
}

/** Creates an account; API access enabled unless told otherwise. */
export async function createAccount(enabled = true, name = "Test account"): Promise<string> {
  const [{ id }] = await sql<{ id: string }>("select admin.create_account($1) as id", [name]);
  if (enabled) await sql("select admin.set_api_access($1, true)", [id]);
  return id;
}

/** Creates a key for an account. */
export async function createKey(
  accountId: string,
  scopes: readonly string[] = ALL_SCOPES,
  expiresAt: Date | null = null,
): Promise<{ id: string; key: string }> {
  const [row] = await sql<{ id: string; key: string }>(
    "select * from admin.create_api_key($1, 'test key', $2, $3)",
    [accountId, scopes, expiresAt],
  );
  return row;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is (no JSON encoding, no content type unless given in headers). */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  key?: string | null;
}

/** Sends a request to the real function; `path` is below /api/v1. */
export async function request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization ??= `Bearer ${options.key}`;
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(apiUrl() + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** An account with API access and a key (all scopes unless given), with a client bound to it. */
export async function tenant(scopes: readonly string[] = ALL_SCOPES) {
  const accountId = await createAccount(true);
  const { id: keyId, key } = await createKey(accountId, scopes);
  const call = (method: string, path: string, options: Omit<RequestOptions, "key"> = {}) => request(method, path, { ...options, key });
  return {
    accountId,
    keyId,
    key,
    request: call,
    /** A fresh key on the same account (each key has its own rate limit). */
    newKey: (s: readonly string[] = scopes) => createKey(accountId, s),
  };
}
export type Tenant = Awaited<ReturnType<typeof tenant>>;

/** Creates platform teams and returns their ids. */
export async function createTeams(count: number, prefix = "Team"): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    `select admin.create_team($1 || ' ' || lpad(i::text, 4, '0'), 'T' || i) as id
       from generate_series(1, $2) i order by i`,
    [prefix, count],
  );
  return rows.map((r) => r.id);
}

/** A valid tournament body, starting in 30 days. */
export function tournamentBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "Winter Cup",
    game_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
    team_size: 5,
    max_teams: 8,
    starts_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    ...overrides,
  };
}

/** Round robin's format_options as GET shows them (contract sections 10, 13 and 19: every default filled in), with `over`. */
export function roundRobinOptions(over: Record<string, unknown> = {}) {
  const loss = (over.points as { loss?: number } | undefined)?.loss ?? 0;
  return {
    groups: 1,
    draws: false,
    tie_breakers: ["head_to_head", "score_difference", "score_for"],
    best_of: 1,
    ...over,
    points: { win: 3, draw: 1, loss, forfeit_loss: loss, ...(over.points as object | undefined) },
  };
}

/** Swiss's format_options as GET shows them (contract sections 10, 13 and 19: every default filled in), with `over`. */
export function swissOptions(over: Record<string, unknown> = {}) {
  return {
    rounds: null,
    draws: false,
    points: { win: 1, draw: 0, loss: 0, forfeit_loss: 0 },
    tie_breakers: ["buchholz"],
    best_of: 1,
    ...over,
  };
}

/** Creates a tournament through the API and returns it. */
export async function createTournament(t: Tenant, overrides: Record<string, unknown> = {}) {
  const res = await t.request("POST", "/tournaments", { body: tournamentBody(overrides) });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/**
 * Creates a tournament with `fields` through the API, registers `teams` straight in SQL in this
 * order (paid; registration order gives the seeds: teams[i] is seed i + 1) and starts it;
 * `beforeStart` runs while it is still in registration (lineups, say).
 */
export async function startedTournament(
  fields: Record<string, unknown>,
  teams: string[],
  beforeStart?: (started: { t: Tenant; call: Call; id: string }) => Promise<void>,
) {
  const t = await tenant();
  const call = caller(t);
  const created = await call("POST", "/tournaments", { body: tournamentBody({ max_teams: Math.max(teams.length, 2), ...fields }) });
  expectStatus(created, 201);
  const id: string = created.body.data.id;
  await sql(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
    [id, t.accountId, teams],
  );
  if (beforeStart) await beforeStart({ t, call, id });
  expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "ongoing" } }), 200);
  return { t, call, id, tournament: created.body.data };
}

/** Asserts a status, printing the body when it differs. */
export function expectStatus(res: ApiResponse, status: number): void {
  if (res.status !== status) {
    throw new Error(`expected HTTP ${status}, got ${res.status}: ${res.text}`);
  }
}

/** Asserts an error response: status, `success: false`, the code, and that `details` name `fields`. */
export function expectError(res: ApiResponse, status: number, code: string, fields: string[] = []): void {
  expectStatus(res, status);
  expect(res.body.success, res.text).toBe(false);
  expect(res.body.error.code, res.text).toBe(code);
  expect(typeof res.body.error.message).toBe("string");
  const named = (res.body.error.details ?? []).map((d: { field: string }) => d.field);
  for (const field of fields) expect(named, res.text).toContain(field);
}

/** A request on one account, its key left to the caller (see caller()). */
export type Call = (method: string, path: string, options?: Omit<RequestOptions, "key">) => Promise<ApiResponse>;

/** A caller on the tenant's account that takes a fresh key every 90 requests (100 a minute per key). */
export function caller(t: Tenant): Call {
  let key = t.key;
  let used = 0;
  return async (method, path, options = {}) => {
    if (++used > 90) {
      key = (await t.newKey()).key;
      used = 1;
    }
    return request(method, path, { ...options, key });
  };
}

/** A game of a match's series. */
export interface Game {
  number: number;
  team1_score: number;
  team2_score: number;
  winner_id: string;
  map: string | null;
  reported_at: string;
}

/** A standings entry: the fields every format has, then those of the formats that add them. */
export interface Standing {
  position: number;
  team_id: string;
  team_name: string;
  team_tag: string;
}

/** Double elimination's and swiss's entries add the record. */
export interface RecordStanding extends Standing {
  wins: number;
  losses: number;
}

/** Swiss's entries add draws, points, Buchholz and what separated each from the one above (contract section 19). */
export interface SwissStanding extends RecordStanding {
  draws: number;
  points: number;
  buchholz: number;
  separated_by: string | null;
}

/** Round robin's entries add the group and points. */
export interface GroupStanding extends Standing {
  group?: number;
  group_position?: number;
  wins?: number;
  draws?: number;
  losses?: number;
  points?: number;
  separated_by?: string | null;
}

/** A match as GET /results returns it. */
export interface Match {
  id: string;
  stage: number;
  bracket: "winners" | "losers" | "grand_final" | "third_place" | null;
  group: number | null;
  loser_next_match_id: string | null;
  round: number;
  position: number;
  team1_id: string | null;
  team2_id: string | null;
  team1_seed: number | null;
  team2_seed: number | null;
  team1_score: number | null;
  team2_score: number | null;
  winner_id: string | null;
  draw: boolean;
  status: "pending" | "ready" | "completed" | "bye";
  forfeit: "team1" | "team2" | null;
  best_of: number;
  games: Game[];
  next_match_id: string | null;
  scheduled_at: string | null;
  completed_at: string | null;
  /** A free-for-all lobby's teams (contract section 20); null on a two-sided match. */
  opponents?: {
    team_id: string;
    team_name: string;
    team_tag: string;
    seed: number;
    placement: number | null;
    kills: number;
    points: number;
  }[] | null;
}

let functionPool: pg.Pool | undefined;

/**
 * Runs `fn` in a transaction as the function's role (tournament_api, logged in as it: `postgres`
 * may not SET ROLE to it, as on hosted Supabase), optionally with app.account_id set first
 * (which binds nothing: only api.call binds the account).
 */
export async function asFunctionRole<T>(accountId: string | null, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  // (An idle connection the server ends is dropped, as the admin pool's.)
  functionPool ??= new pg.Pool({ connectionString: inject("functionDbUrl"), max: 2 }).on("error", () => {});
  const client = await functionPool.connect();
  try {
    await client.query("begin");
    if (accountId) await client.query("select set_config('app.account_id', $1, true)", [accountId]);
    return await fn(client);
  } finally {
    await client.query("rollback").catch(() => {});
    client.release();
  }
}

/**
 * Runs `fn` in a transaction as tournament_api_owner, the role api.call runs as, with the
 * account bound the way api.call binds it: what the operations and RLS see inside api.call.
 */
export async function asOwnerRole<T>(accountId: string | null, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await admin().connect();
  try {
    await client.query("begin");
    await client.query("set local role tournament_api_owner");
    if (accountId) await client.query("select set_config('app.account_id', $1, true)", [accountId]);
    return await fn(client);
  } finally {
    await client.query("rollback").catch(() => {});
    client.release();
  }
}

/**
 * Sets a key's rate-limit ring (app.rate_limits) to hold requests made `agesSeconds` ago
 * (at most 100), as if they had been counted: oldest first, free slots after them.
 */
export async function setRateHits(keyId: string, agesSeconds: number[]): Promise<void> {
  await sql(
    `insert into app.rate_limits (api_key_id, account_id, next_slot, slots)
     select k.id, k.account_id, case when h.n < 100 then h.n + 1 else 1 end,
            h.hits || array_fill('-infinity'::timestamptz, array[100 - h.n])
       from app.api_keys k,
            lateral (select count(*)::int as n,
                            coalesce(array_agg(clock_timestamp() - make_interval(secs => a) order by a desc), '{}') as hits
                       from unnest($2::float8[]) a) h
      where k.id = $1
     on conflict (api_key_id) do update set next_slot = excluded.next_slot, slots = excluded.slots`,
    [keyId, agesSeconds],
  );
}

/** How many of the key's counted requests are inside the rolling 60-second window. */
export async function rateHits(keyId: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }>(
    `select count(*)::int as n from app.rate_limits r, unnest(r.slots) s
      where r.api_key_id = $1 and s > clock_timestamp() - interval '60 seconds'`,
    [keyId],
  );
  return n;
}

export { mulberry32, runSeed } from "./random.ts";

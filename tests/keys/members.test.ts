// Self-service keys (contract section 6, issue 4): account members are Supabase Auth users who
// see their accounts and keys through public.my_accounts / public.my_api_keys and create or
// revoke keys with supabase.rpc(...). Every statement below runs the way Supabase's PostgREST
// runs a request: one transaction, `set local role`, and the JWT's claims in
// request.jwt.claims (transaction-local); it commits on success, as PostgREST does.
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { isWellFormedKey } from "../../functions/api/keys.ts";
import { admin, ALL_SCOPES, type ApiResponse, createAccount, createKey, expectStatus, request, sql } from "../support/helpers.ts";

interface Outcome {
  rows: Record<string, unknown>[];
  code?: string;
  message?: string;
  hint?: string;
  detail?: string;
}

/** The claims Supabase Auth puts in an access token (PostgREST copies them to request.jwt.claims). */
function claimsFor(role: "authenticated" | "anon", sub: string | null): string {
  const now = Math.floor(Date.now() / 1000);
  return JSON.stringify({
    iss: "http://127.0.0.1:54321/auth/v1",
    aud: role,
    role,
    iat: now,
    exp: now + 3600,
    ...(sub ? { sub, email: `${sub}@example.com`, aal: "aal1", session_id: crypto.randomUUID(), is_anonymous: false } : {}),
  });
}

/**
 * Runs one statement as a client role in its own transaction, like one PostgREST request.
 * `sub` null: a token without a user (anon's token); `claims: false`: no claims at all.
 */
async function as(
  role: "authenticated" | "anon",
  sub: string | null,
  text: string,
  values: unknown[] = [],
  { claims = true } = {},
): Promise<Outcome> {
  const client = await admin().connect();
  try {
    await client.query("begin");
    await client.query(`set local role ${role}`);
    if (claims) await client.query("select set_config('request.jwt.claims', $1, true)", [claimsFor(role, sub)]);
    const r = await client.query(text, values);
    await client.query("commit");
    return { rows: r.rows };
  } catch (err) {
    await client.query("rollback").catch(() => {});
    const e = err as { code: string; message: string; hint?: string; detail?: string };
    return { rows: [], code: e.code, message: e.message, hint: e.hint, detail: e.detail };
  } finally {
    client.release();
  }
}
const asUser = (sub: string, text: string, values: unknown[] = []) => as("authenticated", sub, text, values);

/** A Supabase Auth user (inserted by the operator), member of the given accounts. */
async function member(...accountIds: string[]): Promise<string> {
  const [{ id }] = await sql<{ id: string }>(
    "insert into auth.users (id, email) values (gen_random_uuid(), gen_random_uuid() || '@example.com') returning id",
  );
  for (const accountId of accountIds) await sql("select admin.add_account_member($1, $2)", [accountId, id]);
  return id;
}

// supabase.rpc(...) sends named arguments; so do these.
const CREATE = "select * from public.create_account_api_key(p_account_id => $1, p_name => $2, p_scopes => $3)";
const CREATE_EXPIRING = "select * from public.create_account_api_key(p_account_id => $1, p_name => $2, p_scopes => $3, p_expires_at => $4)";
const REVOKE = "select public.revoke_account_api_key(p_key_id => $1)";

const keysOf = async (accountId: string) =>
  (await sql("select id from app.api_keys where account_id = $1 order by id", [accountId])).map((r) => r.id);
const revokedAt = async (keyId: string) => (await sql("select revoked_at from app.api_keys where id = $1", [keyId]))[0].revoked_at;

function expectUnauthorized(res: ApiResponse) {
  expectStatus(res, 401);
  expect(res.body.error.code, res.text).toBe("unauthorized");
}

// Two accounts of one member (a1, a2) and an account of someone else (b), each with a key.
let a1: string, a2: string, b: string;
let alice: string, bob: string, stranger: string;
let keyA1: { id: string; key: string }, keyA2: { id: string; key: string }, keyB: { id: string; key: string };

beforeAll(async () => {
  [a1, a2, b] = await Promise.all([createAccount(true, "Members A1"), createAccount(true, "Members A2"), createAccount(true, "Members B")]);
  [keyA1, keyA2, keyB] = await Promise.all([createKey(a1), createKey(a2), createKey(b)]);
  alice = await member(a1, a2);
  bob = await member(b);
  stranger = await member();
});

// ---------------------------------------------------------------------------------------------
describe("what a member reads", () => {
  it("public.my_accounts lists exactly the member's accounts, with their non-secret columns", async () => {
    const r = await asUser(alice, "select * from public.my_accounts order by name");
    expect(r.code, r.message).toBeUndefined();
    expect(r.rows.map((x) => x.id)).toEqual([a1, a2]);
    expect(Object.keys(r.rows[0]).sort()).toEqual(["api_access_enabled", "created_at", "id", "name"]);
    expect(r.rows[0]).toMatchObject({ name: "Members A1", api_access_enabled: true });
    const other = await asUser(bob, "select id from public.my_accounts");
    expect(other.rows).toEqual([{ id: b }]);
  });

  it("public.my_accounts and app.accounts show nothing of another account, even asked by id", async () => {
    for (const statement of ["select id from public.my_accounts where id = $1", "select id from app.accounts where id = $1"]) {
      const r = await asUser(alice, statement, [b]);
      expect(r.code, r.message).toBeUndefined();
      expect(r.rows, statement).toEqual([]);
    }
    const none = await asUser(stranger, "select id from public.my_accounts");
    expect(none.rows).toEqual([]);
  });

  it("public.my_api_keys lists exactly the keys of the member's accounts, without hash or rate-limit state", async () => {
    const r = await asUser(alice, "select * from public.my_api_keys");
    expect(r.code, r.message).toBeUndefined();
    const ids = r.rows.map((x) => x.id).sort();
    expect(ids).toEqual([...(await keysOf(a1)), ...(await keysOf(a2))].sort());
    expect(ids).toContain(keyA1.id);
    expect(ids).toContain(keyA2.id);
    expect(ids).not.toContain(keyB.id);
    expect(Object.keys(r.rows[0]).sort()).toEqual(
      ["account_id", "created_at", "expires_at", "id", "last_used_at", "name", "prefix", "revoked_at", "scopes"],
    );
    const mine = r.rows.find((x) => x.id === keyA1.id)!;
    expect(mine).toMatchObject({ account_id: a1, prefix: keyA1.key.slice(0, 12), revoked_at: null });
    expect([...(mine.scopes as string[])].sort()).toEqual([...ALL_SCOPES].sort());
    const theirs = await asUser(alice, "select id from public.my_api_keys where id = $1", [keyB.id]);
    expect(theirs.rows).toEqual([]);
    expect((await asUser(stranger, "select id from public.my_api_keys")).rows).toEqual([]);
  });

  it("app.api_keys is limited by RLS to the member's accounts for the readable columns", async () => {
    const r = await asUser(alice, "select id, account_id from app.api_keys");
    expect(r.code, r.message).toBeUndefined();
    expect(new Set(r.rows.map((x) => x.account_id))).toEqual(new Set([a1, a2]));
  });

  it.each([
    ["select * from app.api_keys"],
    ["select key_hash from app.api_keys"],
    ["select * from app.rate_limits"],
    ["select id from app.api_keys where key_hash = $1"],
    ["select id from app.api_keys order by key_hash"],
  ])("%s is a permission error, so a hash can be neither read nor probed", async (statement) => {
    const values = statement.includes("$1") ? [createHash("sha256").update(keyA1.key).digest()] : [];
    const r = await asUser(alice, statement, values);
    expect(r.code, r.message).toBe("42501");
    expect(r.message).toMatch(/permission denied/);
  });

  it("app.account_members shows a member only their own memberships", async () => {
    const r = await asUser(alice, "select account_id, user_id from app.account_members");
    expect(r.code, r.message).toBeUndefined();
    expect(r.rows).toHaveLength(2);
    expect(r.rows).toEqual(expect.arrayContaining([{ account_id: a1, user_id: alice }, { account_id: a2, user_id: alice }]));
    const other = await asUser(alice, "select * from app.account_members where account_id = $1", [b]);
    expect(other.rows).toEqual([]);
  });

  it("a member cannot write: no joining another account, no un-revoking or renaming keys", async () => {
    for (
      const [statement, values] of [
        ["insert into app.account_members (account_id, user_id) values ($1, $2)", [b, alice]],
        ["update app.account_members set account_id = $1", [b]],
        ["delete from app.account_members", []],
        ["update public.my_api_keys set revoked_at = null, name = 'renamed'", []],
        ["update app.api_keys set expires_at = null", []],
        ["delete from public.my_api_keys", []],
        ["insert into public.my_accounts (name) values ('Sneaky')", []],
        ["update app.accounts set api_access_enabled = true", []],
      ] as const
    ) {
      const r = await asUser(alice, statement, [...values]);
      expect(r.code, `${statement}: ${r.message}`).toBe("42501");
    }
    const [{ n }] = await sql("select count(*)::int n from app.account_members where user_id = $1", [alice]);
    expect(n).toBe(2);
  });

  it("a member cannot call the operator's functions", async () => {
    for (
      const statement of [
        `select admin.add_account_member('${b}', '${alice}')`,
        `select * from admin.create_api_key('${a1}', 'direct', array['read:tournaments'])`,
        `select admin.revoke_api_key('${keyB.id}')`,
        `select admin.set_api_access('${a1}', false)`,
      ]
    ) {
      expect((await asUser(alice, statement)).code, statement).toBe("42501");
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe("public.create_account_api_key and public.revoke_account_api_key for a member", () => {
  it("creates a key that works against the API, and revoking it makes the API answer 401", async () => {
    const created = await asUser(alice, CREATE, [a1, "  CI deploys  ", ["read:tournaments", "read:results"]]);
    expect(created.code, created.message).toBeUndefined();
    expect(created.rows).toHaveLength(1);
    const { id, key } = created.rows[0] as { id: string; key: string };
    expect(Object.keys(created.rows[0]).sort()).toEqual(["id", "key"]);
    expect(isWellFormedKey(key)).toBe(true);

    const listed = await asUser(alice, "select name, prefix, scopes, revoked_at from public.my_api_keys where id = $1", [id]);
    expect(listed.rows).toEqual([{
      name: "CI deploys",
      prefix: key.slice(0, 12),
      scopes: ["read:results", "read:tournaments"],
      revoked_at: null,
    }]);

    const ok = await request("GET", "/tournaments", { key });
    expectStatus(ok, 200);
    expect(ok.body.success).toBe(true);
    const forbidden = await request("POST", "/tournaments", { key, body: {} });
    expectStatus(forbidden, 403);
    expect(forbidden.body.error.code, forbidden.text).toBe("insufficient_scope");

    const revoked = await asUser(alice, REVOKE, [id]);
    expect(revoked.code, revoked.message).toBeUndefined();
    expect(await revokedAt(id)).toBeInstanceOf(Date);
    expectUnauthorized(await request("GET", "/tournaments", { key }));
    const after = await asUser(alice, "select revoked_at from public.my_api_keys where id = $1", [id]);
    expect(after.rows[0].revoked_at).toBeInstanceOf(Date);
    // Revoking again is harmless, and the other keys of the account still work.
    expect((await asUser(alice, REVOKE, [id])).code).toBeUndefined();
    expectStatus(await request("GET", "/tournaments", { key: keyA1.key }), 200);
  });

  it("creates a key with an expiry for any of the member's accounts", async () => {
    const expires = new Date(Date.now() + 3_600_000);
    const r = await asUser(alice, CREATE_EXPIRING, [a2, "expiring", ["read:tournaments"], expires]);
    expect(r.code, r.message).toBeUndefined();
    const [stored] = await sql("select account_id, expires_at from app.api_keys where id = $1", [r.rows[0].id]);
    expect(stored.account_id).toBe(a2);
    expect(stored.expires_at.getTime()).toBe(expires.getTime());
    expectStatus(await request("GET", "/tournaments", { key: r.rows[0].key as string }), 200);
  });

  it.each([
    ["an unknown scope", ["read:tournaments", "admin:everything"], null, /admin:everything/],
    ["no scope", [], null, /scope/],
    ["a null scope (which the key check would read as every scope)", ["read:results", null], null, /null/],
    ["an expiry in the past", ["read:tournaments"], new Date(Date.now() - 60_000), /expires_at/],
  ])("refuses %s with 22023 and stores nothing", async (_what, scopes, expires, message) => {
    const before = await keysOf(a1);
    const r = await asUser(alice, CREATE_EXPIRING, [a1, "bad", scopes, expires]);
    expect(r.code, r.message).toBe("22023");
    expect(r.message).toMatch(message);
    expect(await keysOf(a1)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------
describe("refusals", () => {
  it("refuses a non-member's create with 42501, the same for an existing and an unknown account", async () => {
    const before = await keysOf(a1);
    const theirs = await asUser(bob, CREATE, [a1, "intruder", ["read:tournaments"]]);
    expect(theirs.code, theirs.message).toBe("42501");
    const unknownId = crypto.randomUUID();
    const unknown = await asUser(bob, CREATE, [unknownId, "intruder", ["read:tournaments"]]);
    expect(unknown.code, unknown.message).toBe("42501");
    expect(theirs.message!.replace(a1, "<id>")).toBe(unknown.message!.replace(unknownId, "<id>"));
    // A user with no membership at all, and with invalid input: still 42501 (nothing is validated first).
    const none = await asUser(stranger, CREATE, [a1, "intruder", ["admin:everything"]]);
    expect(none.code, none.message).toBe("42501");
    expect(await keysOf(a1)).toEqual(before);
  });

  it("answers a non-member's revoke of another account's key exactly as for an unknown key (P0002), and the key keeps working", async () => {
    const theirs = await asUser(alice, REVOKE, [keyB.id]);
    expect(theirs.code, theirs.message).toBe("P0002");
    const unknownId = crypto.randomUUID();
    const unknown = await asUser(alice, REVOKE, [unknownId]);
    expect(unknown.code, unknown.message).toBe("P0002");
    expect(theirs.message!.replace(keyB.id, "<id>")).toBe(unknown.message!.replace(unknownId, "<id>"));
    expect(await revokedAt(keyB.id)).toBeNull();
    expectStatus(await request("GET", "/tournaments", { key: keyB.key }), 200);
  });

  it("refuses `authenticated` without claims (no signed-in user): 42501 to create, P0002 to revoke, no rows", async () => {
    const before = await keysOf(a1);
    const create = await as("authenticated", null, CREATE, [a1, "nobody", ["read:tournaments"]], { claims: false });
    expect(create.code, create.message).toBe("42501");
    const createNoSub = await as("authenticated", null, CREATE, [a1, "nobody", ["read:tournaments"]]);
    expect(createNoSub.code, createNoSub.message).toBe("42501");
    const revoke = await as("authenticated", null, REVOKE, [keyA1.id], { claims: false });
    expect(revoke.code, revoke.message).toBe("P0002");
    expect(await revokedAt(keyA1.id)).toBeNull();
    expect(await keysOf(a1)).toEqual(before);
    for (const view of ["public.my_accounts", "public.my_api_keys", "app.account_members"]) {
      const r = await as("authenticated", null, `select * from ${view}`, [], { claims: false });
      expect(r.code, `${view}: ${r.message}`).toBeUndefined();
      expect(r.rows, view).toEqual([]);
    }
  });

  it("gives anon nothing: neither function nor view, even with a member's id in the claims", async () => {
    const before = await keysOf(a1);
    for (const sub of [null, alice]) {
      // Refused by the object's own privilege (not only by something behind it).
      for (
        const [statement, values, refusedBy] of [
          [CREATE, [a1, "anon", ["read:tournaments"]], "function create_account_api_key"],
          [REVOKE, [keyA1.id], "function revoke_account_api_key"],
          ["select * from public.my_accounts", [], "view my_accounts"],
          ["select * from public.my_api_keys", [], "view my_api_keys"],
          ["select * from app.account_members", [], "schema app"],
          ["select id from app.api_keys", [], "schema app"],
        ] as const
      ) {
        const r = await as("anon", sub, statement, [...values]);
        expect(r.code, `anon (sub ${sub}): ${statement}: ${r.message}`).toBe("42501");
        expect(r.message).toBe(`permission denied for ${refusedBy}`);
      }
    }
    expect(await revokedAt(keyA1.id)).toBeNull();
    expect(await keysOf(a1)).toEqual(before);
  });

  it("ends a membership when the Supabase Auth user is deleted", async () => {
    const leaving = await member(a1);
    expect((await asUser(leaving, "select id from public.my_accounts")).rows).toEqual([{ id: a1 }]);
    await sql("delete from auth.users where id = $1", [leaving]);
    expect(await sql("select * from app.account_members where user_id = $1", [leaving])).toEqual([]);
    expect((await asUser(leaving, CREATE, [a1, "ghost", ["read:tournaments"]])).code).toBe("42501");
  });
});

// ---------------------------------------------------------------------------------------------
describe("documented errors (README, Self-service keys): a stable SQLSTATE and hint, a clean message", () => {
  it.each([
    ["an empty name", "  ", ["read:tournaments"], null, "22023", "invalid_name"],
    ["a name over 200 characters", "n".repeat(201), ["read:tournaments"], null, "22023", "invalid_name"],
    ["a null name", null, ["read:tournaments"], null, "22023", "invalid_name"],
    ["no scope", "ci", [], null, "22023", "invalid_scopes"],
    ["an unknown scope", "ci", ["admin:everything"], null, "22023", "invalid_scopes"],
    ["a null scope", "ci", [null], null, "22023", "invalid_scopes"],
    ["an expiry in the past", "ci", ["read:tournaments"], new Date(Date.now() - 60_000), "22023", "invalid_expiry"],
  ])("refuses %s with %s and never echoes a row", async (_what, name, scopes, expires, code, hint) => {
    const [account] = [await createAccount(true)];
    const user = await member(account);
    const before = await sql("select count(*)::int n from app.api_keys where account_id = $1", [account]);
    const r = await asUser(user, CREATE_EXPIRING, [account, name, scopes, expires]);
    expect({ code: r.code, hint: r.hint }, r.message).toEqual({ code, hint });
    for (const text of [r.message ?? "", r.detail ?? ""]) {
      expect(text).not.toMatch(/failing row|tmk_|\\x/i);
      expect(text).not.toContain(account);
    }
    expect(await sql("select count(*)::int n from app.api_keys where account_id = $1", [account])).toEqual(before);
  });

  it("answers a non-member 42501 not_a_member and an unknown key P0002 key_not_found", async () => {
    const account = await createAccount(true);
    const outsider = await member();
    const create = await asUser(outsider, CREATE, [account, "x", ["read:tournaments"]]);
    expect({ code: create.code, hint: create.hint }).toEqual({ code: "42501", hint: "not_a_member" });
    const revoke = await asUser(outsider, REVOKE, [crypto.randomUUID()]);
    expect({ code: revoke.code, hint: revoke.hint }).toEqual({ code: "P0002", hint: "key_not_found" });
  });
});

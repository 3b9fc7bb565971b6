// SQL-level isolation (contract section 1) and the operator functions (section 6), through `pg`
// as the role the operations run as inside api.call (tournament_api_owner, with the account
// bound the way api.call binds it), as Supabase's client roles and as the operator. What the
// function's own role (tournament_api) cannot do is in tests/database/function-role.test.ts.
import { createHash } from "node:crypto";
import pg from "pg";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { isWellFormedKey } from "../../functions/api/keys.ts";
import {
  ALL_SCOPES,
  asOwnerRole,
  createAccount,
  createKey,
  createTeams,
  createTournament,
  expectStatus,
  sql,
  type Tenant,
  tenant,
} from "../support/helpers.ts";

interface Outcome {
  rows: Record<string, unknown>[];
  rowCount: number | null;
  code?: string;
  message?: string;
}

/** Runs one statement in its own transaction as tournament_api_owner (optionally bound to an account). */
function asApi(accountId: string | null, text: string, values: unknown[] = []): Promise<Outcome> {
  return asOwnerRole(accountId, async (c) => {
    try {
      const r = await c.query(text, values);
      return { rows: r.rows, rowCount: r.rowCount };
    } catch (err) {
      const e = err as { code: string; message: string };
      return { rows: [], rowCount: null, code: e.code, message: e.message };
    }
  });
}

/**
 * Runs one statement in its own transaction as another role, the way Supabase's API does;
 * the claims' user is `sub` (default: a random user, a member of no account).
 */
async function asRole(role: string, text: string, values: unknown[] = [], sub: string = crypto.randomUUID()): Promise<Outcome> {
  const client = new pg.Client({ connectionString: inject("adminDbUrl") });
  await client.connect();
  try {
    await client.query("begin");
    await client.query(`set local role ${role}`);
    await client.query("select set_config('request.jwt.claims', $1, true)", [JSON.stringify({ role, sub })]);
    const r = await client.query(text, values);
    return { rows: r.rows, rowCount: r.rowCount };
  } catch (err) {
    const e = err as { code: string; message: string };
    return { rows: [], rowCount: null, code: e.code, message: e.message };
  } finally {
    await client.query("rollback").catch(() => {});
    await client.end();
  }
}

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/** An account with an ongoing tournament (2 registrations, 1 match) and a second, open one. */
async function populated(): Promise<Tenant & { tournamentIds: string[] }> {
  const t = await tenant();
  const ongoing = await createTournament(t, { name: "RLS Ongoing" });
  const open = await createTournament(t, { name: "RLS Open" });
  const teams = await createTeams(3, "RLS");
  for (const team_id of teams.slice(0, 2)) {
    expectStatus(await t.request("POST", `/tournaments/${ongoing.id}/registrations`, { body: { team_id } }), 201);
  }
  expectStatus(await t.request("POST", `/tournaments/${open.id}/registrations`, { body: { team_id: teams[2] } }), 201);
  expectStatus(await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { status: "ongoing" } }), 200);
  return { ...t, tournamentIds: [ongoing.id, open.id] };
}

let a: Awaited<ReturnType<typeof populated>>;
let b: Awaited<ReturnType<typeof populated>>;
let appTables: string[];
let memberOfA: string;

beforeAll(async () => {
  [a, b] = await Promise.all([populated(), populated()]);
  [{ id: memberOfA }] = await sql(
    "insert into auth.users (id, email) values (gen_random_uuid(), gen_random_uuid() || '@example.com') returning id",
  );
  await sql("select admin.add_account_member($1, $2)", [a.accountId, memberOfA]);
  appTables = (await sql<{ t: string }>("select tablename t from pg_tables where schemaname = 'app' order by 1")).map((r) => r.t);
});

// ---------------------------------------------------------------------------------------------
describe("row-level security inside api.call (tournament_api_owner)", () => {
  it("every app table holding account data has rows (so the checks below mean something)", async () => {
    for (const table of ["accounts", "api_keys", "teams", "tournaments", "registrations", "matches"]) {
      expect(appTables).toContain(table);
      const [{ n }] = await sql(`select count(*)::int n from app.${table}`);
      expect(n, table).toBeGreaterThan(0);
    }
  });

  it("shows nothing in any app table when no account is bound (api_keys, account_members, webhook_intents, webhook_sleepers, streams, address_limits, pictures: no access at all)", async () => {
    // webhook_intents and webhook_sleepers: used by the webhook triggers and the dispatcher's door alone (security definer)
    // streams: the live stream's leases, kept through security definer functions alone
    // address_limits: the public routes' per-address counts, kept by a security definer function alone
    // pictures: the public PNGs kept once drawn, read and written by security definer functions alone
    const noAccess = ["api_keys", "account_members", "webhook_intents", "webhook_sleepers", "streams", "address_limits", "pictures"];
    for (const table of appTables) {
      const r = await asApi(null, `select * from app.${table}`);
      if (noAccess.includes(table)) {
        expect(r.code, table).toBe("42501");
      } else {
        expect(r.code, `${table}: ${r.message}`).toBeUndefined();
        expect(r.rows, table).toEqual([]);
      }
    }
  });

  it("stores no reg* column anywhere in app (such columns block pg_upgrade), and no operation registry", async () => {
    const reg = await sql(
      `select c.relname, a.attname, a.atttypid::regtype::text t
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname in ('app', 'api', 'admin') and a.attnum > 0 and not a.attisdropped
          and a.atttypid::regtype::text ~ '^reg'`,
    );
    expect(reg).toEqual([]);
    expect(appTables).not.toContain("operations");
  });

  it("shows a key's rate-limit ring only to its own account", async () => {
    const mine = await asApi(a.accountId, "select api_key_id, account_id from app.rate_limits");
    expect(mine.code, mine.message).toBeUndefined();
    expect(mine.rows.length).toBeGreaterThan(0);
    expect(new Set(mine.rows.map((r) => r.account_id))).toEqual(new Set([a.accountId]));
    const theirs = await asApi(a.accountId, "update app.rate_limits set next_slot = 1 where account_id = $1", [b.accountId]);
    expect(theirs.rowCount).toBe(0);
  });

  it("shows only the bound account's tournaments, registrations, matches and account row", async () => {
    for (const table of ["tournaments", "registrations", "matches"]) {
      const mine = await sql(`select id from app.${table} where account_id = $1 order by id`, [a.accountId]);
      expect(mine.length, table).toBeGreaterThan(0);
      const seen = await asApi(a.accountId, `select id, account_id from app.${table} order by id`);
      expect(seen.code).toBeUndefined();
      expect(seen.rows.map((r) => r.id), table).toEqual(mine.map((r) => r.id));
      expect(new Set(seen.rows.map((r) => r.account_id)), table).toEqual(new Set([a.accountId]));
    }
    const accounts = await asApi(a.accountId, "select id from app.accounts");
    expect(accounts.rows).toEqual([{ id: a.accountId }]);
  });

  it("shows every platform team once an account is bound", async () => {
    const [{ n }] = await sql("select count(*)::int n from app.teams");
    const r = await asApi(a.accountId, "select count(*)::int n from app.teams");
    expect(r.rows[0].n).toBe(n);
  });

  it("cannot look up another account's rows by id", async () => {
    for (const table of ["tournaments", "registrations", "matches"]) {
      const theirs = await sql(`select id from app.${table} where account_id = $1`, [b.accountId]);
      const r = await asApi(a.accountId, `select id from app.${table} where id = any($1::uuid[])`, [theirs.map((x) => x.id)]);
      expect(r.rows, table).toEqual([]);
    }
  });

  it("cannot insert a tournament for another account", async () => {
    const r = await asApi(
      a.accountId,
      `insert into app.tournaments (account_id, name, slug, game_id, team_size, max_teams, starts_at, registration_closes)
       values ($1, 'Planted', 'planted-' || gen_random_uuid(), gen_random_uuid(), 5, 8, now() + interval '1 day', now() + interval '1 day')`,
      [b.accountId],
    );
    expect(r.code, r.message).toBe("42501");
  });

  it("can insert a tournament for the bound account (the policy is not simply deny-all)", async () => {
    const r = await asApi(
      a.accountId,
      `insert into app.tournaments (account_id, name, slug, game_id, team_size, max_teams, starts_at, registration_closes)
       values ($1, 'Own', 'own-' || gen_random_uuid(), gen_random_uuid(), 5, 8, now() + interval '1 day', now() + interval '1 day')
       returning account_id`,
      [a.accountId],
    );
    expect(r.code, r.message).toBeUndefined();
    expect(r.rows).toEqual([{ account_id: a.accountId }]);
  });

  it("cannot insert a registration or a match into another account's tournament", async () => {
    const [team] = await createTeams(1, "Planted");
    const theirs = b.tournamentIds[1];
    const asTheirs = await asApi(
      a.accountId,
      "insert into app.registrations (tournament_id, account_id, team_id, payment_status) values ($1, $2, $3, 'complete')",
      [theirs, b.accountId, team],
    );
    expect(asTheirs.code, asTheirs.message).toBe("42501");
    const asMine = await asApi(
      a.accountId,
      "insert into app.registrations (tournament_id, account_id, team_id, payment_status) values ($1, $2, $3, 'complete')",
      [theirs, a.accountId, team],
    );
    expect(["42501", "23503"], asMine.message).toContain(asMine.code);
    const match = await asApi(a.accountId, "insert into app.matches (tournament_id, account_id, round, position) values ($1, $2, 9, 9)", [
      theirs,
      b.accountId,
    ]);
    expect(match.code, match.message).toBe("42501");
    const [{ n }] = await sql("select count(*)::int n from app.registrations where team_id = $1", [team]);
    expect(n).toBe(0);
  });

  it("cannot update or delete another account's rows, nor move its own rows to another account", async () => {
    const before = await sql("select * from app.tournaments where account_id = $1 order by id", [b.accountId]);
    const update = await asApi(a.accountId, "update app.tournaments set name = 'Hijacked' where account_id = $1", [b.accountId]);
    expect(update.rowCount).toBe(0);
    const del = await asApi(a.accountId, "delete from app.tournaments where account_id = $1", [b.accountId]);
    expect(del.rowCount).toBe(0);
    const matches = await asApi(a.accountId, "update app.matches set team1_score = 99 where account_id = $1", [b.accountId]);
    expect(matches.rowCount).toBe(0);
    const move = await asApi(a.accountId, "update app.tournaments set account_id = $2 where id = $1", [a.tournamentIds[0], b.accountId]);
    expect(move.code, move.message).toBe("42501");
    expect(await sql("select * from app.tournaments where account_id = $1 order by id", [b.accountId])).toEqual(before);
  });

  it("cannot write accounts, make teams for another account, nor change what RLS keeps from it", async () => {
    for (
      const statement of [
        "insert into app.accounts (name) values ('Sneaky')",
        "update app.accounts set api_access_enabled = true",
        "insert into app.teams (name, tag) values ('Sneaky', 'SN')", // no owner: a platform team
        "delete from app.teams",
        "update app.registrations set team_id = gen_random_uuid()",
        "update app.teams set account_id = null",
      ]
    ) {
      const r = await asApi(a.accountId, statement);
      expect(r.code, statement).toBe("42501");
    }
    // Its own account's registrations and teams it may change; the others' are out of sight.
    const [team] = await sql<{ id: string }>("select admin.create_team('Platform RLS', 'PR') as id");
    for (
      const statement of [
        "update app.registrations set payment_status = 'refunded' where account_id <> $1",
        "delete from app.registrations where account_id <> $1",
        `update app.teams set name = 'Hijacked' where account_id is distinct from $1 or id = '${team.id}'`,
      ]
    ) {
      const r = await asApi(a.accountId, statement, [a.accountId]);
      expect({ code: r.code, rowCount: r.rowCount }, statement).toEqual({ code: undefined, rowCount: 0 });
    }
    const theirs = await asApi(a.accountId, "insert into app.teams (name, tag, account_id) values ('Sneaky', 'SN', $1)", [b.accountId]);
    expect(theirs.code).toBe("42501");
  });

  it("cannot read app.api_keys (keys are found through app.find_api_key) nor app.account_members, even with an account bound", async () => {
    for (
      const statement of [
        "select * from app.api_keys",
        "select count(*) from app.api_keys",
        "select key_hash from app.api_keys where account_id = $1",
        "select * from app.account_members",
        "select user_id from app.account_members where account_id = $1",
      ]
    ) {
      const values = statement.includes("$1") ? [a.accountId] : [];
      expect((await asApi(a.accountId, statement, values)).code, statement).toBe("42501");
      expect((await asApi(null, statement, values)).code, statement).toBe("42501");
    }
  });

  it("cannot execute any admin.* function", async () => {
    const fns = await sql<{ oid: number; sig: string }>(
      "select p.oid::int, p.oid::regprocedure::text sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'admin'",
    );
    expect(fns.map((f) => f.sig).sort()).toEqual(expect.arrayContaining([
      "admin.create_account(text)",
      "admin.create_api_key(uuid,text,text[],timestamp with time zone)",
      "admin.create_team(text,text,text)",
      "admin.revoke_api_key(uuid)",
      "admin.set_api_access(uuid,boolean)",
      "admin.add_account_member(uuid,uuid)",
    ]));
    for (const f of fns) {
      for (const role of ["tournament_api", "tournament_api_owner"]) {
        const [{ ok }] = await sql("select has_function_privilege($1, $2::oid, 'execute') ok", [role, f.oid]);
        expect(ok, `${role}: ${f.sig}`).toBe(false);
      }
    }
    for (
      const call of [
        "select admin.create_account('Sneaky')",
        `select admin.set_api_access('${a.accountId}', true)`,
        `select * from admin.create_api_key('${a.accountId}', 'sneaky', array['read:tournaments'])`,
        `select admin.revoke_api_key('${a.keyId}')`,
        "select admin.create_team('Sneaky', 'SN')",
        `select admin.add_account_member('${a.accountId}', '${memberOfA}')`,
        // nor the members' functions
        `select * from public.create_account_api_key('${a.accountId}', 'sneaky', array['read:tournaments'])`,
        `select public.revoke_account_api_key('${a.keyId}')`,
        `select app.is_member('${a.accountId}')`,
      ]
    ) {
      expect((await asApi(a.accountId, call)).code, call).toBe("42501");
    }
  });

  it("binds the account only for the transaction of api.call", async () => {
    const client = new pg.Client({ connectionString: inject("functionDbUrl") });
    await client.connect();
    try {
      const { rows: [who] } = await client.query("select current_user u");
      expect(who.u).toBe("tournament_api");
      const { rows: [call] } = await client.query(
        "select auth, error, result from api.call($1, 'read:tournaments', 'tournaments.list', '{}'::jsonb)",
        [sha256(a.key)],
      );
      expect(call.auth.account_id).toBe(a.accountId);
      expect(call.error).toBeNull();
      const listed = call.result.data.map((t: { id: string }) => t.id).sort();
      const own = (await sql("select id from app.tournaments where account_id = $1", [a.accountId])).map((r) => r.id).sort();
      expect(listed).toEqual(own);
      const { rows: [after] } = await client.query("select coalesce(current_setting('app.account_id', true), '') v");
      expect(after.v).toBe("");
      await expect(client.query("select count(*)::int n from app.tournaments")).rejects.toThrow(/permission denied/);
      const { rows: [refused] } = await client.query(
        "select auth, result from api.call($1, 'read:tournaments', 'tournaments.list', '{}'::jsonb)",
        [sha256("tmk_nope")],
      );
      expect(refused.auth.error).toBe("unauthorized");
      expect(refused.result).toBeNull();
    } finally {
      await client.end();
    }
  });
});

// ---------------------------------------------------------------------------------------------
describe("Supabase client roles", () => {
  const clientRoles = ["anon", "authenticated"];
  // What account members read (public.my_accounts / my_api_keys are security_invoker views over
  // these): the non-secret columns, rows limited by RLS to their accounts. Nothing else in app.
  const memberColumns: Record<string, string[]> = {
    account_members: ["account_id", "user_id", "created_at"],
    accounts: ["id", "name", "api_access_enabled", "created_at"],
    // (tournament_id: public.my_api_keys lists API keys only, not participant tokens)
    api_keys: ["id", "account_id", "name", "prefix", "scopes", "expires_at", "revoked_at", "created_at", "last_used_at", "tournament_id"],
  };

  it.each([
    ["anon", []],
    ["authenticated", ["app"]], // only for the member views; no object in app without its own grant
  ])("%s has usage on schemas %j only, of app, api and admin", async (role, usable) => {
    for (const schema of ["app", "api", "admin"]) {
      const [{ ok }] = await sql("select has_schema_privilege($1, $2, 'usage') ok", [role, schema]);
      expect(ok, `${role} on ${schema}`).toBe(usable.includes(schema));
    }
  });

  it("anon cannot read any table in app", async () => {
    for (const table of appTables) {
      const r = await asRole("anon", `select * from app.${table} limit 1`);
      expect(r.code, `anon reading ${table}`).toBe("42501");
    }
  });

  it("authenticated reads only the member columns of accounts, api_keys and account_members, and nothing else in app", async () => {
    for (const table of appTables) {
      if (table in memberColumns) continue;
      const r = await asRole("authenticated", `select * from app.${table} limit 1`);
      expect(r.code, `authenticated reading ${table}: ${r.message}`).toBe("42501");
    }
    for (const table of ["tournaments", "registrations", "matches", "teams", "rate_limits"]) expect(appTables).toContain(table);
    for (const [table, columns] of Object.entries(memberColumns)) {
      const r = await asRole("authenticated", `select ${columns.join(", ")} from app.${table}`);
      expect(r.code, `${table}: ${r.message}`).toBeUndefined();
    }
    for (
      const statement of [
        "select * from app.api_keys",
        "select key_hash from app.api_keys",
        "select * from app.rate_limits",
        "select id from app.api_keys where key_hash = '\\x00'::bytea",
      ]
    ) {
      expect((await asRole("authenticated", statement)).code, statement).toBe("42501");
    }
  });

  it("authenticated sees, through RLS, only the rows of the accounts it is a member of", async () => {
    const queries: [string, unknown[]][] = [
      ["select account_id from app.account_members", [a.accountId]],
      ["select id from app.accounts", [a.accountId]],
      ["select distinct account_id from app.api_keys", [a.accountId]],
    ];
    for (const [text, mine] of queries) {
      // a non-member (a random user) sees no row of tables that hold rows (checked above)
      const stranger = await asRole("authenticated", text);
      expect(stranger.code, `${text}: ${stranger.message}`).toBeUndefined();
      expect(stranger.rows, text).toEqual([]);
      // a's member sees a's rows and nothing of b (so the policies are not simply deny-all)
      const member = await asRole("authenticated", text, [], memberOfA);
      expect(member.rows.map((r) => Object.values(r)[0]), text).toEqual(mine);
    }
  });

  it.each(clientRoles)("%s cannot write any table in app", async (role) => {
    for (const table of appTables) {
      // the first column that an UPDATE may name (an identity or generated column is refused before the privilege check)
      const [{ col }] = await sql(
        `select attname col from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped
            and attidentity = '' and attgenerated = '' order by attnum limit 1`,
        [`app.${table}`],
      );
      for (
        const statement of [
          `insert into app.${table} default values`,
          `update app.${table} set ${col} = ${col}`,
          `delete from app.${table}`,
          `truncate app.${table}`,
        ]
      ) {
        const r = await asRole(role, statement, [], memberOfA);
        expect(r.code, `${role}: ${statement}: ${r.message}`).toBe("42501");
      }
    }
  });

  it.each(clientRoles)("%s cannot call api.call nor any admin.* function", async (role) => {
    for (
      const call of [
        "select * from api.call('\\x00'::bytea, 'read:tournaments', 'tournaments.list', '{}'::jsonb)",
        "select admin.create_account('Sneaky')",
        `select admin.set_api_access('${a.accountId}', true)`,
        `select * from admin.create_api_key('${a.accountId}', 'sneaky', array['read:tournaments'])`,
        "select admin.create_team('Sneaky', 'SN')",
        `select admin.add_account_member('${b.accountId}', '${memberOfA}')`,
      ]
    ) {
      expect((await asRole(role, call, [], memberOfA)).code, `${role}: ${call}`).toBe("42501");
    }
  });

  it("client roles hold exactly the member privileges in app, nothing in api or admin, and PUBLIC nothing in admin", async () => {
    const roles = ["anon", "authenticated", "service_role", "authenticator"];
    const fns = await sql(
      `select p.oid::regprocedure::text sig, r.rolname
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace, pg_roles r
        where n.nspname in ('app', 'api', 'admin') and r.rolname = any($1)
          and has_function_privilege(r.oid, p.oid, 'execute')`,
      [roles],
    );
    expect(fns).toEqual([{ sig: "app.is_member(uuid)", rolname: "authenticated" }]); // called by the member policies
    const tables = await sql(
      `select c.oid::regclass::text tbl, r.rolname, p.priv
         from pg_class c join pg_namespace n on n.oid = c.relnamespace, pg_roles r,
              unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p(priv)
        where n.nspname in ('app', 'api', 'admin') and c.relkind in ('r', 'v', 'm', 'p', 'S') and r.rolname = any($1)
          and has_table_privilege(r.oid, c.oid, p.priv)`,
      [roles],
    );
    expect(tables).toEqual([{ tbl: "app.account_members", rolname: "authenticated", priv: "select" }]);
    const columns = await sql(
      `select c.relname tbl, a.attname col, r.rolname, p.priv
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace,
              pg_roles r, unnest(array['select', 'insert', 'update', 'references']) p(priv)
        where n.nspname in ('app', 'api', 'admin') and c.relkind in ('r', 'v', 'm', 'p') and a.attnum > 0
          and not a.attisdropped and r.rolname = any($1)
          and has_column_privilege(r.oid, c.oid, a.attnum, p.priv)`,
      [roles],
    );
    const expected = Object.entries(memberColumns)
      .flatMap(([tbl, cols]) => cols.map((col) => ({ tbl, col, rolname: "authenticated", priv: "select" })));
    const key = (x: Record<string, unknown>) => `${x.tbl}.${x.col} ${x.rolname} ${x.priv}`;
    expect(columns.map(key).sort()).toEqual(expected.map(key).sort());
    const admins = await sql(
      `select p.oid::regprocedure::text sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'admin' and (p.proacl is null or exists (
          select from aclexplode(p.proacl) x where x.grantee = 0 and x.privilege_type = 'EXECUTE'))`,
    );
    expect(admins).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
describe("admin.create_account and admin.set_api_access", () => {
  it("creates an account with API access off", async () => {
    const [{ id }] = await sql("select admin.create_account('  Acme Esports  ') id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await sql("select name, api_access_enabled from app.accounts where id = $1", [id]);
    expect(row).toEqual({ name: "Acme Esports", api_access_enabled: false });
  });

  it("turns API access on and off", async () => {
    const id = await createAccount(false);
    await sql("select admin.set_api_access($1, true)", [id]);
    expect((await sql("select api_access_enabled e from app.accounts where id = $1", [id]))[0].e).toBe(true);
    await sql("select admin.set_api_access($1, false)", [id]);
    expect((await sql("select api_access_enabled e from app.accounts where id = $1", [id]))[0].e).toBe(false);
  });

  it("raises for an unknown account", async () => {
    await expect(sql("select admin.set_api_access($1, true)", [crypto.randomUUID()])).rejects.toThrow(/not found/);
  });
});

// ---------------------------------------------------------------------------------------------
describe("admin.create_api_key", () => {
  it("returns an id and a key tmk_ + 49 base62 characters with a valid checksum", async () => {
    const accountId = await createAccount(true);
    const [row] = await sql("select * from admin.create_api_key($1, 'ci', array['read:tournaments'])", [accountId]);
    expect(Object.keys(row).sort()).toEqual(["id", "key"]);
    expect(row.key).toMatch(/^tmk_[0-9A-Za-z]{49}$/);
    expect(isWellFormedKey(row.key)).toBe(true);
    const [stored] = await sql(
      "select account_id, name, prefix, scopes::text[] scopes, expires_at, revoked_at from app.api_keys where id = $1",
      [row.id],
    );
    expect(stored).toEqual({
      account_id: accountId,
      name: "ci",
      prefix: row.key.slice(0, 12),
      scopes: ["read:tournaments"],
      expires_at: null,
      revoked_at: null,
    });
  });

  it("stores only the key's SHA-256, never the key in plaintext anywhere", async () => {
    const accountId = await createAccount(true);
    const { id, key } = await createKey(accountId);
    const [stored] = await sql("select key_hash from app.api_keys where id = $1", [id]);
    expect(Buffer.compare(stored.key_hash, sha256(key))).toBe(0);
    const secret = key.slice(12); // everything past the visible prefix
    for (const table of appTables) {
      const [{ n }] = await sql(`select count(*)::int n from app.${table} t where t::text like '%' || $1 || '%'`, [secret]);
      expect(n, table).toBe(0);
    }
  });

  it("makes a different, random key every time", async () => {
    const accountId = await createAccount(true);
    const keys = await Promise.all(Array.from({ length: 20 }, () => createKey(accountId, ["read:results"])));
    expect(new Set(keys.map((k) => k.key)).size).toBe(20);
    expect(new Set(keys.map((k) => k.key.slice(4, 14))).size).toBe(20);
  });

  it("stores the scopes (each of the six allowed) without duplicates, and an expiry", async () => {
    const accountId = await createAccount(true);
    const expires = new Date(Date.now() + 86_400_000);
    const [row] = await sql("select * from admin.create_api_key($1, 'all', $2, $3)", [
      accountId,
      [...ALL_SCOPES, "read:tournaments"],
      expires,
    ]);
    const [stored] = await sql("select scopes::text[] scopes, expires_at from app.api_keys where id = $1", [row.id]);
    expect([...stored.scopes].sort()).toEqual([...ALL_SCOPES].sort());
    expect(stored.expires_at.getTime()).toBe(expires.getTime());
  });

  it.each([
    ["an unknown scope", ["read:tournaments", "admin:everything"], /admin:everything/],
    ["no scope", [], /scope/],
    ["a null scope (which would otherwise pass every scope check)", ["read:results", null], /unknown scope\(s\): null/],
  ])("raises for %s and stores nothing", async (_what, scopes, message) => {
    const accountId = await createAccount(true);
    await expect(sql("select * from admin.create_api_key($1, 'bad', $2)", [accountId, scopes])).rejects.toThrow(message);
    const [{ n }] = await sql("select count(*)::int n from app.api_keys where account_id = $1", [accountId]);
    expect(n).toBe(0);
  });

  it("refuses a null scope in app.api_keys itself, whatever the path", async () => {
    const accountId = await createAccount(true);
    await expect(sql(
      `insert into app.api_keys (account_id, name, prefix, key_hash, scopes)
       values ($1, 'direct', 'tmk_x', extensions.digest('x', 'sha256'), array['read:results', null]::app.scope[])`,
      [accountId],
    )).rejects.toThrow(/check constraint/);
  });

  it("raises for an expiry in the past and for an unknown account", async () => {
    const accountId = await createAccount(true);
    await expect(sql("select * from admin.create_api_key($1, 'old', array['read:tournaments'], now() - interval '1 minute')", [accountId]))
      .rejects.toThrow(/expires_at/);
    await expect(sql("select * from admin.create_api_key($1, 'x', array['read:tournaments'])", [crypto.randomUUID()]))
      .rejects.toThrow(/not found/);
  });
});

// ---------------------------------------------------------------------------------------------
describe("admin.revoke_api_key", () => {
  it("marks the key revoked once, keeping the first revocation time", async () => {
    const accountId = await createAccount(true);
    const { id } = await createKey(accountId);
    await sql("select admin.revoke_api_key($1)", [id]);
    const [first] = await sql("select revoked_at from app.api_keys where id = $1", [id]);
    expect(first.revoked_at).toBeInstanceOf(Date);
    await new Promise((r) => setTimeout(r, 10));
    await sql("select admin.revoke_api_key($1)", [id]);
    const [second] = await sql("select revoked_at from app.api_keys where id = $1", [id]);
    expect(second.revoked_at.getTime()).toBe(first.revoked_at.getTime());
  });

  it("revokes only the given key", async () => {
    const accountId = await createAccount(true);
    const [k1, k2] = [await createKey(accountId), await createKey(accountId)];
    await sql("select admin.revoke_api_key($1)", [k1.id]);
    const rows = await sql("select id, revoked_at is not null revoked from app.api_keys where account_id = $1 order by revoked desc", [
      accountId,
    ]);
    expect(rows).toEqual([{ id: k1.id, revoked: true }, { id: k2.id, revoked: false }]);
  });

  it("raises for an unknown key", async () => {
    await expect(sql("select admin.revoke_api_key($1)", [crypto.randomUUID()])).rejects.toThrow(/not found/);
  });
});

// ---------------------------------------------------------------------------------------------
describe("admin.create_team", () => {
  it("creates a team with trimmed name and tag, and an optional logo_url", async () => {
    const [{ id }] = await sql("select admin.create_team('  Night Owls ', ' NO ', 'https://cdn.example.com/no.png') id");
    const [row] = await sql("select name, tag, logo_url from app.teams where id = $1", [id]);
    expect(row).toEqual({ name: "Night Owls", tag: "NO", logo_url: "https://cdn.example.com/no.png" });
    const [{ id: plain }] = await sql("select admin.create_team('Plain', 'PL') id");
    expect((await sql("select logo_url from app.teams where id = $1", [plain]))[0].logo_url).toBeNull();
  });

  it.each([
    ["an empty name", "select admin.create_team('  ', 'X')"],
    ["an empty tag", "select admin.create_team('Team', '')"],
    ["a tag over 20 characters", `select admin.create_team('Team', '${"T".repeat(21)}')`],
    ["a logo_url that is not http(s)", "select admin.create_team('Team', 'TM', 'javascript:alert(1)')"],
  ])("raises for %s", async (_what, statement) => {
    await expect(sql(statement)).rejects.toThrow();
  });
});

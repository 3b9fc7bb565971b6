// One door: the function's role (tournament_api, connected with the function's own
// DATABASE_URL) can execute api.call and nothing else, and cannot bind an account. A leaked
// function database URL is worth nothing without a valid API key.
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTournament, sql, type Tenant, tenant } from "../support/helpers.ts";

const sha256 = (s: string) => createHash("sha256").update(s).digest();

let client: pg.Client;
let a: Tenant;
let b: Tenant;
let bTournament: string;

/** Runs one statement as tournament_api in its own transaction; the SQLSTATE when refused. */
async function attempt(text: string, values: unknown[] = []): Promise<{ code?: string; message?: string; rows?: unknown[] }> {
  await client.query("begin");
  try {
    const r = await client.query(text, values);
    return { rows: r.rows };
  } catch (err) {
    const e = err as { code: string; message: string };
    return { code: e.code, message: e.message };
  } finally {
    await client.query("rollback");
  }
}

beforeAll(async () => {
  client = new pg.Client({ connectionString: inject("functionDbUrl") });
  await client.connect();
  [a, b] = await Promise.all([tenant(), tenant()]);
  await createTournament(a, { name: "Door A" });
  bTournament = (await createTournament(b, { name: "Door B" })).id;
});

afterAll(async () => {
  await client?.end();
});

describe("the function's role", () => {
  it("is tournament_api: no superuser, no BYPASSRLS, a member of no role", async () => {
    const { rows: [who] } = await client.query(
      `select current_user u, r.rolsuper, r.rolbypassrls,
              (select count(*)::int from pg_auth_members m where m.member = r.oid) memberships
         from pg_roles r where r.rolname = current_user`,
    );
    expect(who).toEqual({ u: "tournament_api", rolsuper: false, rolbypassrls: false, memberships: 0 });
  });

  it("has no privilege on any table or view in app, api or admin", async () => {
    const held = await sql(
      `select c.oid::regclass::text tbl, p.priv
         from pg_class c join pg_namespace n on n.oid = c.relnamespace,
              unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) p(priv)
        where n.nspname in ('app', 'api', 'admin') and c.relkind in ('r', 'v', 'm', 'p', 'S')
          and has_table_privilege('tournament_api', c.oid, p.priv)`,
    );
    expect(held).toEqual([]);
  });

  it("cannot select, insert, update or delete any table in app", async () => {
    const tables = (await sql<{ t: string }>("select tablename t from pg_tables where schemaname = 'app' order by 1")).map((r) => r.t);
    expect(tables).toEqual(expect.arrayContaining(
      ["accounts", "api_keys", "rate_limits", "idempotency_keys", "tournaments", "registrations", "matches", "teams", "account_members"],
    ));
    for (const table of tables) {
      const [{ col }] = await sql("select attname col from pg_attribute where attrelid = $1::regclass and attnum = 1", [`app.${table}`]);
      for (
        const statement of [
          `select * from app.${table}`,
          `insert into app.${table} default values`,
          `update app.${table} set ${col} = ${col}`,
          `delete from app.${table}`,
        ]
      ) {
        const r = await attempt(statement);
        expect(r.code, `${statement}: ${r.message}`).toBe("42501");
      }
    }
  });

  // api.keep_picture (public PNGs kept for every instance) is the one door that writes without
  // a key: a leaked function URL could replace a public tournament's PNG at its current version
  // (until the tournament changes), and nothing else.
  it("can execute api.call, the live stream's poll and close, api.public_call and api.keep_picture, and no other function in app, api, admin or public", async () => {
    const executable = await sql<{ sig: string }>(
      `select p.oid::regprocedure::text sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('app', 'api', 'admin', 'public') and has_function_privilege('tournament_api', p.oid, 'execute')
        order by 1`,
    );
    expect(executable.map((f) => f.sig)).toEqual([
      "api.call(bytea,text,text,jsonb,jsonb,jsonb)",
      "api.keep_picture(text,text,bigint,bytea,text,text)",
      "api.public_call(bytea,text,jsonb,jsonb)",
      "api.stream_close(uuid)",
      "api.stream_poll(jsonb)",
    ]);
  });

  it("reads through api.public_call only what is public: a private tournament is as unknown, its public stream 'deleted'", async () => {
    const accountId = (await sql<{ id: string }>("select admin.create_account('Door public') as id"))[0].id;
    await sql("select admin.set_api_access($1, true)", [accountId]);
    const [t] = await sql<{ id: string; slug: string }>(
      `insert into app.tournaments (account_id, name, slug, game_id, team_size, max_teams, starts_at, registration_closes)
       values ($1, 'Door', 'door-' || substr(md5(random()::text), 1, 8), gen_random_uuid(), 5, 8, now() + interval '1 day',
               now() + interval '1 day') returning id, slug`,
      [accountId],
    );
    const hash = crypto.getRandomValues(new Uint8Array(32));
    const view = async () =>
      (await attempt(
        "select auth, error, result from api.public_call($1, 'view', jsonb_build_object('slug', $2::text))",
        [hash, t.slug],
      ))
        .rows![0] as { error: unknown; result: { tournament: { id: string } } };
    expect((await view()).error).toEqual({ code: "not_found", message: "Tournament not found." });
    const poll = async () =>
      ((await attempt("select state from api.stream_poll($1::jsonb)", [JSON.stringify([{ public: t.id, since: 0 }])])).rows![0] as {
        state: string;
      }).state;
    expect(await poll()).toBe("deleted");
    await sql("update app.tournaments set visibility = 'public' where id = $1", [t.id]);
    expect((await view()).result.tournament.id).toBe(t.id);
    expect(await poll()).toBe("changed");
  });

  it("reads nothing through the stream's poll without a live lease that api.call issued", async () => {
    const asks = [{ stream: "00000000-0000-4000-8000-000000000000", since: 0 }, { stream: crypto.randomUUID(), since: 0 }, {
      stream: "not-a-uuid",
      since: 0,
    }, { stream: crypto.randomUUID(), since: "x" }];
    const r = await attempt("select ord, state, version, data from api.stream_poll($1::jsonb)", [JSON.stringify(asks)]);
    expect(r.code, r.message).toBeUndefined();
    expect(r.rows).toEqual(asks.map((_, i) => ({ ord: i + 1, state: "ended", version: null, data: null })));
  });

  it("is refused when it calls any app or admin function directly", async () => {
    const fns = await sql<{ sig: string; nargs: number }>(
      `select p.oid::regprocedure::text sig, p.pronargs nargs from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('app', 'admin') and p.prokind = 'f' order by 1`,
    );
    expect(fns.length).toBeGreaterThan(20);
    for (const f of fns) {
      const name = f.sig.slice(0, f.sig.indexOf("("));
      const args = Array.from({ length: f.nargs }, () => "null").join(", ");
      const r = await attempt(`select ${name}(${args})`);
      // 42501 permission denied (for the schema or the function); 42883 where null is ambiguous
      expect(["42501", "42883"], `${f.sig}: ${r.message}`).toContain(r.code);
    }
    for (
      const call of [
        "select app.list_tournaments('{}'::jsonb)",
        "select app.current_account_id()",
        `select * from app.find_api_key('\\x00'::bytea)`,
        "select admin.create_account('Sneaky')",
      ]
    ) {
      expect((await attempt(call)).code, call).toBe("42501");
    }
  });

  it("cannot become the owner of api.call nor create objects", async () => {
    for (
      const statement of [
        "set role tournament_api_owner",
        "set role postgres",
        "create table public.planted (id int)",
        "create function public.planted() returns int language sql as 'select 1'",
        "create schema planted",
      ]
    ) {
      const r = await attempt(statement);
      expect(r.code, `${statement}: ${r.message}`).toBe("42501");
    }
  });
});

describe("api.call binds the account itself", () => {
  const LIST = "select auth, error, result from api.call($1, 'read:tournaments', 'tournaments.list', '{}'::jsonb)";

  it("ignores an app.account_id the caller set first: a's key lists a's tournaments only", async () => {
    await client.query("begin");
    try {
      await client.query("select set_config('app.account_id', $1, true)", [b.accountId]);
      const { rows: [call] } = await client.query(LIST, [sha256(a.key)]);
      expect(call.auth.account_id).toBe(a.accountId);
      const listed = call.result.data.map((t: { id: string }) => t.id).sort();
      const own = (await sql("select id from app.tournaments where account_id = $1", [a.accountId])).map((r) => r.id).sort();
      expect(listed).toEqual(own);
      expect(listed).not.toContain(bTournament);
    } finally {
      await client.query("rollback");
    }
  });

  it("ignores a session-level app.account_id too, and writes into the key's own account", async () => {
    await client.query("select set_config('app.account_id', $1, false)", [b.accountId]);
    try {
      const { rows: [call] } = await client.query(
        "select auth, error, result from api.call($1, 'write:tournaments', 'tournaments.create', $2::jsonb)",
        [
          sha256(a.key),
          JSON.stringify({
            body: {
              name: "Door planted",
              game_id: crypto.randomUUID(),
              team_size: 5,
              max_teams: 8,
              starts_at: new Date(Date.now() + 86_400_000).toISOString(),
            },
          }),
        ],
      );
      expect(call.error).toBeNull();
      const [row] = await sql("select account_id from app.tournaments where id = $1", [call.result.id]);
      expect(row.account_id).toBe(a.accountId);
      const get = await client.query(
        "select auth, error, result from api.call($1, 'read:tournaments', 'tournaments.get', $2::jsonb)",
        [sha256(a.key), JSON.stringify({ id: bTournament })],
      );
      expect(get.rows[0].error.code).toBe("not_found");
    } finally {
      await client.query("reset app.account_id");
    }
  });

  it("answers a wrong key with unauthorized and nothing else, whatever the caller set", async () => {
    await client.query("begin");
    try {
      await client.query("select set_config('app.account_id', $1, true)", [b.accountId]);
      for (const hash of [sha256("tmk_not_a_key"), Buffer.alloc(32), Buffer.alloc(0), null]) {
        const { rows: [call] } = await client.query(
          "select auth, error, result, replay from api.call($1, 'read:tournaments', 'tournaments.get', $2::jsonb)",
          [hash, JSON.stringify({ id: bTournament })],
        );
        expect(call).toEqual({ auth: { error: "unauthorized" }, error: null, result: null, replay: null });
      }
    } finally {
      await client.query("rollback");
    }
  });

  it("derives the scope from the operation, not from the caller's p_scope", async () => {
    const { key } = await b.newKey(["read:tournaments"]);
    const { rows: [call] } = await client.query(
      "select auth, error, result from api.call($1, 'read:tournaments', 'tournaments.delete', $2::jsonb)",
      [sha256(key), JSON.stringify({ id: bTournament })],
    );
    expect(call.auth.error).toBe("insufficient_scope");
    expect(call.result).toBeNull();
    expect(await sql("select id from app.tournaments where id = $1", [bTournament])).toHaveLength(1);
  });
});

describe("database hygiene (what Supabase's linter asks for)", () => {
  it("pins search_path = '' on every function in app, api and admin, and on the public RPCs", async () => {
    const loose = await sql(
      `select p.oid::regprocedure::text sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where (n.nspname in ('app', 'api', 'admin') or p.proname in ('create_account_api_key', 'revoke_account_api_key'))
          and not coalesce(p.proconfig @> array['search_path=""'], false)`,
    );
    expect(loose).toEqual([]);
  });

  it("indexes every foreign key in app (its columns lead some index)", async () => {
    const unindexed = await sql(
      `select c.conrelid::regclass::text tbl, c.conname from pg_constraint c
        where c.contype = 'f' and c.connamespace = 'app'::regnamespace
          and not exists (select from pg_index i where i.indrelid = c.conrelid
                             and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey)`,
    );
    expect(unindexed).toEqual([]);
  });

  it("gives PUBLIC no EXECUTE on any function in app, api or admin", async () => {
    const open = await sql(
      `select p.oid::regprocedure::text sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('app', 'api', 'admin')
          and (p.proacl is null or exists (select from aclexplode(p.proacl) x where x.grantee = 0))`,
    );
    expect(open).toEqual([]);
  });
});

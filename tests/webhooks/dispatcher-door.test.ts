// The dispatcher's door: its role (tournament_webhooks) can claim, settle and prune deliveries
// and apply the reports past their deadline (webhooks.confirm_due_reports), and nothing else, the API's role cannot use it, and neither can call the other's functions.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sql } from "../support/helpers.ts";

let dispatcher: pg.Client;
let api: pg.Client;

/** Runs one statement in its own transaction; the SQLSTATE when refused. */
async function attempt(client: pg.Client, text: string): Promise<string | null> {
  await client.query("begin");
  try {
    await client.query(text);
    return null;
  } catch (err) {
    return (err as { code: string }).code;
  } finally {
    await client.query("rollback");
  }
}

beforeAll(async () => {
  dispatcher = new pg.Client({ connectionString: inject("dispatcherDbUrl") });
  api = new pg.Client({ connectionString: inject("functionDbUrl") });
  await Promise.all([dispatcher.connect(), api.connect()]);
});

afterAll(async () => {
  await Promise.all([dispatcher?.end(), api?.end()]);
});

describe("the dispatcher's role", () => {
  it("is tournament_webhooks: no superuser, no BYPASSRLS, a member of no role", async () => {
    const { rows: [who] } = await dispatcher.query(
      `select current_user u, r.rolsuper, r.rolbypassrls,
              (select count(*)::int from pg_auth_members m where m.member = r.oid) memberships
         from pg_roles r where r.rolname = current_user`,
    );
    expect(who).toEqual({ u: "tournament_webhooks", rolsuper: false, rolbypassrls: false, memberships: 0 });
  });

  it("can execute webhooks.claim, settle, prune and sleep, and the reports' sweep, and no other function of ours", async () => {
    const executable = await sql<{ sig: string }>(
      `select p.oid::regprocedure::text sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('app', 'api', 'admin', 'public', 'webhooks')
          and has_function_privilege('tournament_webhooks', p.oid, 'execute') order by 1`,
    );
    expect(executable.map((f) => f.sig)).toEqual(
      [
        "webhooks.claim(integer,integer)",
        "webhooks.confirm_due_reports(integer)",
        "webhooks.prune(integer)",
        "webhooks.settle(json,interval)",
        "webhooks.sleep(uuid,integer)",
      ],
    );
  });

  it("has no privilege on any table or view", async () => {
    const held = await sql(
      `select c.oid::regclass::text tbl from pg_class c join pg_namespace n on n.oid = c.relnamespace,
              unnest(array['select', 'insert', 'update', 'delete', 'truncate']) p(priv)
        where n.nspname in ('app', 'api', 'admin', 'webhooks') and c.relkind in ('r', 'v', 'm', 'p')
          and has_table_privilege('tournament_webhooks', c.oid, p.priv)`,
    );
    expect(held).toEqual([]);
  });

  it("cannot call api.call, read a table or bind an account", async () => {
    expect(await attempt(dispatcher, "select * from api.call('\\x00', null, 'me', null, null)")).toBe("42501");
    expect(await attempt(dispatcher, "select * from app.webhook_endpoints")).toBe("42501");
    expect(await attempt(dispatcher, "select * from app.tournaments")).toBe("42501");
    expect(await attempt(dispatcher, "update app.webhook_deliveries set status = 'succeeded'")).toBe("42501");
  });

  it("settles nothing it did not lease", async () => {
    // (No claim here: the suite's database is shared, and a claim would lease other tests' deliveries.)
    const stranger = crypto.randomUUID();
    const { rows } = await dispatcher.query("select lost_delivery_id from webhooks.settle($1, interval '5 days')", [
      JSON.stringify([{ delivery_id: stranger, lease_token: crypto.randomUUID(), attempted: true, ok: true }]),
    ]);
    expect(rows).toEqual([{ lost_delivery_id: stranger }]); // reported as lost, and nothing changed
    const { rows: none } = await dispatcher.query("select * from webhooks.settle('[]', interval '5 days')");
    expect(none).toEqual([]);
  });
});

describe("the API's role", () => {
  it("cannot claim, settle or prune deliveries, nor sweep the reports past their deadline", async () => {
    expect(await attempt(api, "select * from webhooks.claim(10, 10)")).toBe("42501");
    expect(await attempt(api, "select webhooks.confirm_due_reports(1)")).toBe("42501");
    expect(await attempt(api, "select webhooks.settle('[]', interval '1 day')")).toBe("42501");
    expect(await attempt(api, "select webhooks.prune(10)")).toBe("42501");
  });
});

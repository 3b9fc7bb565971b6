// Lock order beyond teams (issue 32's review): the paths that lock more than one row, raced
// where a cycle was found. A deadlock (40P01) is a 503 to the client; the rule is that none
// happens, whatever the interleaving.
//
// Webhooks: deleting an endpoint locks it (app.own_webhook, for update), then deletes its
// deliveries (the foreign key's cascade, in no set order). The dispatcher's calls lock
// deliveries too: webhooks.claim leases a batch, webhooks.settle records outcomes, then updates
// the endpoints whose state changed (failing_since). Each of those is one statement; the tests
// stretch the instant between two of its row locks by taking the first lock in an open
// transaction (as the statement would have), sending the deletion, and, once it waits, running
// the rest. Every request gets a key of its own (requests on one key queue behind its
// rate-limit row).
import fs from "node:fs";
import { describe, expect, inject, it } from "vitest";
import pg from "pg";
import { sql, type Tenant, tenant } from "../support/helpers.ts";
import { createEndpoint } from "../support/webhook-helpers.ts";

const NOWHERE = "https://receiver.invalid/hook";

/** The function's log lines with a 5xx, to say why (the log names the driver's SQLSTATE). */
function serverErrors(): string {
  const lines = fs.readFileSync(inject("logFile"), "utf8").split("\n");
  return lines.filter((l) => /"status":5\d\d/.test(l)).slice(-10).join("\n");
}

/**
 * An endpoint of a fresh tenant with `n` deliveries leased as a dispatcher's claim leases them
 * (a token, 60 s), ids in seq order. Made in SQL and leased at once: on the shared stack other
 * test files' dispatchers claim every due delivery, so these are never due to them.
 */
async function leasedDeliveries(n: number): Promise<{ t: Tenant; id: string; leases: { id: string; token: string }[] }> {
  const t = await tenant();
  const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
  const ids = (await sql<{ id: string }>(`select gen_random_uuid() as id from generate_series(1, ${n}) order by 1`))
    .map((r) => r.id);
  const leases = await sql<{ id: string; token: string }>(
    `with ev as (
       insert into app.webhook_events (account_id, type, payload)
       select $2, 'webhook.test', '{}' from generate_series(1, $4) returning id)
     insert into app.webhook_deliveries (id, endpoint_id, account_id, event_id, lease_until, lease_token)
     select ($3::uuid[])[n], $1, $2, id, clock_timestamp() + interval '60 seconds', gen_random_uuid()
       from (select id, row_number() over () as n from ev) ev order by n
     returning id, lease_token as token`,
    [e.id, t.accountId, ids, n],
  );
  return { t, id: e.id, leases: ids.map((id) => leases.find((l) => l.id === id)!) };
}

/** Hands leases back unattempted (due again): what the real claim took from other test files. */
async function handBack(c: pg.Client, leases: { delivery_id: string; lease_token: string }[]): Promise<void> {
  if (leases.length === 0) return;
  await c.query("select webhooks.settle($1)", [
    JSON.stringify(leases.map((l) => ({ delivery_id: l.delivery_id, lease_token: l.lease_token, attempted: false }))),
  ]);
}

/** Waits until an API request (api.call) waits for a lock that backend `holder` holds. */
async function untilApiWaits(d: pg.Client, holder: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [w] = (await d.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where $1 = any (pg_blocking_pids(pid)) and query like '%api.call%'`,
      [holder],
    )).rows;
    if (w.n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the API request never waited on a lock");
}

async function client(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: inject("adminDbUrl") });
  await c.connect();
  return c;
}

describe("webhook endpoints deleted while the dispatcher works on their deliveries", () => {
  it("a deletion racing a settle that records a failure (the endpoint's failing_since) answers 200, not 503", async () => {
    const { t, id, leases: [d1, d2] } = await leasedDeliveries(2);
    const x = await client();
    const probe = await client();
    try {
      // The dispatcher leased both, then settles them in one batch: d1 handed back unattempted,
      // d2 failed. Its statement locks d1, then d2, then the endpoint.
      const [{ pid }] = (await x.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
      await x.query("begin");
      await x.query("select webhooks.settle($1)", [JSON.stringify([
        { delivery_id: d1.id, lease_token: d1.token, attempted: false },
      ])]);
      const { key } = await t.newKey();
      const deletion = t.request("DELETE", `/webhooks/${id}`, { headers: { authorization: `Bearer ${key}` } });
      await untilApiWaits(probe, pid);
      const settled = x.query("select * from webhooks.settle($1)", [JSON.stringify([
        { delivery_id: d2.id, lease_token: d2.token, attempted: true, ok: false, status_code: 500, error: "HTTP 500", retry_in: 60 },
      ])]);
      const outcome = await settled.then(() => "settled", (e: { code?: string }) => e.code ?? String(e));
      await x.query(outcome === "settled" ? "commit" : "rollback");
      const res = await deletion;
      if (res.status >= 500) console.error(serverErrors());
      expect({ outcome, status: res.status }).toEqual({ outcome: "settled", status: 200 });
      const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from app.webhook_endpoints where id = $1", [id]);
      expect(n).toBe(0);
    } finally {
      await x.query("rollback").catch(() => {});
      await x.end();
      await probe.end();
    }
  }, 30_000);

  // The claim's one UPDATE leases its batch row by row: in the order of its plan before the fix
  // (first attempts by seq), in id order after it; the deletion's cascade deleted the endpoint's
  // deliveries in its own order (newest first, by the endpoint's index). Two deliveries whose
  // ids are in seq order: the claim takes the first before the second either way. It has taken
  // the first when the deletion arrives.
  it("a deletion racing a claim of its deliveries answers 200, not 503", async () => {
    const t = await tenant();
    const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
    const ids = (await sql<{ id: string }>("select gen_random_uuid() as id from generate_series(1, 2) order by 1"))
      .map((r) => r.id);
    await sql(
      `with ev as (
                 insert into app.webhook_events (account_id, type, payload)
                 select $2, 'webhook.test', '{}' from generate_series(1, 2) returning id)
               insert into app.webhook_deliveries (id, endpoint_id, account_id, event_id)
               select ($3::uuid[])[n], $1, $2, id from (select id, row_number() over () as n from ev) ev order by n`,
      [e.id, t.accountId, ids],
    );
    const x = await client();
    const probe = await client();
    try {
      const [{ pid }] = (await x.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
      await x.query("begin");
      // The claim's statement, part way: the first delivery's row locked (its lease, written by
      // the statement itself, would not hide it from the statement's own scan).
      await x.query("select from app.webhook_deliveries where id = $1 for no key update", [ids[0]]);
      const { key } = await t.newKey();
      const deletion = t.request("DELETE", `/webhooks/${e.id}`, { headers: { authorization: `Bearer ${key}` } });
      await untilApiWaits(probe, pid);
      const claimed = await x.query<{ delivery_id: string; lease_token: string }>(
        "select delivery_id, lease_token from webhooks.claim(100, 25)",
      )
        .then((r) => r.rows, (err: { code?: string }) => err.code ?? String(err));
      const outcome = typeof claimed === "string" ? claimed : "claimed";
      await x.query(outcome === "claimed" ? "commit" : "rollback");
      if (typeof claimed !== "string") await handBack(x, claimed.filter((l) => !ids.includes(l.delivery_id)));
      const res = await deletion;
      if (res.status >= 500) console.error(serverErrors());
      expect({ outcome, status: res.status }).toEqual({ outcome: "claimed", status: 200 });
    } finally {
      await x.query("rollback").catch(() => {});
      await x.end();
      await probe.end();
    }
  }, 30_000);
});

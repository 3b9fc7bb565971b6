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
import { type ApiResponse, sql, tenant, type Tenant } from "./helpers.ts";
import { createEndpoint } from "./webhook-helpers.ts";

const NOWHERE = "https://receiver.invalid/hook";

/** The function's log lines with a 5xx, to say why (the log names the driver's SQLSTATE). */
function serverErrors(): string {
  const lines = fs.readFileSync(inject("logFile"), "utf8").split("\n");
  return lines.filter((l) => /"status":5\d\d/.test(l)).slice(-10).join("\n");
}

function expectOk(res: ApiResponse, status = 200): void {
  if (res.status >= 500) console.error(serverErrors());
  expect(res.status, res.text).toBe(status);
}

/** An endpoint of a fresh tenant with `n` pending deliveries (webhook.test), oldest first. */
async function endpointWithDeliveries(n: number): Promise<{ t: Tenant; id: string; deliveries: string[] }> {
  const t = await tenant();
  const e = await createEndpoint(t, { url: NOWHERE, events: ["*"] });
  for (let i = 0; i < n; i++) {
    const { key } = await t.newKey();
    const res = await t.request("POST", `/webhooks/${e.id}/test`, { headers: { authorization: `Bearer ${key}` } });
    expectOk(res, 202);
  }
  const rows = await sql<{ id: string }>("select id from app.webhook_deliveries where endpoint_id = $1 order by seq", [e.id]);
  return { t, id: e.id, deliveries: rows.map((r) => r.id) };
}

/** Waits until a backend other than `except` waits on a lock while running api.call. */
async function untilApiWaits(d: pg.Client, except: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [w] = (await d.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where pid <> $1 and wait_event_type = 'Lock' and query like '%api.call%'`, [except])).rows;
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
    const { t, id, deliveries: [d1, d2] } = await endpointWithDeliveries(2);
    const x = await client();
    const probe = await client();
    try {
      // The dispatcher leased both (the real claim), then settles them in one batch: d1 handed
      // back unattempted, d2 failed. Its statement locks d1, then d2, then the endpoint.
      const leases = (await x.query<{ delivery_id: string; lease_token: string }>(
        "select delivery_id, lease_token from webhooks.claim(100, 25)")).rows;
      const token = (d: string) => leases.find((l) => l.delivery_id === d)!.lease_token;
      expect(leases.map((l) => l.delivery_id).sort()).toEqual([d1, d2].sort());
      const [{ pid }] = (await x.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
      await x.query("begin");
      await x.query("select webhooks.settle($1)", [JSON.stringify([
        { delivery_id: d1, lease_token: token(d1), attempted: false }])]);
      const { key } = await t.newKey();
      const deletion = t.request("DELETE", `/webhooks/${id}`, { headers: { authorization: `Bearer ${key}` } });
      await untilApiWaits(probe, pid);
      const settled = x.query("select * from webhooks.settle($1)", [JSON.stringify([
        { delivery_id: d2, lease_token: token(d2), attempted: true, ok: false, status_code: 500, error: "HTTP 500",
          retry_in: 60 }])]);
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
    await sql(`with ev as (
                 insert into app.webhook_events (account_id, type, payload)
                 select $2, 'webhook.test', '{}' from generate_series(1, 2) returning id)
               insert into app.webhook_deliveries (id, endpoint_id, account_id, event_id)
               select ($3::uuid[])[n], $1, $2, id from (select id, row_number() over () as n from ev) ev order by n`,
              [e.id, t.accountId, ids]);
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
      const outcome = await x.query("select * from webhooks.claim(100, 25)")
        .then(() => "claimed", (err: { code?: string }) => err.code ?? String(err));
      await x.query(outcome === "claimed" ? "commit" : "rollback");
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

// Reported results' deadline (contract section 18): a report nobody answers by `confirm_by` is
// applied as confirmed (`resolved_by: "timeout"`) by the worker that dispatches webhooks, here the
// local dispatcher process, with no request at all; a sweep the database refuses is logged and the
// next one applies it; deployed, each POST (Supabase Cron's) sweeps; and sweeps racing each other
// (webhooks.confirm_due_reports from two connections as the dispatcher's role) apply each due
// report exactly once.
//
// The clock is moved by moving the report back in SQL (its reported_at and confirm_by, the column
// and the document alike), as the cluster's superuser with the triggers off
// (session_replication_role replica): moving it is then no change of its own (no event, no
// version), only time passing.
//
// A dispatcher delivers every account's deliveries and applies every account's due reports, so
// this file takes the dispatchers' turn (tests/support/webhook-helpers.ts) for its whole run:
// no other file's dispatcher sweeps its reports, and its dispatcher delivers no other file's.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Call, createTeams, expectStatus, type Match, request, sql, startedTournament, type Tenant } from "../support/helpers.ts";
import { freePort } from "../../scripts/stack.mjs";
import {
  createEndpoint,
  DatabaseProxy,
  dispatcherTurn,
  payloadOf,
  Receiver,
  sleep,
  startTestDispatcher,
  stopDispatchers,
  typeOf,
} from "../support/webhook-helpers.ts";

/** Nothing listens on port 9 of the loopback: an endpoint for recording events, never delivered to here. */
const NOWHERE = "http://127.0.0.1:9/x";

let endTurn: (() => Promise<void>) | undefined;
let rx: Receiver;
beforeAll(async () => {
  endTurn = await dispatcherTurn();
  rx = await Receiver.start();
}, 300_000); // tests/webhooks/delivery.test.ts's turn, at most
afterAll(async () => {
  await stopDispatchers();
  await rx?.close();
  await endTurn?.();
});

interface Report {
  state: string;
  team1: Record<string, unknown> | null;
  team2: Record<string, unknown> | null;
  confirm_by: string | null;
  resolved_by: string | null;
  note: string | null;
}
type Reported = Match & { report: Report | null };

/** A single-elimination tournament of 4 teams with reporting on (confirm within 1 minute), started, with a registration token per team. */
async function reportingTournament(prefix: string) {
  const teams = await createTeams(4, prefix);
  const { t, call, id } = await startedTournament({ participant_reporting: "confirm", report_confirm_minutes: 1 }, teams);
  const registrations = await call("GET", `/tournaments/${id}/registrations`);
  expectStatus(registrations, 200);
  const tokens = new Map<string, { id: string; token: string }>();
  for (const r of registrations.body.data as { id: string; team_id: string }[]) {
    const minted = await call("POST", `/tournaments/${id}/registrations/${r.id}/tokens`, { body: {} });
    expectStatus(minted, 201);
    tokens.set(r.team_id, minted.body.data);
  }
  return { t, call, id, teams, tokens };
}

async function matchesOf(call: Call, id: string): Promise<Reported[]> {
  const res = await call("GET", `/tournaments/${id}/results`);
  expectStatus(res, 200);
  return res.body.data.matches;
}

/** A team's report of its match with its registration token (200 expected): the match as answered. */
async function report(token: string, matchId: string, body: Record<string, unknown>): Promise<Reported> {
  const res = await request("POST", `/participant/matches/${matchId}/report`, { key: token, body });
  expectStatus(res, 200);
  return res.body.data;
}

/**
 * Time passes for these matches' open reports: each is moved `seconds` back (reported_at of the
 * side that reported, confirm_by, and the report_confirm_by column), with the triggers off.
 */
async function moveBack(matchIds: string[], seconds: number): Promise<void> {
  // As the cluster's superuser: `postgres` may not turn triggers off (as on Supabase).
  const client = new pg.Client({ connectionString: inject("superuserDbUrl") });
  await client.connect();
  try {
    await client.query("begin");
    await client.query("set local session_replication_role = replica");
    const { rowCount } = await client.query(
      `update app.matches m
          set report_confirm_by = m.report_confirm_by - s.i,
              report = m.report || jsonb_build_object('confirm_by', app.iso(m.report_confirm_by - s.i)) ||
                (select coalesce(jsonb_object_agg(k, (m.report -> k) ||
                          jsonb_build_object('reported_at', app.iso((m.report #>> array[k, 'reported_at'])::timestamptz - s.i))), '{}')
                   from unnest(array['team1', 'team2']) k
                  where m.report #>> array[k, 'reported_at'] is not null)
         from (select make_interval(secs => $2) i) s
        where m.id = any($1) and m.report_state = 'awaiting_confirmation'`,
      [matchIds, seconds],
    );
    expect(rowCount, "reports moved back").toBe(matchIds.length);
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

/** The match as stored, read as the operator (no API request). */
async function stored(matchId: string) {
  const [row] = await sql<
    {
      status: string;
      winner_id: string | null;
      team1_score: number | null;
      team2_score: number | null;
      forfeit: string | null;
      report: Report;
      report_confirm_by: Date | null;
    }
  >(
    "select status, winner_id, team1_score, team2_score, forfeit, report, report_confirm_by from app.matches where id = $1",
    [matchId],
  );
  return row;
}

/** The tournament's webhook events in order: type, actor, and the match (or stage) as it was sent. */
async function eventsOf(tournamentId: string) {
  const rows = await sql<{ type: string; payload: string }>(
    "select type, payload from app.webhook_events where tournament_id = $1 order by created_at, id",
    [tournamentId],
  );
  return rows.map((r) => ({ type: r.type, ...JSON.parse(r.payload) }));
}

/** The tournament's version (section 14), as the operator reads it. */
const version = async (id: string) =>
  (await sql<{ version: number }>(
    "select coalesce(max(version), 1)::int as version from app.tournament_versions where tournament_id = $1",
    [id],
  ))[0]
    .version;

describe("the worker applies a report nobody answered", () => {
  it(
    "once confirm_by has passed, with no request at all: confirmed by timeout, the winner sent on, match.completed without an actor",
    async () => {
      // The worker runs all along, as `npm start`'s dispatcher does; its sweep every second here (15 s by default).
      const dispatcher = await startTestDispatcher({ REPORT_SWEEP_MS: "1000" });
      const { t, id, teams, tokens, call } = await reportingTournament("Deadline");
      const path = rx.newPath();
      const hook = await createEndpoint(t, { url: rx.url(path), events: ["*"], tournament_id: id });
      try {
        const match = (await matchesOf(call, id)).find((m) => m.round === 1 && m.team1_id === teams[0])!; // seed 1 v seed 4
        const token = tokens.get(teams[0])!;
        const sent = await report(token.token, match.id, { team1_score: 2, team2_score: 1, note: "GG" });
        expect(sent.status).toBe("ready");
        expect(sent.winner_id).toBeNull();
        expect(sent.report).toMatchObject({
          state: "awaiting_confirmation",
          team1: { result: { team1_score: 2, team2_score: 1 }, note: "GG", dispute: null },
          team2: null,
          resolved_by: null,
          note: null,
        });
        const reportedAt = Date.parse(sent.report!.team1!.reported_at as string);
        expect(Date.parse(sent.report!.confirm_by!) - reportedAt).toBeGreaterThanOrEqual(60_000);
        expect(Date.parse(sent.report!.confirm_by!) - reportedAt).toBeLessThanOrEqual(60_001);
        // Nobody answers: a minute and a second go by (no sweep may apply it before).
        await sleep(1500);
        expect((await stored(match.id)).status).toBe("ready");
        const before = await version(id);
        await moveBack([match.id], 61);
        expect(await version(id), "moving the clock is no change").toBe(before);
        const moved = await stored(match.id);
        expect(Date.parse(moved.report.confirm_by!)).toBe(moved.report_confirm_by!.getTime());
        expect(moved.report_confirm_by!.getTime()).toBeLessThan(Date.now());

        // No request from here on: the worker alone, watched in SQL.
        const due = Date.now();
        const now = await completed(match.id);
        const took = Date.now() - due;
        expect(now.status, `applied ${took} ms after it fell due`).toBe("completed");
        // The contract's bound (within a minute); how soon is the bench's business, not a test's.
        expect(took, "within a minute").toBeLessThan(60_000);
        console.log(`a report past its deadline applied by the dispatcher ${took} ms after it fell due (sweeps every 1000 ms)`);
        expect(now).toMatchObject({ winner_id: teams[0], team1_score: 2, team2_score: 1, forfeit: null });
        expect(now.report).toEqual({ ...moved.report, state: "confirmed", resolved_by: "timeout" });
        expect(await version(id), "the version raised (streams and deltas carry it)").toBeGreaterThan(before);
        const [next] = await sql<{ team1_id: string | null; team2_id: string | null }>(
          "select team1_id, team2_id from app.matches where id = $1",
          [match.next_match_id],
        );
        expect([next.team1_id, next.team2_id].filter((x) => x === teams[0])).toHaveLength(1);
        expect(
          dispatcher.lines.some((l) => l.includes(`"msg":"reports confirmed"`) && l.includes(`"confirmed":1`)),
          dispatcher.lines.join("\n"),
        )
          .toBe(true);

        // Its events: the report (the token's), then the result (no one's: a worker applied it).
        const events = await eventsOf(id);
        expect(events.map((e) => e.type)).toEqual(["match.reported", "match.completed"]);
        expect(events[0].actor).toEqual({ type: "participant", id: token.id });
        expect(events[1].actor).toBeNull();
        expect(events[1].data).toMatchObject({
          id: match.id,
          tournament_id: id,
          status: "completed",
          winner_id: teams[0],
          report: { state: "confirmed", resolved_by: "timeout" },
        });
        // And the dispatcher sent them (the sweep woke it).
        const received = await rx.waitFor(path, 2, 60_000);
        expect(received.map(typeOf)).toEqual(["match.reported", "match.completed"]);
        expect(payloadOf(received[1]).actor).toBeNull();

        // The API shows the same (requests are allowed again).
        const shown = (await matchesOf(call, id)).find((m) => m.id === match.id)!;
        expect(shown.report).toMatchObject({ state: "confirmed", resolved_by: "timeout" });
      } finally {
        await dispatcher.stop();
        expectStatus(await t.request("DELETE", `/webhooks/${hook.id}`), 200);
      }
    },
    60_000,
  );
});

/** Waits (SQL only) until the match is completed, or `ms` passed; the match as stored then. */
async function completed(matchId: string, ms = 60_000) {
  const until = Date.now() + ms;
  let now = await stored(matchId);
  while (now.status !== "completed" && Date.now() < until) {
    await sleep(100);
    now = await stored(matchId);
  }
  return now;
}

/** A tournament (4 teams, confirm within a minute) whose seed 1 has reported a 2–0 win (not yet due). */
async function reportedTournament(prefix: string) {
  const x = await reportingTournament(prefix);
  const match = (await matchesOf(x.call, x.id)).find((m) => m.round === 1 && m.team1_id === x.teams[0])!;
  await report(x.tokens.get(x.teams[0])!.token, match.id, { team1_score: 2, team2_score: 0 });
  return { ...x, match };
}

describe("the worker, when things go wrong and as deployed", () => {
  it("a sweep the database refuses is logged, the dispatcher goes on, and the next sweep applies the report", async () => {
    const proxy = await DatabaseProxy.start(inject("dispatcherDbUrl"));
    try {
      const d = await startTestDispatcher({ REPORT_SWEEP_MS: "500" }, proxy.via(inject("dispatcherDbUrl")));
      const { match } = await reportedTournament("Away");
      proxy.down();
      await moveBack([match.id], 61);
      const failed = () => d.lines.some((l) => l.includes(`"msg":"confirming due reports failed; the next sweep tries again"`));
      for (const until = Date.now() + 5000; !failed() && Date.now() < until;) await sleep(100);
      expect(failed(), d.lines.join("\n")).toBe(true);
      await sleep(1200); // more sweeps fail meanwhile
      expect((await stored(match.id)).status).toBe("ready");
      proxy.up();
      const now = await completed(match.id);
      expect(now).toMatchObject({ status: "completed", report: { state: "confirmed", resolved_by: "timeout" } });
      expect(d.lines.some((l) => l.includes(`"msg":"reports confirmed"`)), d.lines.join("\n")).toBe(true);
    } finally {
      await stopDispatchers();
      await proxy.close();
    }
  }, 60_000);

  it("deployed (Supabase Cron's POST every few seconds), each POST sweeps first and says how many it applied", async () => {
    const token = randomBytes(16).toString("hex");
    const port = await freePort();
    const d = await startTestDispatcher({ WEBHOOK_LISTEN: "", WEBHOOKS_PORT: String(port), WEBHOOK_DISPATCH_TOKEN: token });
    try {
      const { match, teams } = await reportedTournament("Cron");
      await moveBack([match.id], 61);
      const post = (bearer: string) =>
        fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers: { authorization: `Bearer ${bearer}` }, body: "{}" });
      const refused = await post("wrong");
      expect(refused.status).toBe(401);
      await refused.body?.cancel();
      expect((await stored(match.id)).status, "no sweep without the token").toBe("ready");
      const res = await post(token);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({ confirmed: 1 });
      expect(body.attempts).toEqual(expect.any(Number));
      expect(await stored(match.id)).toMatchObject({
        status: "completed",
        winner_id: teams[0],
        report: { state: "confirmed", resolved_by: "timeout" },
      });
      const again = await post(token);
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ confirmed: 0 });
    } finally {
      await d.stop();
    }
  }, 60_000);
});

describe("sweeps racing each other", () => {
  it("two sweeps at once, as the dispatcher's role, apply each due report exactly once", async () => {
    // Four tournaments, each with both first-round matches reported by their team 1 (a score,
    // and a side's own forfeit), all past their deadline; no dispatcher runs (this file's turn).
    const events: { t: Tenant; id: string; webhookId: string }[] = [];
    const all: { id: string; call: Call; teams: string[]; tokens: Map<string, { id: string; token: string }> }[] = [];
    for (let i = 0; i < 4; i++) {
      const x = await reportingTournament(`Race ${i}`);
      const hook = await createEndpoint(x.t, { url: NOWHERE, events: ["*"], tournament_id: x.id });
      events.push({ t: x.t, id: x.id, webhookId: hook.id });
      all.push(x);
    }
    const first = new Map<string, Reported[]>();
    const finalOf = new Map<string, Reported>();
    for (const x of all) {
      const round1 = (await matchesOf(x.call, x.id)).filter((m) => m.round === 1);
      await report(x.tokens.get(round1[0].team1_id!)!.token, round1[0].id, { team1_score: 3, team2_score: 1 });
      await report(x.tokens.get(round1[1].team1_id!)!.token, round1[1].id, { forfeit: "team1" });
      first.set(x.id, round1);
    }
    const round1 = [...first.values()].flat();
    await moveBack(round1.map((m) => m.id), 61);

    const a = new pg.Client({ connectionString: inject("dispatcherDbUrl") });
    const b = new pg.Client({ connectionString: inject("dispatcherDbUrl") });
    await Promise.all([a.connect(), b.connect()]);
    try {
      const sweep = async (c: pg.Client, limit?: number) =>
        (await c.query<{ n: number }>(`select webhooks.confirm_due_reports(${limit ?? ""}) as n`)).rows[0].n;
      const [na, nb] = await Promise.all([sweep(a), sweep(b)]);
      expect(na + nb, `${na} + ${nb}`).toBe(round1.length);
      console.log(`two sweeps at once: ${na} and ${nb} of ${round1.length} reports applied`);
      expect(await Promise.all([sweep(a), sweep(b)])).toEqual([0, 0]);

      for (const x of all) {
        const [m1, m2] = first.get(x.id)!;
        const s1 = await stored(m1.id), s2 = await stored(m2.id);
        expect(s1).toMatchObject({ status: "completed", winner_id: m1.team1_id, team1_score: 3, team2_score: 1 });
        expect(s2).toMatchObject({ status: "completed", winner_id: m2.team2_id, forfeit: "team1" });
        for (const s of [s1, s2]) expect(s.report).toMatchObject({ state: "confirmed", resolved_by: "timeout", note: null });
        // The final holds each winner once.
        const final = (await matchesOf(x.call, x.id)).find((m) => m.round === 2)!;
        expect([final.team1_id, final.team2_id].sort()).toEqual([m1.team1_id, m2.team2_id].sort());
        expect(final.status).toBe("ready");
      }

      // One sweep holds a tournament (its transaction still open) while the other sweeps: the
      // other skips it and applies the rest; once the first commits, nothing is left for anyone.
      for (const x of all) {
        const final = (await matchesOf(x.call, x.id)).find((m) => m.round === 2)!;
        await report(x.tokens.get(final.team1_id!)!.token, final.id, { team1_score: 0, team2_score: 2 });
        finalOf.set(x.id, final);
      }
      const finals = [...finalOf.values()];
      await moveBack(finals.map((m) => m.id), 61);
      await moveBack([finals[0].id], 60); // the oldest: the one a sweep of one takes
      await a.query("begin");
      expect(await sweep(a, 1)).toBe(1);
      expect(await sweep(b)).toBe(finals.length - 1); // the held tournament's final skipped (SKIP LOCKED)
      expect((await stored(finals[0].id)).status, "not committed yet").toBe("ready");
      await a.query("commit");
      expect(await Promise.all([sweep(a), sweep(b)])).toEqual([0, 0]);
      for (const f of finals) {
        expect(await stored(f.id)).toMatchObject({
          status: "completed",
          winner_id: f.team2_id,
          report: { state: "confirmed", resolved_by: "timeout" },
        });
      }
    } finally {
      await a.query("rollback").catch(() => {});
      await Promise.all([a.end(), b.end()]);
    }

    // Each match completed once: one match.completed per match, made by no one's request.
    for (const e of events) {
      const list = await eventsOf(e.id);
      const completed = list.filter((x) => x.type === "match.completed");
      expect(completed.map((x) => x.data.id).sort(), e.id).toEqual([...first.get(e.id)!.map((m) => m.id), finalOf.get(e.id)!.id].sort());
      for (const x of completed) {
        expect(x.actor).toBeNull();
        expect(x.data.report).toMatchObject({ state: "confirmed", resolved_by: "timeout" });
      }
      expect(list.filter((x) => x.type === "match.reported")).toHaveLength(3);
      expect(list.filter((x) => x.type === "match.ready" && x.actor === null)).toHaveLength(1); // the final, made ready by the sweep
      expect(list.filter((x) => x.type === "stage.completed")).toHaveLength(1);
      expectStatus(await e.t.request("DELETE", `/webhooks/${e.webhookId}`), 200);
    }
  }, 90_000);
});

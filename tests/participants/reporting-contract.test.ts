// Reported results (contract section 18), written from the contract alone by a second author:
// the tournament fields, who may report, the report object in each state, confirmation (by the
// opponent, by the same result, by the deadline's sweep), disputes, the organiser's result (PATCH,
// PUT game, forfeit, disqualification), games reports, a rule of the moment refusing an
// application, void reports, the application compared with the organiser's PATCH on a twin
// tournament in every format, the organiser's queue (?report_state=), webhooks and their actor,
// versions, deltas and the stream, Idempotency-Key, both sides (and the sweeps) acting at once,
// and a fast-check model of the state machine (REPORT_SEED replays a run). Events are read from
// the outbox (app.webhook_events); the deadline is tested by moving it and calling the sweep.
import fc from "fast-check";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatcherTurn } from "../support/webhook-helpers.ts";
import {
  type ApiResponse,
  apiUrl,
  type Call,
  createTeams,
  expectError,
  expectStatus,
  request,
  sql,
  startedTournament,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

const MINUTE = 60_000;
const RANDOM_ID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

// deno-lint-ignore no-explicit-any
type Json = any;

interface Side {
  teamId: string;
  regId: string;
  token: string;
  tokenId: string;
}

interface Fixture {
  t: Tenant;
  call: Call;
  id: string;
  /** Registration tokens by team id. */
  sides: Map<string, Side>;
  /** Webhook events already read by newEvents. */
  seen: Set<string>;
}

/**
 * A started tournament of `teams` (seeded in this order) with reporting on unless `fields` say
 * otherwise, a webhook endpoint for every event of it (so events are recorded), and a
 * registration token (default scopes) for each registration.
 */
async function fixture(teams: string[], fields: Record<string, unknown> = {}): Promise<Fixture> {
  const { t, call, id } = await startedTournament({ participant_reporting: "confirm", ...fields }, teams, async ({ call, id }) => {
    const hook = await call("POST", "/webhooks", { body: { url: "https://example.com/hooks/reports", events: ["*"], tournament_id: id } });
    expectStatus(hook, 201);
  });
  const regs = await call("GET", `/tournaments/${id}/registrations`);
  expectStatus(regs, 200);
  const sides = new Map<string, Side>();
  for (const reg of regs.body.data as { id: string; team_id: string }[]) {
    const minted = await call("POST", `/tournaments/${id}/registrations/${reg.id}/tokens`, { body: {} });
    expectStatus(minted, 201);
    sides.set(reg.team_id, { teamId: reg.team_id, regId: reg.id, token: minted.body.data.token, tokenId: minted.body.data.id });
  }
  expect(sides.size).toBe(teams.length);
  return { t, call, id, sides, seen: new Set() };
}

async function reportingTournament(teamCount: number, fields: Record<string, unknown> = {}): Promise<Fixture> {
  return await fixture(await createTeams(teamCount, "Reporter"), fields);
}

const report = (s: Side, matchId: string, body: unknown) =>
  request("POST", `/participant/matches/${matchId}/report`, { key: s.token, body });
const confirm = (s: Side, matchId: string) => request("POST", `/participant/matches/${matchId}/report/confirm`, { key: s.token });
const dispute = (s: Side, matchId: string, body: unknown = {}) =>
  request("POST", `/participant/matches/${matchId}/report/dispute`, { key: s.token, body });

async function results(f: Fixture, query = ""): Promise<Json> {
  const res = await f.call("GET", `/tournaments/${f.id}/results${query}`);
  expectStatus(res, 200);
  return res.body.data;
}

async function matchAt(f: Fixture, round: number, position: number): Promise<Json> {
  const m = (await results(f)).matches.find((x: Json) => x.round === round && x.position === position);
  if (!m) throw new Error(`no match at round ${round}, position ${position}`);
  return m;
}

async function matchById(f: Fixture, id: string): Promise<Json> {
  const m = (await results(f)).matches.find((x: Json) => x.id === id);
  if (!m) throw new Error(`no match ${id}`);
  return m;
}

/** Both sides of a match: [team1's, team2's]. */
function sidesOf(f: Fixture, m: Json): [Side, Side] {
  const one = f.sides.get(m.team1_id);
  const two = f.sides.get(m.team2_id);
  if (!one || !two) throw new Error(`match ${m.id} has no two known teams: ${JSON.stringify(m)}`);
  return [one, two];
}

const organiserResult = (f: Fixture, matchId: string, body: Record<string, unknown>) =>
  f.call("PATCH", `/tournaments/${f.id}/matches/${matchId}`, { body });

async function version(f: Fixture): Promise<number> {
  return (await results(f)).tournament.version;
}

interface Event {
  type: string;
  actor: { type: string; id: string } | null;
  data: Json;
}

/** The tournament's webhook events recorded since the last call. */
async function newEvents(f: Fixture): Promise<Event[]> {
  const rows = await sql<{ id: string; payload: string }>(
    "select id, payload from app.webhook_events where tournament_id = $1 order by created_at, id",
    [f.id],
  );
  const out: Event[] = [];
  for (const row of rows) {
    if (f.seen.has(row.id)) continue;
    f.seen.add(row.id);
    const p = JSON.parse(row.payload);
    out.push({ type: p.type, actor: p.actor, data: p.data });
  }
  return out;
}

const types = (events: Event[]) => events.map((e) => e.type).sort();
const participantActor = (s: Side) => ({ type: "participant", id: s.tokenId });

/** Runs the deadline sweep as the operator does, after moving the match's deadline into the past. */
// This file runs the worker's sweep itself (webhooks.confirm_due_reports), which applies every
// account's due reports: it takes the dispatchers' turn (tests/support/webhook-helpers.ts), so
// that no other file's worker applies its reports, nor it theirs, meanwhile.
let endTurn: (() => Promise<void>) | undefined;
beforeAll(async () => {
  endTurn = await dispatcherTurn();
}, 300_000); // tests/webhooks/delivery.test.ts's turn, at most
afterAll(async () => {
  await endTurn?.();
});

async function sweepPastDeadline(matchId: string | null): Promise<void> {
  if (matchId) await sql("update app.matches set report_confirm_by = now() - interval '1 s' where id = $1", [matchId]);
  await sql("select webhooks.confirm_due_reports()");
}

const REPORT_KEYS = ["confirm_by", "note", "resolved_by", "state", "team1", "team2"];
const ENTRY_KEYS = ["dispute", "evidence_url", "note", "reported_at", "result"];

/** A side's entry: exactly the contract's fields, and the given values. */
function expectEntry(entry: Json, want: { result: unknown; evidence_url?: string | null; note?: string | null }) {
  expect(entry, "the side's entry").not.toBeNull();
  expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS);
  expect(entry.result).toEqual(want.result);
  expect(entry.evidence_url).toBe(want.evidence_url ?? null);
  expect(entry.note).toBe(want.note ?? null);
}

/** The report object: exactly the contract's fields, and the given values. */
function expectReport(r: Json, want: { state: string; resolved_by?: string | null; note?: string | null }) {
  expect(r, "the match's report").not.toBeNull();
  expect(Object.keys(r).sort()).toEqual(REPORT_KEYS);
  expect(r.state).toBe(want.state);
  expect(r.resolved_by).toBe(want.resolved_by ?? null);
  if (want.note !== undefined) expect(r.note).toBe(want.note);
}

function expectIsoZ(value: unknown): number {
  expect(typeof value).toBe("string");
  expect(value as string).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  return Date.parse(value as string);
}

/** A moment inside [before, after], allowing a second of clock difference. */
function expectWithin(at: number, before: number, after: number) {
  expect(at).toBeGreaterThanOrEqual(before - 1000);
  expect(at).toBeLessThanOrEqual(after + 1000);
}

/** The bracket as a result shows it, without ids that differ between twin tournaments. */
function bracketShape(data: Json) {
  return {
    matches: data.matches.map((m: Json) => ({
      stage: m.stage,
      bracket: m.bracket,
      group: m.group,
      round: m.round,
      position: m.position,
      team1_id: m.team1_id,
      team2_id: m.team2_id,
      team1_score: m.team1_score,
      team2_score: m.team2_score,
      winner_id: m.winner_id,
      status: m.status,
      forfeit: m.forfeit,
      games: m.games.map((g: Json) => ({ number: g.number, team1_score: g.team1_score, team2_score: g.team2_score, map: g.map })),
    })),
    standings: data.standings,
  };
}

const PARTICIPANT_ROUTES = (matchId: string) => [
  (s: Side) => report(s, matchId, { team1_score: 2, team2_score: 1 }),
  (s: Side) => confirm(s, matchId),
  (s: Side) => dispute(s, matchId, {}),
];

describe("tournament fields participant_reporting and report_confirm_minutes", () => {
  it("default to off and 15, accept 1..1,440 and the two modes, and refuse anything else naming the field", async () => {
    const t = await tenant();
    const plain = await t.request("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(plain, 201);
    expect(plain.body.data.participant_reporting).toBe("off");
    expect(plain.body.data.report_confirm_minutes).toBe(15);
    const read = await t.request("GET", `/tournaments/${plain.body.data.id}`);
    expect(read.body.data).toMatchObject({ participant_reporting: "off", report_confirm_minutes: 15 });

    for (const minutes of [1, 1440]) {
      const ok = await t.request("POST", "/tournaments", {
        body: tournamentBody({ participant_reporting: "confirm", report_confirm_minutes: minutes }),
      });
      expectStatus(ok, 201);
      expect(ok.body.data).toMatchObject({ participant_reporting: "confirm", report_confirm_minutes: minutes });
    }
    for (const minutes of [0, 1441, -5, 1.5, "15", null]) {
      expectError(
        await t.request("POST", "/tournaments", { body: tournamentBody({ report_confirm_minutes: minutes }) }),
        400,
        "validation_error",
        ["report_confirm_minutes"],
      );
    }
    for (const mode of ["auto", "on", true, null, "CONFIRM"]) {
      expectError(
        await t.request("POST", "/tournaments", { body: tournamentBody({ participant_reporting: mode }) }),
        400,
        "validation_error",
        ["participant_reporting"],
      );
    }
    const id = plain.body.data.id;
    const patched = await t.request("PATCH", `/tournaments/${id}`, {
      body: { participant_reporting: "confirm", report_confirm_minutes: 30 },
    });
    expectStatus(patched, 200);
    expect(patched.body.data).toMatchObject({ participant_reporting: "confirm", report_confirm_minutes: 30 });
    expectError(await t.request("PATCH", `/tournaments/${id}`, { body: { report_confirm_minutes: 1441 } }), 400, "validation_error", [
      "report_confirm_minutes",
    ]);
  });

  it("change while ongoing; once completed both are 409 tournament_locked (the name still changes)", async () => {
    const f = await reportingTournament(2);
    const tour = `/tournaments/${f.id}`;
    const ongoing = await f.call("PATCH", tour, { body: { participant_reporting: "off", report_confirm_minutes: 7 } });
    expectStatus(ongoing, 200);
    expect(ongoing.body.data).toMatchObject({ status: "ongoing", participant_reporting: "off", report_confirm_minutes: 7 });
    expectStatus(await f.call("PATCH", tour, { body: { participant_reporting: "confirm" } }), 200);
    const final = await matchAt(f, 1, 1);
    expectStatus(await organiserResult(f, final.id, { team1_score: 1, team2_score: 0 }), 200);
    expectStatus(await f.call("PATCH", tour, { body: { status: "completed" } }), 200);
    expectError(await f.call("PATCH", tour, { body: { participant_reporting: "off" } }), 409, "tournament_locked");
    expectError(await f.call("PATCH", tour, { body: { report_confirm_minutes: 20 } }), 409, "tournament_locked");
    expectStatus(await f.call("PATCH", tour, { body: { name: "Renamed after the end" } }), 200);
    const read = await f.call("GET", tour);
    expect(read.body.data).toMatchObject({ participant_reporting: "confirm", report_confirm_minutes: 7, name: "Renamed after the end" });
  });
});

describe("who may report", () => {
  it("needs a registration token with participant:report: other scopes and sign-up tokens are 403, organiser keys 401", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one] = sidesOf(f, m);
    const lineupOnly = await f.call("POST", `/tournaments/${f.id}/registrations/${one.regId}/tokens`, {
      body: { scopes: ["participant:lineup", "participant:check_in"] },
    });
    expectStatus(lineupOnly, 201);
    const signup = await f.call("POST", `/tournaments/${f.id}/signup-tokens`, { body: {} });
    expectStatus(signup, 201);
    for (const token of [lineupOnly.body.data.token, signup.body.data.token]) {
      const weak: Side = { ...one, token };
      for (const send of PARTICIPANT_ROUTES(m.id)) {
        const res = await send(weak);
        expectError(res, 403, "insufficient_scope");
        expect(res.body.error.message).toContain("participant:report");
      }
    }
    const organiser: Side = { ...one, token: f.t.key };
    for (const send of PARTICIPANT_ROUTES(m.id)) expectError(await send(organiser), 401, "unauthorized");
    expect((await matchById(f, m.id)).report).toBeNull();
  });

  it("another registration's match, another tournament's match and an unknown match are 404", async () => {
    const f = await reportingTournament(4);
    const semi1 = await matchAt(f, 1, 1);
    const semi2 = await matchAt(f, 1, 2);
    const [a] = sidesOf(f, semi1);
    const other = await reportingTournament(2);
    const elsewhere = await matchAt(other, 1, 1);
    for (const matchId of [semi2.id, elsewhere.id, RANDOM_ID]) {
      for (const send of PARTICIPANT_ROUTES(matchId)) expectError(await send(a), 404, "not_found");
    }
    expect((await matchById(f, semi2.id)).report).toBeNull();
    expect((await matchById(other, elsewhere.id)).report).toBeNull();
  });

  it("a match not ready (a bye, one still waiting for its opponent) is 409 match_not_ready, before reporting_closed", async () => {
    const f = await reportingTournament(3);
    const data = await results(f);
    // seed 1 has the bye and waits in the final for the winner of 2 v 3
    const seed1 = [...f.sides.values()][0];
    const mine = data.matches.filter((m: Json) => m.team1_id === seed1.teamId || m.team2_id === seed1.teamId);
    const notReady = mine.filter((m: Json) => m.status !== "ready");
    expect(notReady.length, JSON.stringify(mine)).toBeGreaterThan(0);
    expect(notReady.some((m: Json) => m.status === "pending"), JSON.stringify(mine)).toBe(true);
    for (const m of notReady) {
      for (const send of PARTICIPANT_ROUTES(m.id)) expectError(await send(seed1), 409, "match_not_ready");
    }
    expectStatus(await f.call("PATCH", `/tournaments/${f.id}`, { body: { participant_reporting: "off" } }), 200);
    for (const m of notReady) {
      for (const send of PARTICIPANT_ROUTES(m.id)) expectError(await send(seed1), 409, "match_not_ready");
    }
    const ready = data.matches.find((m: Json) => m.status === "ready");
    const [two] = sidesOf(f, ready);
    for (const send of PARTICIPANT_ROUTES(ready.id)) expectError(await send(two), 409, "reporting_closed");
  });

  it("with reporting off (the default) report, confirm and dispute are 409 reporting_closed and nothing is recorded", async () => {
    const f = await reportingTournament(2, { participant_reporting: "off" });
    const m = await matchAt(f, 1, 1);
    expect(m.status).toBe("ready");
    const [one, two] = sidesOf(f, m);
    await newEvents(f);
    const before = await version(f);
    for (const side of [one, two]) {
      for (const send of PARTICIPANT_ROUTES(m.id)) expectError(await send(side), 409, "reporting_closed");
    }
    expectError(await report(one, m.id, { forfeit: "team1" }), 409, "reporting_closed");
    const after = await matchById(f, m.id);
    expect(after.report).toBeNull();
    expect(after.status).toBe("ready");
    expect(await newEvents(f)).toEqual([]);
    expect(await version(f)).toBe(before);
  });

  it("a side reports only its own forfeit: the other side's is 400 naming forfeit; its own waits for confirmation, then applies", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expectError(await report(one, m.id, { forfeit: "team2" }), 400, "validation_error", ["forfeit"]);
    expectError(await report(two, m.id, { forfeit: "team1" }), 400, "validation_error", ["forfeit"]);
    expect((await matchById(f, m.id)).report).toBeNull();

    const own = await report(two, m.id, { forfeit: "team2", note: "We cannot field five players" });
    expectStatus(own, 200);
    expect(own.body.data.status).toBe("ready");
    expect(own.body.data.forfeit).toBeNull();
    expectReport(own.body.data.report, { state: "awaiting_confirmation", note: null });
    expectEntry(own.body.data.report.team2, { result: { forfeit: "team2" }, note: "We cannot field five players" });
    expect(own.body.data.report.team1).toBeNull();

    const confirmed = await confirm(one, m.id);
    expectStatus(confirmed, 200);
    expect(confirmed.body.data).toMatchObject({
      status: "completed",
      forfeit: "team2",
      winner_id: one.teamId,
      team1_score: null,
      team2_score: null,
    });
    expectReport(confirmed.body.data.report, { state: "confirmed", resolved_by: "opponent" });
  });

  it("refuses malformed bodies with 400 naming the field, recording nothing", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    const bad: [unknown, string[]][] = [
      [{}, []],
      [{ team1_score: 2 }, []],
      [{ team1_score: 2, team2_score: 2 }, []],
      [{ team1_score: -1, team2_score: 2 }, ["team1_score"]],
      [{ team1_score: 2, team2_score: 1, forfeit: "team1" }, []],
      [{ team1_score: 2, team2_score: 1, games: [{ team1_score: 2, team2_score: 1 }] }, []],
      [{ team1_score: 2, team2_score: 1, winner: "team1" }, []],
      [{ team1_score: 2, team2_score: 1, evidence_url: "ftp://example.com/x.png" }, ["evidence_url"]],
      [{ team1_score: 2, team2_score: 1, evidence_url: "not a url" }, ["evidence_url"]],
      [{ team1_score: 2, team2_score: 1, evidence_url: `https://example.com/${"a".repeat(2030)}` }, ["evidence_url"]],
      [{ team1_score: 2, team2_score: 1, note: "n".repeat(501) }, ["note"]],
      [{ games: [{ team1_score: 3, team2_score: 3 }] }, []],
    ];
    for (const [body, fields] of bad) {
      const res = await report(one, m.id, body);
      expect(res.status, `${JSON.stringify(body).slice(0, 80)} → ${res.text}`).toBe(400);
      expectError(res, 400, "validation_error", fields);
    }
    expectError(await dispute(two, m.id, { note: "n".repeat(501) }), 400, "validation_error", ["note"]);
    expectError(await dispute(two, m.id, { evidence_url: "javascript:alert(1)" }), 400, "validation_error", ["evidence_url"]);
    expectError(await dispute(two, m.id, { reason: "x" }), 400, "validation_error");
    expect((await matchById(f, m.id)).report).toBeNull();
    // the limits themselves are fine
    const edge = await report(one, m.id, {
      team1_score: 2,
      team2_score: 1,
      evidence_url: `https://example.com/${"a".repeat(2048 - 20)}`,
      note: "n".repeat(500),
    });
    expectStatus(edge, 200);
  });
});

describe("a report's life", () => {
  it("a first report awaits confirmation: the exact object, confirm_by = report time + minutes, version, delta, /participant/matches, match.reported", async () => {
    const f = await reportingTournament(4, { report_confirm_minutes: 25 });
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expect(m.report).toBeNull();
    const before = await version(f);
    await newEvents(f);
    const t0 = Date.now();
    const res = await report(one, m.id, {
      team1_score: 16,
      team2_score: 12,
      evidence_url: "https://example.com/scoreboard.png",
      note: "GG",
    });
    const t1 = Date.now();
    expectStatus(res, 200);
    const r = res.body.data.report;
    expectReport(r, { state: "awaiting_confirmation", resolved_by: null, note: null });
    expectEntry(r.team1, { result: { team1_score: 16, team2_score: 12 }, evidence_url: "https://example.com/scoreboard.png", note: "GG" });
    expect(r.team1.dispute).toBeNull();
    expect(r.team2).toBeNull();
    const at = expectIsoZ(r.team1.reported_at);
    expectWithin(at, t0, t1);
    const by = expectIsoZ(r.confirm_by);
    expect(Math.abs(by - at - 25 * MINUTE)).toBeLessThanOrEqual(1000);
    // nothing applied yet
    expect(res.body.data).toMatchObject({ status: "ready", team1_score: null, team2_score: null, winner_id: null });

    // the answer is the match as results show it
    const data = await results(f);
    const shown = data.matches.find((x: Json) => x.id === m.id);
    expect(res.body.data).toEqual(shown);
    expect(data.tournament.version).toBeGreaterThan(before);
    const delta = await results(f, `?since=${before}`);
    expect(delta.matches.map((x: Json) => x.id)).toEqual([m.id]);
    expect(delta.matches[0].report).toEqual(r);
    // both sides see it in their matches
    for (const side of [one, two]) {
      const mine = await request("GET", "/participant/matches", { key: side.token });
      expectStatus(mine, 200);
      const listed = mine.body.data.find((x: Json) => x.id === m.id);
      expect(listed?.report).toEqual(r);
    }

    const events = await newEvents(f);
    expect(types(events)).toEqual(["match.reported"]);
    expect(events[0].actor).toEqual(participantActor(one));
    expect(events[0].data.id).toBe(m.id);
    expect(events[0].data.tournament_id).toBe(f.id);
    expect(events[0].data.report).toEqual(r);
  });

  it("the reporter may replace its report while it waits: a new result and a new confirm_by (with the minutes in force), match.reported again", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one] = sidesOf(f, m);
    const first = await report(one, m.id, { team1_score: 1, team2_score: 0 });
    expectStatus(first, 200);
    expectStatus(await f.call("PATCH", `/tournaments/${f.id}`, { body: { report_confirm_minutes: 7 } }), 200);
    await newEvents(f);
    await new Promise((r) => setTimeout(r, 50));
    const again = await report(one, m.id, { team1_score: 0, team2_score: 1, note: "Typo: they won" });
    expectStatus(again, 200);
    const r = again.body.data.report;
    expectReport(r, { state: "awaiting_confirmation", resolved_by: null, note: null });
    expectEntry(r.team1, { result: { team1_score: 0, team2_score: 1 }, note: "Typo: they won" });
    expect(r.team2).toBeNull();
    expect(r.confirm_by).not.toBe(first.body.data.report.confirm_by);
    expect(Date.parse(r.team1.reported_at)).toBeGreaterThan(Date.parse(first.body.data.report.team1.reported_at));
    expect(Math.abs(Date.parse(r.confirm_by) - Date.parse(r.team1.reported_at) - 7 * MINUTE)).toBeLessThanOrEqual(1000);
    const events = await newEvents(f);
    expect(types(events)).toEqual(["match.reported"]);
    expect(events[0].actor).toEqual(participantActor(one));
    expect(events[0].data.report.team1.result).toEqual({ team1_score: 0, team2_score: 1 });
  });

  it("the opponent's confirmation applies the result exactly as the organiser's PATCH does (bracket, standings, events), actor the confirming token", async () => {
    const teams = await createTeams(4, "Twin");
    const a = await fixture(teams);
    const b = await fixture(teams);
    for (const f of [a, b]) expectStatus(await organiserResult(f, (await matchAt(f, 1, 1)).id, { team1_score: 3, team2_score: 1 }), 200);
    await newEvents(a);
    await newEvents(b);

    const semiA = await matchAt(a, 1, 2);
    const [one, two] = sidesOf(a, semiA);
    expectStatus(await report(one, semiA.id, { team1_score: 1, team2_score: 4 }), 200);
    await newEvents(a);
    const before = await version(a);
    const res = await confirm(two, semiA.id);
    expectStatus(res, 200);
    expectReport(res.body.data.report, { state: "confirmed", resolved_by: "opponent", note: null });
    expectEntry(res.body.data.report.team1, { result: { team1_score: 1, team2_score: 4 } });
    expect(res.body.data).toMatchObject({ status: "completed", team1_score: 1, team2_score: 4, winner_id: two.teamId, forfeit: null });
    const eventsA = await newEvents(a);

    const semiB = await matchAt(b, 1, 2);
    expectStatus(await organiserResult(b, semiB.id, { team1_score: 1, team2_score: 4 }), 200);
    const eventsB = await newEvents(b);

    const dataA = await results(a);
    const dataB = await results(b);
    expect(res.body.data).toEqual(dataA.matches.find((x: Json) => x.id === semiA.id));
    expect(bracketShape(dataA)).toEqual(bracketShape(dataB));
    const finalA = dataA.matches.find((x: Json) => x.round === 2);
    expect(finalA.status).toBe("ready");
    expect([finalA.team1_id, finalA.team2_id]).toContain(two.teamId);
    expect(dataA.standings.map((s: Json) => s.team_id)).toContain(one.teamId);
    expect(dataA.tournament.version).toBeGreaterThan(before);

    expect(types(eventsA)).toEqual(types(eventsB));
    expect(types(eventsA)).toContain("match.completed");
    for (const e of eventsA) expect(e.actor, e.type).toEqual(participantActor(two));
    const completed = eventsA.find((e) => e.type === "match.completed")!;
    expect(completed.data.id).toBe(semiA.id);
    expect(completed.data.winner_id).toBe(two.teamId);
    expect(completed.data.report.state).toBe("confirmed");
    // a completed match answers match_not_ready before any report rule
    expectError(await report(one, semiA.id, { team1_score: 5, team2_score: 0 }), 409, "match_not_ready");
    expectError(await confirm(two, semiA.id), 409, "match_not_ready");
    expectError(await dispute(one, semiA.id, {}), 409, "match_not_ready");
  });

  it("the opponent reporting the same result confirms it; a different one disputes it, applying nothing and sending only match.disputed", async () => {
    const f = await reportingTournament(4);
    const same = await matchAt(f, 1, 1);
    const [s1, s2] = sidesOf(f, same);
    expectStatus(await report(s1, same.id, { team1_score: 2, team2_score: 0 }), 200);
    await newEvents(f);
    const agreed = await report(s2, same.id, { team1_score: 2, team2_score: 0, evidence_url: "https://example.com/ours.png" });
    expectStatus(agreed, 200);
    expectReport(agreed.body.data.report, { state: "confirmed", resolved_by: "opponent", note: null });
    expectEntry(agreed.body.data.report.team2, {
      result: { team1_score: 2, team2_score: 0 },
      evidence_url: "https://example.com/ours.png",
    });
    expect(agreed.body.data).toMatchObject({ status: "completed", winner_id: s1.teamId, team1_score: 2, team2_score: 0 });
    const agreedEvents = await newEvents(f);
    expect(types(agreedEvents)).toContain("match.completed");
    expect(types(agreedEvents)).not.toContain("match.disputed");
    expect(agreedEvents.find((e) => e.type === "match.completed")!.actor).toEqual(participantActor(s2));

    const diff = await matchAt(f, 1, 2);
    const [d1, d2] = sidesOf(f, diff);
    expectStatus(await report(d1, diff.id, { team1_score: 2, team2_score: 0 }), 200);
    await newEvents(f);
    const before = await version(f);
    const other = await report(d2, diff.id, { team1_score: 0, team2_score: 2, note: "We won" });
    expectStatus(other, 200);
    const r = other.body.data.report;
    expectReport(r, { state: "disputed", resolved_by: null, note: null });
    expectEntry(r.team1, { result: { team1_score: 2, team2_score: 0 } });
    expectEntry(r.team2, { result: { team1_score: 0, team2_score: 2 }, note: "We won" });
    expect(other.body.data).toMatchObject({ status: "ready", team1_score: null, team2_score: null, winner_id: null });
    const events = await newEvents(f);
    expect(types(events)).toEqual(["match.disputed"]);
    expect(events[0].actor).toEqual(participantActor(d2));
    expect(events[0].data.report.state).toBe("disputed");
    expect(await version(f)).toBeGreaterThan(before);
    const final = await matchAt(f, 2, 1);
    expect([final.team1_id, final.team2_id]).not.toContain(d1.teamId);
  });

  it("a disputed report is closed to participants and to the deadline; only the organiser decides, resolving it", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expectStatus(await report(one, m.id, { team1_score: 3, team2_score: 0 }), 200);
    expectStatus(await report(two, m.id, { team1_score: 0, team2_score: 3 }), 200);
    const disputed = (await matchById(f, m.id)).report;
    expect(disputed.state).toBe("disputed");
    for (const side of [one, two]) {
      expectError(await report(side, m.id, { team1_score: 1, team2_score: 0 }), 409, "reporting_closed");
      expectError(await confirm(side, m.id), 409, "reporting_closed");
      expectError(await dispute(side, m.id, { note: "again" }), 409, "reporting_closed");
    }
    await sweepPastDeadline(m.id);
    const still = await matchById(f, m.id);
    expect(still.status).toBe("ready");
    expect(still.report.state).toBe("disputed");
    expect(still.report.team1).toEqual(disputed.team1);
    expect(still.report.team2).toEqual(disputed.team2);
    await newEvents(f);

    const decided = await organiserResult(f, m.id, { team1_score: 3, team2_score: 2 });
    expectStatus(decided, 200);
    const after = await matchById(f, m.id);
    expect(after).toMatchObject({ status: "completed", team1_score: 3, team2_score: 2, winner_id: one.teamId });
    expectReport(after.report, { state: "resolved", resolved_by: "organizer" });
    expect(after.report.team1).toEqual(disputed.team1);
    expect(after.report.team2).toEqual(disputed.team2);
    const events = await newEvents(f);
    expect(types(events)).toContain("match.completed");
    expect(events.find((e) => e.type === "match.completed")!.actor).toEqual({ type: "key", id: f.t.keyId });
  });

  it("a dispute with note and evidence: the disputing side's entry has result null and its dispute; match.disputed", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    const reported = await report(one, m.id, { team1_score: 13, team2_score: 11, evidence_url: "https://example.com/a.png" });
    expectStatus(reported, 200);
    await newEvents(f);
    const t0 = Date.now();
    const res = await dispute(two, m.id, { note: "They used an unregistered player", evidence_url: "https://example.com/demo.dem" });
    const t1 = Date.now();
    expectStatus(res, 200);
    const r = res.body.data.report;
    expectReport(r, { state: "disputed", resolved_by: null, note: null });
    expect(r.team1).toEqual(reported.body.data.report.team1);
    expectEntry(r.team2, { result: null });
    expect(r.team2.reported_at).toBeNull();
    expect(Object.keys(r.team2.dispute).sort()).toEqual(["at", "evidence_url", "note"]);
    expect(r.team2.dispute).toMatchObject({ note: "They used an unregistered player", evidence_url: "https://example.com/demo.dem" });
    expectWithin(expectIsoZ(r.team2.dispute.at), t0, t1);
    expect(res.body.data).toMatchObject({ status: "ready", winner_id: null, team1_score: null });
    expect(res.body.data).toEqual(await matchById(f, m.id));
    const events = await newEvents(f);
    expect(types(events)).toEqual(["match.disputed"]);
    expect(events[0].actor).toEqual(participantActor(two));
  });

  it("a dispute before anyone reported: result null, the other side's entry null; closed to participants; the organiser's forfeit resolves it", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    await newEvents(f);
    const res = await dispute(two, m.id, {});
    expectStatus(res, 200);
    const r = res.body.data.report;
    expectReport(r, { state: "disputed", resolved_by: null, note: null });
    expect(r.team1).toBeNull();
    expectEntry(r.team2, { result: null });
    expect(r.team2.dispute).toMatchObject({ note: null, evidence_url: null });
    expectIsoZ(r.team2.dispute.at);
    const events = await newEvents(f);
    expect(types(events)).toEqual(["match.disputed"]);
    expectError(await report(one, m.id, { team1_score: 1, team2_score: 0 }), 409, "reporting_closed");
    expectError(await confirm(one, m.id), 409, "reporting_closed");

    expectStatus(await organiserResult(f, m.id, { forfeit: "team2" }), 200);
    const after = await matchById(f, m.id);
    expect(after).toMatchObject({ status: "completed", forfeit: "team2", winner_id: one.teamId });
    expectReport(after.report, { state: "resolved", resolved_by: "organizer" });
  });

  it("a side confirming its own report, or a report nobody made, is 409 reporting_closed and changes nothing", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expectError(await confirm(two, m.id), 409, "reporting_closed");
    expect((await matchById(f, m.id)).report).toBeNull();
    const reported = await report(one, m.id, { team1_score: 2, team2_score: 1 });
    expectStatus(reported, 200);
    const before = await version(f);
    await newEvents(f);
    expectError(await confirm(one, m.id), 409, "reporting_closed");
    const after = await matchById(f, m.id);
    expect(after.report).toEqual(reported.body.data.report);
    expect(after.status).toBe("ready");
    expect(await version(f)).toBe(before);
    expect(await newEvents(f)).toEqual([]);
  });

  it("nobody answering by confirm_by: the sweep applies it as confirmed by timeout, with actor null; a report still in time is left alone", async () => {
    const f = await reportingTournament(4);
    const due = await matchAt(f, 1, 1);
    const early = await matchAt(f, 1, 2);
    const [d1] = sidesOf(f, due);
    const [, e2] = sidesOf(f, early);
    expectStatus(await report(d1, due.id, { team1_score: 2, team2_score: 1 }), 200);
    expectStatus(await report(e2, early.id, { team1_score: 0, team2_score: 2 }), 200);
    await sweepPastDeadline(null);
    expect((await matchById(f, due.id)).report.state).toBe("awaiting_confirmation");
    await newEvents(f);
    const before = await version(f);
    await sweepPastDeadline(due.id);
    const data = await results(f);
    const applied = data.matches.find((x: Json) => x.id === due.id);
    expect(applied).toMatchObject({ status: "completed", team1_score: 2, team2_score: 1, winner_id: d1.teamId });
    expectReport(applied.report, { state: "confirmed", resolved_by: "timeout", note: null });
    expect(data.tournament.version).toBeGreaterThan(before);
    const untouched = data.matches.find((x: Json) => x.id === early.id);
    expect(untouched.status).toBe("ready");
    expect(untouched.report.state).toBe("awaiting_confirmation");
    const events = await newEvents(f);
    const completed = events.filter((e) => e.type === "match.completed");
    expect(completed.map((e) => e.data.id)).toEqual([due.id]);
    expect(completed[0].actor).toBeNull();
    // the final got its first team from the applied result
    const final = data.matches.find((x: Json) => x.round === 2);
    expect([final.team1_id, final.team2_id]).toContain(d1.teamId);
  });

  it("the organiser's PATCH resolves an awaiting report with its own result; a PUT game resolves it too, closing it while the series goes on", async () => {
    const f = await reportingTournament(4, { format_options: { best_of: 3 } });
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    const reported = await report(one, m.id, { team1_score: 2, team2_score: 0 });
    expectStatus(reported, 200);
    await newEvents(f);
    expectStatus(await organiserResult(f, m.id, { team1_score: 1, team2_score: 2 }), 200);
    const after = await matchById(f, m.id);
    expect(after).toMatchObject({ status: "completed", team1_score: 1, team2_score: 2, winner_id: two.teamId });
    expectReport(after.report, { state: "resolved", resolved_by: "organizer" });
    expect(after.report.team1).toEqual(reported.body.data.report.team1);
    const events = await newEvents(f);
    expect(events.find((e) => e.type === "match.completed")?.actor).toEqual({ type: "key", id: f.t.keyId });

    const g = await matchAt(f, 1, 2);
    const [g1, g2] = sidesOf(f, g);
    expectStatus(await report(g2, g.id, { team1_score: 0, team2_score: 2 }), 200);
    const game = await f.call("PUT", `/tournaments/${f.id}/matches/${g.id}/games/1`, { body: { team1_score: 13, team2_score: 7 } });
    expectStatus(game, 200);
    const open = await matchById(f, g.id);
    expect(open.status).toBe("ready");
    expect(open.games.length).toBe(1);
    expectReport(open.report, { state: "resolved", resolved_by: "organizer" });
    expectError(await report(g1, g.id, { team1_score: 2, team2_score: 1 }), 409, "reporting_closed");
    expectError(await report(g2, g.id, { team1_score: 1, team2_score: 2 }), 409, "reporting_closed");
    expectError(await confirm(g1, g.id), 409, "reporting_closed");
    expectError(await dispute(g1, g.id, {}), 409, "reporting_closed");
  });

  it("games reports: a whole decided series, applied as games; undecided or overlong series and wrong series scores are refused", async () => {
    const f = await reportingTournament(2, { format_options: { best_of: 3 } });
    const m = await matchAt(f, 1, 1);
    expect(m.best_of).toBe(3);
    const [one, two] = sidesOf(f, m);
    for (
      const body of [
        { games: [{ team1_score: 13, team2_score: 9 }] },
        { games: [{ team1_score: 13, team2_score: 9 }, { team1_score: 9, team2_score: 13 }] },
        { games: [{ team1_score: 13, team2_score: 9 }, { team1_score: 13, team2_score: 9 }, { team1_score: 13, team2_score: 9 }] },
        { team1_score: 1, team2_score: 0 },
        { team1_score: 3, team2_score: 1 },
        { team1_score: 2, team2_score: 2 },
      ]
    ) {
      const res = await report(one, m.id, body);
      expect([400, 409], `${JSON.stringify(body)} → ${res.text}`).toContain(res.status);
      expect(res.body.success).toBe(false);
    }
    expect((await matchById(f, m.id)).report).toBeNull();

    const games = [
      { team1_score: 13, team2_score: 9, map: "Mirage" },
      { team1_score: 8, team2_score: 13, map: "Inferno" },
      { team1_score: 16, team2_score: 14, map: "Nuke" },
    ];
    const res = await report(two, m.id, { games });
    expectStatus(res, 200);
    expectReport(res.body.data.report, { state: "awaiting_confirmation" });
    expectEntry(res.body.data.report.team2, { result: { games } });
    expect(res.body.data.games).toEqual([]);
    const confirmed = await confirm(one, m.id);
    expectStatus(confirmed, 200);
    const after = confirmed.body.data;
    expect(after).toMatchObject({ status: "completed", team1_score: 2, team2_score: 1, winner_id: one.teamId });
    expect(after.games.map((g: Json) => [g.number, g.team1_score, g.team2_score, g.map, g.winner_id])).toEqual([
      [1, 13, 9, "Mirage", one.teamId],
      [2, 8, 13, "Inferno", two.teamId],
      [3, 16, 14, "Nuke", one.teamId],
    ]);
    expectReport(after.report, { state: "confirmed", resolved_by: "opponent" });
    expect(after).toEqual(await matchById(f, m.id));
  });

  it("a series score on a best of 3 is accepted and applied; the same games reported by the opponent confirm", async () => {
    const f = await reportingTournament(4, { format_options: { best_of: 3 } });
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expectStatus(await report(one, m.id, { team1_score: 2, team2_score: 1 }), 200);
    const applied = await confirm(two, m.id);
    expectStatus(applied, 200);
    expect(applied.body.data).toMatchObject({ status: "completed", team1_score: 2, team2_score: 1, winner_id: one.teamId });

    const g = await matchAt(f, 1, 2);
    const [g1, g2] = sidesOf(f, g);
    const games = [{ team1_score: 5, team2_score: 13, map: "Ancient" }, { team1_score: 11, team2_score: 13, map: "Anubis" }];
    expectStatus(await report(g1, g.id, { games }), 200);
    const same = await report(g2, g.id, { games });
    expectStatus(same, 200);
    expect(same.body.data).toMatchObject({ status: "completed", team1_score: 0, team2_score: 2, winner_id: g2.teamId });
    expectReport(same.body.data.report, { state: "confirmed", resolved_by: "opponent" });
    expect(same.body.data.games.map((x: Json) => x.map)).toEqual(["Ancient", "Anubis"]);
  });

  it("a rule of the moment refusing the application (the series length changed since) leaves the report disputed with a note", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expectStatus(await report(one, m.id, { team1_score: 1, team2_score: 0 }), 200);
    expectStatus(await organiserResult(f, m.id, { best_of: 3 }), 200);
    const waiting = await matchById(f, m.id);
    expect(waiting.best_of).toBe(3);
    expect(waiting.report.state).toBe("awaiting_confirmation");
    await newEvents(f);
    const res = await confirm(two, m.id);
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ status: "ready", team1_score: null, winner_id: null });
    expectReport(res.body.data.report, { state: "disputed", resolved_by: null });
    expect(typeof res.body.data.report.note).toBe("string");
    expect(res.body.data.report.note.length).toBeGreaterThan(0);
    expect(types(await newEvents(f))).not.toContain("match.completed");
    // the organiser still decides
    expectStatus(await organiserResult(f, m.id, { team1_score: 2, team2_score: 0 }), 200);
    expectReport((await matchById(f, m.id)).report, { state: "resolved", resolved_by: "organizer" });
  });

  it("a locked match at application (the tournament no longer ongoing): the sweep leaves it disputed with a note, applying nothing", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one] = sidesOf(f, m);
    expectStatus(await report(one, m.id, { team1_score: 1, team2_score: 0 }), 200);
    await sql("update app.tournaments set status = 'completed' where id = $1", [f.id]);
    await newEvents(f);
    await sweepPastDeadline(m.id);
    const after = await matchById(f, m.id);
    expect(after).toMatchObject({ status: "ready", team1_score: null, winner_id: null });
    expectReport(after.report, { state: "disputed", resolved_by: null });
    expect(typeof after.report.note).toBe("string");
    expect(after.report.note.length).toBeGreaterThan(0);
    expect(types(await newEvents(f))).not.toContain("match.completed");
  });
});

/** An event without the ids that differ between twin tournaments. */
function eventShape(e: Event) {
  const d = e.data ?? {};
  const keep = [
    "stage",
    "bracket",
    "group",
    "round",
    "position",
    "number",
    "team1_id",
    "team2_id",
    "team1_score",
    "team2_score",
    "winner_id",
    "status",
  ];
  return { type: e.type, ...Object.fromEntries(keep.filter((k) => k in d).map((k) => [k, d[k]])) };
}
const byJson = (a: unknown, b: unknown) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1;

type Mode = "confirm" | "same report" | "timeout";
const STAGES = { stages: [{ format: "round_robin", advance: { per_group: 2 } }, { format: "single_elimination" }] };
const SWISS = { format: "swiss", format_options: { rounds: 2 } };
/** Name, tournament fields, how the report is applied, and the events the application sends (sorted). */
const TWINS: [string, Record<string, unknown>, Mode, string[]][] = [
  ["single elimination", {}, "confirm", ["match.completed", "match.ready"]],
  ["double elimination", { format: "double_elimination" }, "same report", ["match.completed", "match.ready", "match.ready"]],
  ["round robin", { format: "round_robin" }, "timeout", ["match.completed", "stage.completed"]],
  ["swiss (the next round drawn)", SWISS, "confirm", ["match.completed", "match.ready", "match.ready"]],
  ["swiss (the next round drawn)", SWISS, "timeout", ["match.completed", "match.ready", "match.ready"]],
  ["round robin into playoffs (the stage completes)", STAGES, "confirm", ["match.completed", "stage.completed"]],
  ["round robin into playoffs (the stage completes)", STAGES, "same report", ["match.completed", "stage.completed"]],
];

describe("applied exactly as the organiser's PATCH, in every format", () => {
  it.each(TWINS)("%s, %s: the same bracket, standings, stages and events as the organiser's result", async (_name, fields, mode, sent) => {
    const teams = await createTeams(4, "Twin");
    const a = await fixture(teams, fields);
    const b = await fixture(teams, fields);
    // every ready match but the last decided by the organiser in both, the last one by a report in a
    const ready = (await results(a)).matches.filter((m: Json) => m.status === "ready");
    expect(ready.length).toBeGreaterThan(1);
    const last = ready[ready.length - 1];
    for (const f of [a, b]) {
      const mine = (await results(f)).matches;
      for (const m of ready.slice(0, -1)) {
        const twin = mine.find((x: Json) =>
          x.stage === m.stage && x.round === m.round && x.position === m.position && x.bracket === m.bracket
        );
        expectStatus(await organiserResult(f, twin.id, { team1_score: 2, team2_score: 1 }), 200);
      }
    }
    const target = (await results(b)).matches.find((x: Json) =>
      x.stage === last.stage && x.round === last.round && x.position === last.position && x.bracket === last.bracket
    );
    const [one, two] = sidesOf(a, last);
    expectStatus(await report(one, last.id, { team1_score: 1, team2_score: 4 }), 200);
    await newEvents(a);
    await newEvents(b);
    const before = await version(a);
    if (mode === "confirm") expectStatus(await confirm(two, last.id), 200);
    else if (mode === "same report") expectStatus(await report(two, last.id, { team1_score: 1, team2_score: 4 }), 200);
    else await sweepPastDeadline(last.id);
    const eventsA = (await newEvents(a)).filter((e) => e.type !== "match.reported");
    expectStatus(await organiserResult(b, target.id, { team1_score: 1, team2_score: 4 }), 200);
    const eventsB = await newEvents(b);

    const dataA = await results(a);
    const applied = dataA.matches.find((x: Json) => x.id === last.id);
    expect(applied).toMatchObject({ status: "completed", team1_score: 1, team2_score: 4, winner_id: two.teamId });
    expectReport(applied.report, { state: "confirmed", resolved_by: mode === "timeout" ? "timeout" : "opponent" });
    expect(dataA.tournament.version).toBeGreaterThan(before);
    expect(bracketShape(dataA)).toEqual(bracketShape(await results(b)));
    const stageShape = async (f: Fixture) =>
      (await f.call("GET", `/tournaments/${f.id}/stages`)).body.data.map((st: Json) => [st.number, st.status, st.team_count]);
    expect(await stageShape(a)).toEqual(await stageShape(b));
    expect(eventsA.map(eventShape).sort(byJson)).toEqual(eventsB.map(eventShape).sort(byJson));
    expect(types(eventsB)).toEqual(sent);
    const actor = mode === "timeout" ? null : participantActor(two);
    for (const e of eventsA) expect(e.actor, e.type).toEqual(actor);
  });
});

describe("more of the organiser's and the service's side", () => {
  it("disqualifying a team with an open report forfeits its match and resolves the report (organizer)", async () => {
    const f = await reportingTournament(4);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expectStatus(await report(one, m.id, { team1_score: 5, team2_score: 0 }), 200);
    expectStatus(await f.call("PATCH", `/tournaments/${f.id}/registrations/${two.regId}`, { body: { disqualified: true } }), 200);
    const after = await matchById(f, m.id);
    expect(after).toMatchObject({ status: "completed", forfeit: "team2", winner_id: one.teamId });
    expectReport(after.report, { state: "resolved", resolved_by: "organizer" });
    expectError(await confirm(two, m.id), 409, "match_not_ready");
  });

  it("a report replayed with its Idempotency-Key answers the first response and records one report", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one] = sidesOf(f, m);
    await newEvents(f);
    const send = (body: unknown) =>
      request("POST", `/participant/matches/${m.id}/report`, { key: one.token, body, headers: { "idempotency-key": "report-1" } });
    const first = await send({ team1_score: 3, team2_score: 1 });
    expectStatus(first, 200);
    await new Promise((r) => setTimeout(r, 20));
    const again = await send({ team1_score: 3, team2_score: 1 });
    expectStatus(again, 200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data).toEqual(first.body.data);
    expect((await matchById(f, m.id)).report).toEqual(first.body.data.report);
    expect(types(await newEvents(f))).toEqual(["match.reported"]);
    expectError(await send({ team1_score: 1, team2_score: 3 }), 422, "idempotency_mismatch");
  });

  it("sweeps racing each other and the opponent's confirmation apply the report once", async () => {
    const f = await reportingTournament(8);
    const round1 = (await results(f)).matches.filter((m: Json) => m.round === 1);
    for (const m of round1) expectStatus(await report(sidesOf(f, m)[0], m.id, { team1_score: 2, team2_score: 0 }), 200);
    await newEvents(f);
    await sql("update app.matches set report_confirm_by = now() - interval '1 s' where id = any($1)", [round1.map((m: Json) => m.id)]);
    const confirms = await Promise.all([
      sql("select webhooks.confirm_due_reports()"),
      sql("select webhooks.confirm_due_reports()"),
      ...round1.map((m: Json) => confirm(sidesOf(f, m)[1], m.id)),
    ]);
    const data = await results(f);
    const events = await newEvents(f);
    for (const [i, m] of round1.entries()) {
      const answer = confirms[2 + i] as ApiResponse;
      expect(answer.status, answer.text).toBeLessThan(500);
      if (answer.status !== 200) expectError(answer, 409, "match_not_ready");
      const now = data.matches.find((x: Json) => x.id === m.id);
      expect(now).toMatchObject({ status: "completed", team1_score: 2, team2_score: 0 });
      expect(now.report.state).toBe("confirmed");
      expect(now.report.resolved_by).toBe(answer.status === 200 ? "opponent" : "timeout");
      expect(events.filter((e) => e.type === "match.completed" && e.data.id === m.id).length).toBe(1);
    }
  });
});

describe("void reports", () => {
  it("a correction upstream that changes the match's teams voids its open report; one that keeps them does not", async () => {
    const f = await reportingTournament(4);
    const semi1 = await matchAt(f, 1, 1);
    const semi2 = await matchAt(f, 1, 2);
    const [a, d] = sidesOf(f, semi1);
    const [b] = sidesOf(f, semi2);
    expectStatus(await organiserResult(f, semi1.id, { team1_score: 2, team2_score: 1 }), 200);
    expectStatus(await organiserResult(f, semi2.id, { team1_score: 2, team2_score: 1 }), 200);
    const final = await matchAt(f, 2, 1);
    expect(final.status).toBe("ready");
    expectStatus(await report(a, final.id, { team1_score: 1, team2_score: 0 }), 200);

    // same winner, other score: the final's teams stay, so does the report
    expectStatus(await organiserResult(f, semi1.id, { team1_score: 3, team2_score: 1 }), 200);
    expect((await matchById(f, final.id)).report.state).toBe("awaiting_confirmation");

    const before = await version(f);
    expectStatus(await organiserResult(f, semi1.id, { team1_score: 0, team2_score: 2 }), 200);
    const after = await matchById(f, final.id);
    expect([after.team1_id, after.team2_id]).toContain(d.teamId);
    expect([after.team1_id, after.team2_id]).not.toContain(a.teamId);
    expectReport(after.report, { state: "void", resolved_by: null });
    const delta = await results(f, `?since=${before}`);
    expect(delta.matches.find((x: Json) => x.id === final.id)?.report?.state).toBe("void");
    // the old side no longer plays it; the new side cannot confirm a void report
    expectError(await confirm(a, final.id), 404, "not_found");
    expectError(await confirm(d, final.id), 409, "reporting_closed");
    expectError(await confirm(b, final.id), 409, "reporting_closed");
  });

  it("an undone decision upstream (the organiser deletes the deciding game) takes a team out: the report is void, the match not ready", async () => {
    const f = await reportingTournament(4, { format_options: { best_of: 3 } });
    const semi1 = await matchAt(f, 1, 1);
    const semi2 = await matchAt(f, 1, 2);
    for (const m of [semi1, semi2]) {
      for (const n of [1, 2]) {
        expectStatus(
          await f.call("PUT", `/tournaments/${f.id}/matches/${m.id}/games/${n}`, { body: { team1_score: 13, team2_score: 4 } }),
          200,
        );
      }
    }
    const final = await matchAt(f, 2, 1);
    expect(final.status).toBe("ready");
    const [a, b] = sidesOf(f, final);
    expectStatus(await report(b, final.id, { team1_score: 0, team2_score: 2 }), 200);
    expectStatus(await f.call("DELETE", `/tournaments/${f.id}/matches/${semi1.id}/games/2`), 200);
    const after = await matchById(f, final.id);
    expect(after.status).toBe("pending");
    expect([after.team1_id, after.team2_id]).not.toContain(a.teamId);
    expectReport(after.report, { state: "void", resolved_by: null });
    expectError(await confirm(b, final.id), 409, "match_not_ready");
    await sweepPastDeadline(final.id);
    expect((await matchById(f, final.id)).status).toBe("pending");
  });

  it("reporting switched off voids an open report (version raised); the organiser still decides", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    expectStatus(await report(one, m.id, { team1_score: 1, team2_score: 0 }), 200);
    const before = await version(f);
    expectStatus(await f.call("PATCH", `/tournaments/${f.id}`, { body: { participant_reporting: "off" } }), 200);
    const data = await results(f);
    const after = data.matches.find((x: Json) => x.id === m.id);
    expectReport(after.report, { state: "void", resolved_by: null });
    expect(after.status).toBe("ready");
    expect(data.tournament.version).toBeGreaterThan(before);
    expectError(await confirm(two, m.id), 409, "reporting_closed");
    await sweepPastDeadline(m.id);
    expect((await matchById(f, m.id)).status).toBe("ready");
    expectStatus(await organiserResult(f, m.id, { team1_score: 0, team2_score: 1 }), 200);
    expect((await matchById(f, m.id)).winner_id).toBe(two.teamId);
  });
});

describe("the live stream", () => {
  it("carries a report's changes as deltas with the match's report, each at a new version", async () => {
    const f = await reportingTournament(2);
    const m = await matchAt(f, 1, 1);
    const [one, two] = sidesOf(f, m);
    const seen: { id: number; data: Json }[] = [];
    const es = new EventSource(`${apiUrl()}/tournaments/${f.id}/stream`, {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("authorization", `Bearer ${f.t.key}`);
        return fetch(input, { ...init, headers });
      },
    });
    es.addEventListener("results", (e) => seen.push({ id: Number(e.lastEventId), data: JSON.parse(e.data) }));
    const until = async (what: string, check: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(seen.map((x) => x.id))}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const stateIn = (x: { data: Json }) => x.data.matches.find((y: Json) => y.id === m.id)?.report?.state;
    try {
      await until("the first results", () => seen.length >= 1);
      expect(stateIn(seen[0]) ?? null).toBeNull();
      expectStatus(await report(one, m.id, { team1_score: 1, team2_score: 0 }), 200);
      await until("the report's delta", () => seen.some((x) => stateIn(x) === "awaiting_confirmation"));
      expectStatus(await dispute(two, m.id, {}), 200);
      await until("the dispute's delta", () => seen.some((x) => stateIn(x) === "disputed"));
      const reported = seen.find((x) => stateIn(x) === "awaiting_confirmation")!;
      const disputed = seen.find((x) => stateIn(x) === "disputed")!;
      expect(reported.id).toBeGreaterThan(seen[0].id);
      expect(disputed.id).toBeGreaterThan(reported.id);
      expect(disputed.data.tournament.version).toBe(disputed.id);
    } finally {
      es.close();
    }
  });
});

describe("the organiser's queue", () => {
  // Each request at one version answers its own filter, whichever was asked first (a filtered and an
  // unfiltered answer at the same version are different answers).
  it("?report_state= keeps the matches whose report is in that state; another value is 400 naming report_state", async () => {
    const f = await reportingTournament(8);
    const [m1, m2, m3, m4] = (await results(f)).matches.filter((m: Json) => m.round === 1);
    const [a1] = sidesOf(f, m1);
    const [b1, b2] = sidesOf(f, m2);
    const [c1, c2] = sidesOf(f, m3);
    expectStatus(await report(a1, m1.id, { team1_score: 1, team2_score: 0 }), 200);
    expectStatus(await report(b1, m2.id, { team1_score: 1, team2_score: 0 }), 200);
    expectStatus(await dispute(b2, m2.id, {}), 200);
    expectStatus(await report(c1, m3.id, { team1_score: 1, team2_score: 0 }), 200);
    expectStatus(await confirm(c2, m3.id), 200);
    const ids = async (query: string) => (await results(f, query)).matches.map((m: Json) => m.id);
    // each query at the same version, one after the other: each answers its own filter
    expect(await ids("?report_state=disputed")).toEqual([m2.id]);
    expect((await ids("")).length).toBe(7);
    expect(await ids("?report_state=awaiting_confirmation")).toEqual([m1.id]);
    expect(await ids("?report_state=disputed")).toEqual([m2.id]);
    expect(await ids("?report_state=awaiting_confirmation")).toEqual([m1.id]);
    const all = await ids("");
    expect(all).toContain(m4.id);
    expect(all.length).toBe(7);
    for (const bad of ["confirmed", "void", "x", ""]) {
      expectError(await f.call("GET", `/tournaments/${f.id}/results?report_state=${bad}`), 400, "validation_error", ["report_state"]);
    }
  });
});

describe("both sides at once", () => {
  it("different reports sent together: both answered, one disputed report holding both, one report and one dispute event", async () => {
    const f = await reportingTournament(8);
    const round1 = (await results(f)).matches.filter((m: Json) => m.round === 1);
    await newEvents(f);
    await Promise.all(round1.map(async (m: Json) => {
      const [one, two] = sidesOf(f, m);
      const answers = await Promise.all([
        report(one, m.id, { team1_score: 2, team2_score: 1 }),
        report(two, m.id, { team1_score: 1, team2_score: 2 }),
      ]);
      for (const a of answers) expectStatus(a, 200);
    }));
    const data = await results(f);
    const events = await newEvents(f);
    for (const m of round1) {
      const now = data.matches.find((x: Json) => x.id === m.id);
      expect(now.status).toBe("ready");
      expect(now.report.state).toBe("disputed");
      expect(now.report.team1.result).toEqual({ team1_score: 2, team2_score: 1 });
      expect(now.report.team2.result).toEqual({ team1_score: 1, team2_score: 2 });
      expect(types(events.filter((e) => e.data.id === m.id))).toEqual(["match.disputed", "match.reported"]);
    }
  });

  it("the opponent's confirmation and dispute sent together: exactly one wins, the other is refused", async () => {
    const f = await reportingTournament(8);
    const round1 = (await results(f)).matches.filter((m: Json) => m.round === 1);
    for (const m of round1) expectStatus(await report(sidesOf(f, m)[0], m.id, { team1_score: 2, team2_score: 0 }), 200);
    await newEvents(f);
    const answers = await Promise.all(round1.map(async (m: Json) => {
      const [, two] = sidesOf(f, m);
      return await Promise.all([confirm(two, m.id), dispute(two, m.id, { note: "No" })]);
    }));
    const data = await results(f);
    const events = await newEvents(f);
    for (const [i, m] of round1.entries()) {
      const [confirmed, disputed] = answers[i];
      const now = data.matches.find((x: Json) => x.id === m.id);
      const mine = types(events.filter((e) => e.data.id === m.id));
      if (confirmed.status === 200) {
        expectError(disputed, 409, "match_not_ready");
        expect(now.status).toBe("completed");
        expectReport(now.report, { state: "confirmed", resolved_by: "opponent" });
        expect(mine).toEqual(["match.completed"]);
      } else {
        expectError(confirmed, 409, "reporting_closed");
        expectStatus(disputed, 200);
        expect(now.status).toBe("ready");
        expectReport(now.report, { state: "disputed", resolved_by: null });
        expect(mine).toEqual(["match.disputed"]);
      }
    }
  });

  it("a confirmation racing the reporter's replacement, and the organiser's result racing a confirmation: one consistent outcome, no 5xx", async () => {
    const f = await reportingTournament(8);
    const [m1, m2, m3, m4] = (await results(f)).matches.filter((m: Json) => m.round === 1);
    for (const m of [m1, m2, m3, m4]) expectStatus(await report(sidesOf(f, m)[0], m.id, { team1_score: 3, team2_score: 0 }), 200);
    await newEvents(f);

    const raced = await Promise.all([m1, m2].map(async (m: Json) => {
      const [one, two] = sidesOf(f, m);
      const [replaced, confirmed] = await Promise.all([
        report(one, m.id, { team1_score: 0, team2_score: 3 }),
        confirm(two, m.id),
      ]);
      return { m, one, two, replaced, confirmed };
    }));
    const organised = await Promise.all([m3, m4].map(async (m: Json) => {
      const [, two] = sidesOf(f, m);
      const [organiser, confirmed] = await Promise.all([
        organiserResult(f, m.id, { team1_score: 1, team2_score: 2 }),
        confirm(two, m.id),
      ]);
      return { m, two, organiser, confirmed };
    }));
    const data = await results(f);
    const events = await newEvents(f);
    for (const { m, one, two, replaced, confirmed } of raced) {
      expect(replaced.status, replaced.text).toBeLessThan(500);
      expect(confirmed.status, confirmed.text).toBe(200);
      const now = data.matches.find((x: Json) => x.id === m.id);
      expect(now.status).toBe("completed");
      expect(now.report.state).toBe("confirmed");
      if (replaced.status === 200) {
        // the replacement came first and was the one confirmed
        expect(now).toMatchObject({ team1_score: 0, team2_score: 3, winner_id: two.teamId });
        expect(now.report.team1.result).toEqual({ team1_score: 0, team2_score: 3 });
      } else {
        expectError(replaced, 409, "match_not_ready");
        expect(now).toMatchObject({ team1_score: 3, team2_score: 0, winner_id: one.teamId });
        expect(now.report.team1.result).toEqual({ team1_score: 3, team2_score: 0 });
      }
      expect(events.filter((e) => e.data.id === m.id && e.type === "match.completed").length).toBe(1);
    }
    for (const { m, two, organiser, confirmed } of organised) {
      expectStatus(organiser, 200);
      expect(confirmed.status, confirmed.text).toBeLessThan(500);
      const now = data.matches.find((x: Json) => x.id === m.id);
      // the organiser's result always applies
      expect(now).toMatchObject({ status: "completed", team1_score: 1, team2_score: 2, winner_id: two.teamId });
      if (confirmed.status === 200) expect(["confirmed", "resolved"]).toContain(now.report.state);
      else {
        expectError(confirmed, 409, "match_not_ready");
        expectReport(now.report, { state: "resolved", resolved_by: "organizer" });
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The state machine against a model: random sequences of reports, confirmations, disputes,
// the organiser's results and the deadline's sweep on the final of a 2-team tournament.

type Res = { team1_score: number; team2_score: number } | { forfeit: "team1" | "team2" };
type Op =
  | { kind: "report"; side: 1 | 2; result: "team1_wins" | "team2_wins" | "own_forfeit" }
  | { kind: "confirm"; side: 1 | 2 }
  | { kind: "dispute"; side: 1 | 2 }
  | { kind: "organiser"; result: "team1_wins" | "team2_wins" }
  | { kind: "timeout" };

interface ModelSide {
  acted: boolean;
  confirmed: boolean;
  result: Res | null;
  disputed: boolean;
}

interface Model {
  status: "ready" | "completed";
  applied: Res | null;
  report: null | { state: string; resolved_by: string | null; reporter: 1 | 2 | null; sides: Record<1 | 2, ModelSide> };
  events: { reported: number; reportedMax: number; disputed: number; completed: number };
}

const resultBody = (r: "team1_wins" | "team2_wins" | "own_forfeit", side: 1 | 2): Res =>
  r === "team1_wins" ? { team1_score: 2, team2_score: 1 } : r === "team2_wins" ? { team1_score: 0, team2_score: 3 } : {
    forfeit: side === 1 ? "team1" : "team2",
  };

const sameResult = (a: Res | null, b: Res | null) => JSON.stringify(a) === JSON.stringify(b);
const blankSide = (): ModelSide => ({ acted: false, confirmed: false, result: null, disputed: false });

/** What the model says a request answers and does; null when the contract leaves it open (the op is skipped). */
function step(model: Model, op: Op): { status: number; code?: string; changed: boolean } | null {
  if (op.kind === "organiser") {
    if (model.status === "completed") return null; // a correction's effect on a closed report is left open
    model.status = "completed";
    model.applied = resultBody(op.result, 1);
    model.events.completed++;
    if (model.report && (model.report.state === "awaiting_confirmation" || model.report.state === "disputed")) {
      model.report.state = "resolved";
      model.report.resolved_by = "organizer";
    }
    return { status: 200, changed: true };
  }
  if (op.kind === "timeout") {
    if (model.status === "ready" && model.report?.state === "awaiting_confirmation") {
      const r = model.report;
      r.state = "confirmed";
      r.resolved_by = "timeout";
      model.status = "completed";
      model.applied = r.sides[r.reporter!].result;
      model.events.completed++;
      return { status: 200, changed: true };
    }
    return { status: 200, changed: false };
  }
  if (model.status === "completed") return { status: 409, code: "match_not_ready", changed: false };
  const me = op.side;
  const them: 1 | 2 = me === 1 ? 2 : 1;
  const r = model.report;
  const closed = { status: 409, code: "reporting_closed", changed: false };
  if (op.kind === "report") {
    const body = resultBody(op.result, me);
    if (!r) {
      model.report = { state: "awaiting_confirmation", resolved_by: null, reporter: me, sides: { 1: blankSide(), 2: blankSide() } };
      model.report.sides[me] = { acted: true, confirmed: false, result: body, disputed: false };
      model.events.reported++;
      model.events.reportedMax++;
      return { status: 200, changed: true };
    }
    if (r.state !== "awaiting_confirmation") return closed;
    if (r.reporter === me) {
      r.sides[me].result = body;
      model.events.reported++;
      model.events.reportedMax++;
      return { status: 200, changed: true };
    }
    r.sides[me].acted = true;
    r.sides[me].result = body;
    if (sameResult(body, r.sides[them].result)) {
      r.state = "confirmed";
      r.resolved_by = "opponent";
      model.status = "completed";
      model.applied = body;
      model.events.completed++;
      model.events.reportedMax++; // whether this one also sends match.reported is left open
    } else {
      r.state = "disputed";
      model.events.disputed++;
    }
    return { status: 200, changed: true };
  }
  if (op.kind === "confirm") {
    if (!r || r.state !== "awaiting_confirmation" || r.reporter === me) return closed;
    r.state = "confirmed";
    r.resolved_by = "opponent";
    r.sides[me].confirmed = true;
    model.status = "completed";
    model.applied = r.sides[them].result;
    model.events.completed++;
    return { status: 200, changed: true };
  }
  // dispute
  if (!r) {
    model.report = { state: "disputed", resolved_by: null, reporter: null, sides: { 1: blankSide(), 2: blankSide() } };
    model.report.sides[me] = { acted: true, confirmed: false, result: null, disputed: true };
    model.events.disputed++;
    return { status: 200, changed: true };
  }
  if (r.state !== "awaiting_confirmation") return closed;
  if (r.reporter === me) return null; // disputing one's own report is left open by the contract
  r.state = "disputed";
  r.sides[me].acted = true;
  r.sides[me].disputed = true;
  model.events.disputed++;
  return { status: 200, changed: true };
}

function expectMatchesModel(match: Json, model: Model, f: Fixture, where: string) {
  const [one, two] = sidesOf(f, match);
  expect(match.status, where).toBe(model.status);
  if (model.status === "completed") {
    const a = model.applied!;
    if ("forfeit" in a) {
      expect(match.forfeit, where).toBe(a.forfeit);
      expect([match.team1_score, match.team2_score], where).toEqual([null, null]);
      expect(match.winner_id, where).toBe(a.forfeit === "team1" ? two.teamId : one.teamId);
    } else {
      expect(match.forfeit, where).toBeNull();
      expect([match.team1_score, match.team2_score], where).toEqual([a.team1_score, a.team2_score]);
      expect(match.winner_id, where).toBe(a.team1_score > a.team2_score ? one.teamId : two.teamId);
    }
  } else {
    expect([match.team1_score, match.team2_score, match.winner_id, match.forfeit], where).toEqual([null, null, null, null]);
  }
  if (!model.report) {
    expect(match.report, where).toBeNull();
    return;
  }
  expect(match.report, where).not.toBeNull();
  expect(Object.keys(match.report).sort(), where).toEqual(REPORT_KEYS);
  expect(match.report.state, where).toBe(model.report.state);
  expect(match.report.resolved_by, where).toBe(model.report.resolved_by);
  expect(match.report.note, where).toBeNull();
  for (const n of [1, 2] as const) {
    const want = model.report.sides[n];
    const got = match.report[`team${n}`];
    if (want.acted) {
      expect(got, `${where}: team${n}`).not.toBeNull();
      expect(got.result, `${where}: team${n}.result`).toEqual(want.result);
      expect(got.dispute !== null, `${where}: team${n}.dispute`).toBe(want.disputed);
    } else if (!want.confirmed) {
      expect(got, `${where}: team${n}`).toBeNull();
    }
  }
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("report" as const),
      side: fc.constantFrom(1 as const, 2 as const),
      result: fc.constantFrom("team1_wins" as const, "team2_wins" as const, "own_forfeit" as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("confirm" as const), side: fc.constantFrom(1 as const, 2 as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("dispute" as const), side: fc.constantFrom(1 as const, 2 as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("organiser" as const),
      result: fc.constantFrom("team1_wins" as const, "team2_wins" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("timeout" as const) }) },
);

describe("the state machine (property)", () => {
  it("random sequences of reports, confirmations, disputes, organiser results and the sweep follow the model", async () => {
    const seed = process.env.REPORT_SEED ? Number(process.env.REPORT_SEED) : (Date.now() ^ (Math.random() * 2 ** 31)) | 0;
    console.log(`reporting state machine: REPORT_SEED=${seed}`);
    const teams = await createTeams(2, "Model");
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 7 }), async (ops) => {
        const f = await fixture(teams);
        const match = await matchAt(f, 1, 1);
        const [one, two] = sidesOf(f, match);
        const side = (n: 1 | 2) => (n === 1 ? one : two);
        const model: Model = {
          status: "ready",
          applied: null,
          report: null,
          events: { reported: 0, reportedMax: 0, disputed: 0, completed: 0 },
        };
        await newEvents(f);
        const log: string[] = [];
        for (const op of ops) {
          // the sweep's deadline is moved only where the match holds a report someone made
          const tamper = model.status === "ready" && model.report !== null && model.report.reporter !== null;
          const probe: Model = structuredClone(model);
          const want = step(probe, op);
          if (!want) continue;
          Object.assign(model, probe);
          log.push(JSON.stringify(op));
          const where = log.join(" → ");
          const before = await version(f);
          let res: ApiResponse | null = null;
          if (op.kind === "report") res = await report(side(op.side), match.id, resultBody(op.result, op.side));
          else if (op.kind === "confirm") res = await confirm(side(op.side), match.id);
          else if (op.kind === "dispute") res = await dispute(side(op.side), match.id, {});
          else if (op.kind === "organiser") res = await organiserResult(f, match.id, resultBody(op.result, 1));
          else await sweepPastDeadline(tamper ? match.id : null);
          if (res) {
            expect(res.status, `${where}: ${res.text}`).toBe(want.status);
            if (want.code) expect(res.body.error.code, where).toBe(want.code);
          }
          const now = await matchById(f, match.id);
          expectMatchesModel(now, model, f, where);
          if (res && res.status === 200 && op.kind !== "organiser") expect(res.body.data, where).toEqual(now);
          const after = await version(f);
          if (want.changed) expect(after, `${where}: version`).toBeGreaterThan(before);
          else if (op.kind !== "timeout") expect(after, `${where}: version`).toBe(before);
        }
        const events = await newEvents(f);
        const count = (type: string) => events.filter((e) => e.type === type && e.data.id === match.id).length;
        const where = log.join(" → ");
        expect(count("match.reported"), `${where}: match.reported`).toBeGreaterThanOrEqual(model.events.reported);
        expect(count("match.reported"), `${where}: match.reported`).toBeLessThanOrEqual(model.events.reportedMax);
        expect(count("match.disputed"), `${where}: match.disputed`).toBe(model.events.disputed);
        expect(count("match.completed"), `${where}: match.completed`).toBe(model.events.completed);
      }),
      { seed, numRuns: 40, endOnFailure: true },
    );
  }, 60_000);
});

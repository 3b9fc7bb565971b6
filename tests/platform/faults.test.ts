// Faults (issue 6, part 4), on a stack of this file's own (never the shared one):
// - Postgres stopped under a steady stream of writes: every request in the outage answers 503
//   service_unavailable with the full envelope, quickly; none hangs. Postgres back on the same
//   data: the same function process recovers, every acknowledged write is stored whole, every
//   refused one is absent, and no tournament is half made.
// - The function killed (SIGKILL) while its requests' transactions are open: nothing is half
//   written, since every request is one statement and so one transaction; a new function
//   process serves the same data.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { freePort, functionDatabaseUrl, prepareDatabase, startFunction, startPostgres } from "../../scripts/stack.mjs";
import { tournamentBody } from "../support/helpers.ts";

type Fn = Awaited<ReturnType<typeof startFunction>>;
type Db = Awaited<ReturnType<typeof startPostgres>>;

// A pool larger than the default 10, so that the kill test can hold 11 transactions open at once.
const FUNCTION_ENV = { DB_CONNECT_TIMEOUT_MS: "1000", DB_QUERY_TIMEOUT_MS: "3000", DB_POOL_SIZE: "32" };
/** No request may take longer than this, outage or not (connect 1 s + query 3 s, plus slack). */
const BOUND_MS = 5000;

let dir: string;
let dataDir: string;
let pgPort: number;
let db: Db | undefined;
let fnPort: number;
let fn: Fn | undefined;
let adminPool: pg.Pool | undefined;
const logLines: string[] = [];

let accountId: string;
let keys: string[] = [];
let teamPool: string[] = [];

async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[] = []) {
  return (await adminPool!.query<T>(text, values)).rows;
}

function launchFunction(): Promise<Fn> {
  return startFunction({
    port: fnPort,
    databaseUrl: functionDatabaseUrl(db!.url),
    env: FUNCTION_ENV,
    onLine: (line: string) => logLines.push(line),
  });
}

interface Outcome {
  kind: "create" | "register" | "start";
  /** The tournament name (create) or team id (register) that identifies the request's write. */
  ref: string;
  tournamentId?: string;
  started: number;
  ended: number;
  status: number | null;
  code?: string;
  // deno-lint-ignore no-explicit-any -- any JSON body
  body?: any;
  headers?: Headers;
  failure?: string;
}

/** Sends one request with a hard client-side limit, recording everything needed to correlate it. */
async function send(
  kind: Outcome["kind"],
  ref: string,
  key: string,
  method: string,
  pathname: string,
  body: unknown,
  tournamentId?: string,
): Promise<Outcome> {
  const started = performance.now();
  const out: Outcome = { kind, ref, tournamentId, started, ended: started, status: null };
  try {
    const res = await fetch(`${fn!.url}/functions/v1/api/v1${pathname}`, {
      method,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    });
    out.status = res.status;
    out.headers = res.headers;
    out.body = await res.json().catch(() => undefined);
    out.code = out.body?.success === false ? out.body.error?.code : undefined;
  } catch (err) {
    out.failure = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  out.ended = performance.now();
  return out;
}

const ALLOWED: Record<Outcome["kind"], string[]> = {
  create: ["201", "503 service_unavailable"],
  register: ["201", "409 tournament_full", "409 registration_closed", "503 service_unavailable"],
  start: ["200", "409 invalid_status_transition", "503 service_unavailable"],
};
const label = (o: Outcome) => (o.status === null ? `no response (${o.failure})` : o.code ? `${o.status} ${o.code}` : String(o.status));

function expectUnavailableEnvelope(o: Outcome): void {
  expect(o.status).toBe(503);
  expect(o.headers!.get("content-type")).toBe("application/json; charset=utf-8");
  expect(o.body.success).toBe(false);
  expect(o.body.error.code).toBe("service_unavailable");
  expect(typeof o.body.error.message).toBe("string");
  expect(o.body.meta.api_version).toBe("1.0");
  expect(o.body.meta.request_id).toBe(o.headers!.get("x-request-id"));
  expect(o.body.meta.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
}

const nextPowerOfTwo = (n: number) => {
  let p = 1;
  while (p < n) p *= 2;
  return p;
};

/**
 * The database-wide invariants no fault may break: registrations within capacity, a bracket
 * either absent or whole (exactly P − 1 matches) and agreeing with the status, no orphans.
 */
async function expectNothingHalfWritten(): Promise<void> {
  const rows = await sql<{ id: string; status: string; max_teams: number; regs: number; matches: number; finals: number }>(
    `select t.id, t.status, t.max_teams,
            (select count(*)::int from app.registrations r where r.tournament_id = t.id) as regs,
            (select count(*)::int from app.matches m where m.tournament_id = t.id) as matches,
            (select count(*)::int from app.matches m where m.tournament_id = t.id and m.next_match_id is null) as finals
       from app.tournaments t`,
  );
  const broken = rows.filter((t) => {
    if (t.regs > t.max_teams) return true;
    if (t.status === "registration") return t.matches !== 0;
    return t.regs < 2 || t.matches !== nextPowerOfTwo(t.regs) - 1 || t.finals !== 1;
  });
  expect(broken).toEqual([]);
  const [orphans] = await sql<{ regs: number; matches: number; links: number; keys: number }>(
    `select (select count(*)::int from app.registrations r
              where not exists (select from app.tournaments t where t.id = r.tournament_id)) as regs,
            (select count(*)::int from app.matches m
              where not exists (select from app.tournaments t where t.id = m.tournament_id)) as matches,
            (select count(*)::int from app.matches m join app.matches n on n.id = m.next_match_id
              where n.tournament_id <> m.tournament_id or n.round <> m.round + 1) as links,
            (select count(*)::int from app.rate_limits r
              where cardinality(r.slots) <> 100
                 or (select count(*) from unnest(r.slots) s where s > now() - interval '60 seconds') > 100) as keys`,
  );
  expect(orphans).toEqual({ regs: 0, matches: 0, links: 0, keys: 0 });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-faults-"));
  fs.chmodSync(dir, 0o755); // Postgres runs as the postgres user, below this folder
  dataDir = path.join(dir, "pg", "data");
  pgPort = await freePort();
  db = await startPostgres({ dataDir, port: pgPort, persistent: true });
  await prepareDatabase(db);
  adminPool = new pg.Pool({ connectionString: db.url, max: 4 });
  adminPool.on("error", () => {}); // its idle connections die with the outage
  fnPort = await freePort();
  fn = await launchFunction();

  [{ id: accountId }] = await sql<{ id: string }>("select admin.create_account('Faults') as id");
  await sql("select admin.set_api_access($1, true)", [accountId]);
  keys = (await sql<{ key: string }>(
    `select k.key from generate_series(1, 60) i,
       lateral admin.create_api_key($1, 'faults ' || i,
         array['read:tournaments', 'write:tournaments', 'read:registrations', 'write:registrations',
               'read:results', 'write:results']) k`,
    [accountId],
  )).map((r) => r.key);
  teamPool = (await sql<{ id: string }>(
    "select admin.create_team('Fault team ' || i, 'F' || i) as id from generate_series(1, 3000) i order by i",
  ))
    .map((r) => r.id);
}, 120_000);

afterAll(async () => {
  await fn?.stop();
  await adminPool?.end().catch(() => {});
  await db?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Creates a tournament through the API (before any fault). */
async function createTournament(key: string, overrides: Record<string, unknown>): Promise<string> {
  const o = await send("create", String(overrides.name), key, "POST", "/tournaments", tournamentBody(overrides));
  if (o.status !== 201) throw new Error(`create failed: ${label(o)} ${JSON.stringify(o.body)}`);
  return o.body.data.id;
}

describe("Postgres stopped under load", () => {
  it(
    "answers 503 service_unavailable within 5 s during the outage, recovers in the same process, and loses or half-writes nothing",
    async () => {
      const targets: string[] = [];
      for (let i = 0; i < 12; i++) targets.push(await createTournament(keys[i], { name: `Stream target ${i}`, max_teams: 24 }));
      const teams = teamPool.slice(0, 2500);
      let nextTeam = 0;
      let n = 0;
      let running = true;
      const outcomes: Outcome[] = [];

      // 8 workers, each sending one request after another (a short pause between), round-robin
      // over 60 keys so that the rate limit never answers: 5 in 10 creates, 4 registrations, 1 start.
      const worker = async () => {
        while (running) {
          const i = n++;
          const key = keys[i % keys.length];
          const target = targets[i % targets.length];
          const slot = i % 10;
          let o: Outcome;
          if (slot < 5 || nextTeam >= teams.length) {
            const name = `Outage ${i}`;
            o = await send("create", name, key, "POST", "/tournaments", tournamentBody({ name, max_teams: 16 }));
          } else if (slot < 9) {
            const team = teams[nextTeam++];
            o = await send("register", team, key, "POST", `/tournaments/${target}/registrations`, { team_id: team }, target);
          } else {
            o = await send("start", target, key, "PATCH", `/tournaments/${target}`, { status: "ongoing" }, target);
          }
          outcomes.push(o);
          await new Promise((r) => setTimeout(r, 15));
        }
      };
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const workers = Array.from({ length: 8 }, worker);

      await sleep(1200);
      // For the last 300 ms before the stop an operator's transaction holds the first 4 targets'
      // rows, so the requests on them are inside their transactions (rate-limit hit written, waiting)
      // when Postgres goes down: they must answer 503 and leave nothing.
      const holder = await adminPool!.connect();
      holder.on("error", () => {});
      await holder.query("begin");
      const held = targets.slice(0, 4);
      await holder.query("select 1 from app.tournaments where id = any($1) for update", [held]);
      const lockedAt = performance.now();
      await sleep(300);
      const stopBegin = performance.now();
      await db!.stop();
      const stopped = performance.now();
      holder.release(new Error("the server stopped"));
      await sleep(2500);
      const restartBegin = performance.now();
      db = await startPostgres({ dataDir, port: pgPort, persistent: true });
      const restarted = performance.now();
      await sleep(2500);
      running = false;
      await Promise.all(workers);

      const before = outcomes.filter((o) => o.ended < stopBegin);
      const outage = outcomes.filter((o) => o.started >= stopped && o.ended <= restartBegin);
      const after = outcomes.filter((o) => o.started >= restarted);
      const caught = outcomes.filter((o) => held.includes(o.tournamentId!) && o.started >= lockedAt && o.started < stopBegin);
      const summary = JSON.stringify({
        total: outcomes.length,
        before: before.length,
        outage: outage.length,
        after: after.length,
        inFlightAtStop: outcomes.filter((o) => o.started < stopBegin && o.ended > stopBegin).length,
        caught: caught.length,
        stopMs: Math.round(stopped - stopBegin),
        restartMs: Math.round(restarted - restartBegin),
        maxMs: Math.round(Math.max(...outcomes.map((o) => o.ended - o.started))),
      });
      console.log(`faults: outage stream ${summary}`);

      // Every request answered, within the bound, with an answer its operation may give.
      const unexpected = outcomes.filter((o) => !ALLOWED[o.kind].includes(label(o)))
        .map((o) => `${o.kind} ${label(o)} ${JSON.stringify(o.body?.error ?? null)}`);
      expect(unexpected, summary).toEqual([]);
      const slow = outcomes.filter((o) => o.ended - o.started >= BOUND_MS).map((o) =>
        `${o.kind} ${label(o)} ${Math.round(o.ended - o.started)} ms`
      );
      expect(slow, summary).toEqual([]);
      // The stream ran in each phase, and the outage was answered 503 throughout.
      expect(before.filter((o) => o.status === 201).length, summary).toBeGreaterThan(20);
      expect(outage.length, summary).toBeGreaterThan(50);
      for (const o of outage) expectUnavailableEnvelope(o);
      // The requests caught inside their transactions by the stop: 503 (and, below, nothing stored).
      expect(caught.length, summary).toBeGreaterThan(0);
      for (const o of caught) expectUnavailableEnvelope(o);
      // The same function process recovers at once: nothing started after the restart is a 503.
      expect(after.length, summary).toBeGreaterThan(20);
      expect(after.filter((o) => o.status === 503).map(label), summary).toEqual([]);
      expect(after.filter((o) => o.kind === "create" && o.status === 201).length, summary).toBeGreaterThan(5);
      expect(logLines.filter((l) => l.includes('"status":500'))).toEqual([]);

      // Creates: each 201 is stored once, whole, as answered; each 503 left nothing.
      const stored = await sql<
        { id: string; name: string; slug: string; status: string; max_teams: number; team_size: number; game_id: string }
      >(
        "select id, name, slug, status, max_teams, team_size, game_id from app.tournaments where account_id = $1 and name like 'Outage %'",
        [accountId],
      );
      const byName = new Map(stored.map((t) => [t.name, t]));
      expect(byName.size).toBe(stored.length); // no name twice
      const creates = outcomes.filter((o) => o.kind === "create");
      for (const o of creates) {
        const row = byName.get(o.ref);
        if (o.status === 201) {
          expect(row, o.ref).toBeDefined();
          expect({ id: row!.id, slug: row!.slug, status: row!.status, max_teams: row!.max_teams, team_size: row!.team_size })
            .toEqual({ id: o.body.data.id, slug: o.body.data.slug, status: "registration", max_teams: 16, team_size: 5 });
        } else {
          expect(row, `${o.ref} answered ${label(o)} but is stored`).toBeUndefined();
        }
      }
      expect(stored.length).toBe(creates.filter((o) => o.status === 201).length);

      // Registrations: each 201 is stored with the id answered; each refusal or 503 left nothing.
      const regs = await sql<{ id: string; team_id: string; tournament_id: string }>(
        "select id, team_id, tournament_id from app.registrations where tournament_id = any($1)",
        [targets],
      );
      const byTeam = new Map(regs.map((r) => [r.team_id, r]));
      const registers = outcomes.filter((o) => o.kind === "register");
      for (const o of registers) {
        const row = byTeam.get(o.ref);
        if (o.status === 201) expect(row && { id: row.id, t: row.tournament_id }).toEqual({ id: o.body.data.id, t: o.tournamentId });
        else expect(row, `${o.ref} answered ${label(o)} but is registered`).toBeUndefined();
      }
      expect(regs.length).toBe(registers.filter((o) => o.status === 201).length);

      // Starts: a 200 left the tournament ongoing; the brackets are whole wherever they exist.
      const started = new Set(outcomes.filter((o) => o.kind === "start" && o.status === 200).map((o) => o.tournamentId));
      const statuses = await sql<{ id: string; status: string }>("select id, status from app.tournaments where id = any($1)", [targets]);
      for (const t of statuses) if (started.has(t.id)) expect(t.status).toBe("ongoing");
      await expectNothingHalfWritten();
      console.log(`faults: outage tally ${
        JSON.stringify(Object.fromEntries(
          [...new Set(outcomes.map(label))].map((l) => [l, outcomes.filter((o) => label(o) === l).length]),
        ))
      }`);
    },
    60_000,
  );
});

describe("the function killed mid-request", () => {
  it("leaves every tournament whole (0 or P − 1 matches, agreeing with its status) and a new process serves the same data", async () => {
    const key = (i: number) => keys[(i * 7) % keys.length];
    const teams = teamPool.slice(2500);
    // A 512-team tournament to start, and one whose registrations will be blocked mid-transaction.
    const big = await createTournament(keys[0], { name: "Kill big", max_teams: 512 });
    const open = await createTournament(keys[1], { name: "Kill open", max_teams: 8 });
    await sql(
      `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
       select $1, $2, t, 'complete' from unnest($3::uuid[]) with ordinality u(t, i) order by i`,
      [big, accountId, teamPool.slice(0, 512)],
    );
    const mediums: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await createTournament(keys[2 + i], { name: `Kill medium ${i}`, max_teams: 128 });
      await sql(
        `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
         select $1, $2, t, 'complete' from unnest($3::uuid[]) with ordinality u(t, i) order by i`,
        [id, accountId, teamPool.slice(600 + 128 * i, 600 + 128 * (i + 1))],
      );
      mediums.push(id);
    }

    // An operator's transaction holds the rows of `big` and `open`: the requests on them take
    // their rate-limit write, then wait on the lock with their transactions open.
    const holder = await adminPool!.connect();
    let inFlight: Promise<Outcome>[] = [];
    try {
      await holder.query("begin");
      await holder.query("select 1 from app.tournaments where id = any($1) for update", [[big, open]]);
      const [{ pid: holderPid }] = (await holder.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
      inFlight = [
        send("start", big, key(0), "PATCH", `/tournaments/${big}`, { status: "ongoing" }, big),
        ...Array.from(
          { length: 10 },
          (_, i) => send("register", teams[i], key(1 + i), "POST", `/tournaments/${open}/registrations`, { team_id: teams[i] }, open),
        ),
        ...mediums.map((id, i) => send("start", id, key(11 + i), "PATCH", `/tournaments/${id}`, { status: "ongoing" }, id)),
        ...Array.from({ length: 10 }, (_, i) => {
          const name = `Kill create ${i}`;
          return send("create", name, key(15 + i), "POST", "/tournaments", tournamentBody({ name }));
        }),
      ];
      // Wait until the 11 requests on the held rows are inside their transactions, waiting on the
      // holder directly or in the queue behind one that does. (Counted by blocker: the creates and
      // medium starts of the same account also wait, briefly, on each other's per-account counter
      // rows, and must not count here.)
      const deadline = Date.now() + 10_000;
      let waiting = 0;
      while (Date.now() < deadline) {
        [{ waiting }] = await sql<{ waiting: number }>(
          `with recursive behind(pid) as (
             select $1::int
             union
             select a.pid from pg_stat_activity a join behind b on b.pid = any(pg_blocking_pids(a.pid))
              where a.usename = 'tournament_api' and a.state = 'active')
           select count(*)::int - 1 as waiting from behind`,
          [holderPid],
        );
        if (waiting >= 11) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(waiting).toBe(11);
      fn!.child.kill("SIGKILL");
      await new Promise((r) => fn!.child.once("exit", r));
    } finally {
      await holder.query("rollback").catch(() => {});
      holder.release();
    }

    const outcomes = await Promise.all(inFlight);
    // The 11 blocked requests never got an answer: the process died with them open.
    const blocked = outcomes.filter((o) => o.tournamentId === big || o.tournamentId === open);
    expect(blocked.map((o) => o.status)).toEqual(Array(11).fill(null));
    // Whatever the others got, it was a real answer or none at all.
    for (const o of outcomes) if (o.status !== null) expect(ALLOWED[o.kind]).toContain(label(o));

    // The orphaned backends run to their end (commit or rollback), then nothing is active.
    const deadline = Date.now() + 15_000;
    let active = -1;
    while (Date.now() < deadline) {
      [{ active }] = await sql<{ active: number }>(
        "select count(*)::int as active from pg_stat_activity where usename = 'tournament_api' and state <> 'idle'",
      );
      if (active === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(active).toBe(0);
    await expectNothingHalfWritten();

    // The tournaments the killed requests touched are each in one whole state.
    const rows = await sql<{ id: string; status: string; regs: number; matches: number }>(
      `select t.id, t.status,
              (select count(*)::int from app.registrations r where r.tournament_id = t.id) as regs,
              (select count(*)::int from app.matches m where m.tournament_id = t.id) as matches
         from app.tournaments t where t.id = any($1)`,
      [[big, open, ...mediums]],
    );
    for (const t of rows) {
      if (t.id === open) expect(t.regs).toBeLessThanOrEqual(8);
      else expect([`registration 0`, `ongoing ${t.regs - 1}`]).toContain(`${t.status} ${t.matches}`);
    }
    const bigRow = rows.find((t) => t.id === big)!;
    expect(bigRow.regs).toBe(512);
    const creates = await sql<{ name: string; slug: string; status: string }>(
      "select name, slug, status from app.tournaments where name like 'Kill create %'",
    );
    for (const c of creates) expect(c.status).toBe("registration");
    console.log(
      `faults: kill ${
        JSON.stringify({
          big: `${bigRow.status} ${bigRow.matches}`,
          open: rows.find((t) => t.id === open)!.regs,
          creates: creates.length,
          answered: outcomes.filter((o) => o.status !== null).length,
          unanswered: outcomes.filter((o) => o.status === null).length,
        })
      }`,
    );

    // A new function process on the same port serves the same data, and the work goes on.
    fn = await launchFunction();
    const start = await send("start", big, key(30), "PATCH", `/tournaments/${big}`, { status: "ongoing" }, big);
    expect(label(start)).toBe("200");
    expect(start.body.data.status).toBe("ongoing");
    const [{ matches }] = await sql<{ matches: number }>(
      "select count(*)::int as matches from app.matches where tournament_id = $1",
      [big],
    );
    expect(matches).toBe(511);
    const results = await fetch(`${fn.url}/functions/v1/api/v1/tournaments/${big}/results`, {
      headers: { authorization: `Bearer ${key(31)}` },
    });
    expect(results.status).toBe(200);
    const ready = (await results.json()).data.matches.find((m: { status: string }) => m.status === "ready");
    const reported = await send("start", big, key(32), "PATCH", `/tournaments/${big}/matches/${ready.id}`, {
      team1_score: 2,
      team2_score: 1,
    }, big);
    expect(label(reported)).toBe("200");
    expect(reported.body.data.winner_id).toBe(ready.team1_id);
    const fresh = await createTournament(key(33), { name: "Kill after", max_teams: 4 });
    const reg = await send("register", teams[20], key(34), "POST", `/tournaments/${fresh}/registrations`, { team_id: teams[20] }, fresh);
    expect(label(reg)).toBe("201");
    expect(logLines.filter((l) => l.includes('"status":500'))).toEqual([]);
    await expectNothingHalfWritten();
  }, 60_000);
});

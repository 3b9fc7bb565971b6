// The webhook figures of `npm run bench` (and `npm run bench -- --webhooks` alone), measured in
// the same run as their floors:
//
//  1. POST /tournaments for an account with one endpoint (events ["*"]) against the same
//     workload for an account without one: same load generator, connections and duration,
//     runs alternated A B B A … so that the machine's drift cancels. The dispatcher is not
//     running meanwhile (the deliveries wait): what the API itself pays to record events.
//  2. The dispatcher's throughput: E events recorded over C endpoints (C accounts, one endpoint
//     each, one receiver path each) with no dispatcher running; then the dispatcher starts
//     (WEBHOOK_CONCURRENCY=C) and is timed until every delivery is `succeeded`. Per endpoint
//     the dispatcher sends first attempts one after another, in order, hence C endpoints for
//     concurrency C. The floor: a plain POST loop (bench/lib/webhook-floor.mjs, its own
//     process) POSTing the same payloads, signed the same way, to the same receiver paths,
//     one after another per endpoint and C endpoints side by side: Deno's fetch (the
//     dispatcher's runtime), measured before and after, the higher counts. Node's node:http and
//     Node's fetch run once each for reference: Node's fetch (undici) costs about 1.3 ms of CPU
//     per request here, slower than the dispatcher itself, so it is no floor.
//  3. Commit-to-receipt latency with the dispatcher running (woken by LISTEN/NOTIFY): single
//     changes (an UPDATE of a tournament's name as the operator, one transaction each) spaced
//     20 ms apart; the receiver's arrival time minus the payload's `timestamp` (taken at commit).
//  4. A 1,024-team single elimination started through the API (512 match.ready events) with an
//     endpoint subscribed to match.ready: from the start's response until all 512 arrived.
//
// The receiver (bench/lib/receiver.mjs) is a process of its own: node:http, 200 at once.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { dispatcherDatabaseUrl, startDispatcher } from "../../scripts/stack.mjs";
import pg from "pg";
import { api, send } from "./client.mjs";
import { children, runWebhookFloor, startReceiver } from "./processes.mjs";
import { cpuSeconds, resetStats, watch } from "./measure.mjs";
import { fixed, markdown, verdict } from "./report.mjs";
import * as seed from "./seed.mjs";

export const WEBHOOK_TARGETS = { create_ratio: 0.9, dispatch_ratio: 0.5, bracket_ms: 5000 };
const SPACING_MS = 20;
const wall = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted, q) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null;
/** The machine's CPU seconds so far, by kind (/proc/stat, all CPUs): to tell steal and I/O wait from work. */
function machineTimes() {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/)
    .slice(1).map(Number);
  return { busy: (user + nice + system + irq + softirq) / 100, steal: steal / 100, iowait: iowait / 100, idle: idle / 100 };
}
const since = (t0) => Object.fromEntries(Object.entries(machineTimes()).map(([k, v]) => [k, round(v - t0[k])]));

/** Pauses over `minMs` between consecutive arrival times: [{after (the count before it), ms}]. */
function pausesOf(times, minMs = 200) {
  const out = [];
  for (let i = 1; i < times.length; i++) {
    if (times[i] - times[i - 1] > minMs) out.push({ after: i, ms: Math.round(times[i] - times[i - 1]) });
  }
  return out;
}
const pauseText = (pauses) =>
  `${pauses.length} pauses over 200 ms between arrivals, ${pauses.reduce((a, p) => a + p.ms, 0)} ms in all` +
  (pauses.length
    ? ` (after arrival ${pauses.slice(0, 12).map((p) => `${p.after}: ${p.ms} ms`).join(", ")}` +
      `${pauses.length > 12 ? ", …" : ""})`
    : "");

const round = (x, d = 2) => (x === null || x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);

/**
 * Runs the four measurements on a stack whose function has WEBHOOK_ENCRYPTION_KEY (`webhookKey`)
 * and WEBHOOK_ALLOW_LOCAL=true. `measure(workload, how)` is the bench's one-workload driver
 * (bench/run.mjs). Returns the figures, `targets` ({target, value, result}) among them.
 */
export async function webhookBench(
  { db, stack, view, pgPid, measure, teams, duration, pairs = 3, events = 3000, concurrency = 16, latencySamples = 200, log },
) {
  const base = stack.origin + stack.basePath;
  const receiver = await startReceiver();
  const out = { receiver_pid: receiver.pid, concurrency, events };
  let dispatcher = null;
  const dispatcherLines = [];
  const stopDispatcher = async () => {
    if (!dispatcher) return;
    await dispatcher.stop();
    children.delete(dispatcher.child);
    dispatcher = null;
  };
  try {
    // Accounts: A (one endpoint) and N (none) for 1; C for 2; L for 3; M for 4. Numbered from
    // 101 so that their names stay apart from the scenario's accounts.
    const ids = await seed.createAccounts(db, 4 + concurrency, 101);
    const [hooked, plain, latency, major] = ids;
    const spread = ids.slice(4);
    const setupKeys = await seed.createKeys(db, ids, ids.length, "webhooks setup"); // one each, every scope
    const keyOf = (account) => setupKeys[ids.indexOf(account)].key;
    const endpoint = (account, url, eventTypes) => api(base, keyOf(account), "POST", "/webhooks", { url, events: eventTypes });

    // 1. POST /tournaments, with one endpoint and without.
    await endpoint(hooked, `${receiver.origin}/c/`, ["*"]);
    log(`webhooks 1/4: POST /tournaments with one endpoint (A) and without (N), ${pairs} pairs of ${duration} s, A B B A…`);
    const warm = await measure("create", { keyAccounts: [hooked], duration: 2 }); // warm-up
    await measure("create", { keyAccounts: [plain], duration: 2 });
    const runs = { with: [], without: [] };
    for (let i = 0; i < pairs; i++) {
      for (const side of i % 2 === 0 ? ["with", "without"] : ["without", "with"]) {
        const sampler = await sampleWaits(stack.adminUrl);
        const row = await measure("create", { keyAccounts: [side === "with" ? hooked : plain], duration });
        row.waits = await sampler.stop();
        row.other_cpu_pct = (100 * row.other_cpu_s) / row.duration_s / os.cpus().length;
        runs[side].push(row);
        log(
          `  ${side === "with" ? "A, one endpoint" : "N, no endpoint "}: ${row.rps.toFixed(0)} req/s, p50 ` +
            `${row.latency_ms.p50} ms, ${fixed(row.db_ms_per_request, 2)} db ms/req, ${fixed(row.wal_bytes_per_request)} WAL B/req, ` +
            `errors ${row.errors}${row.unexpected.length ? ` (${row.unexpected[0]})` : ""}`,
        );
      }
    }
    const { rows: [recorded] } = await db.query(
      `select count(*)::int as deliveries, count(distinct event_id)::int as events from app.webhook_deliveries
        where account_id = $1`,
      [hooked],
    );
    const sum = (list, f) => list.reduce((a, r) => a + f(r), 0);
    const mean = (list, f) => sum(list, f) / list.length;
    const create = {
      with_rps: sum(runs.with, (r) => r.completed) / sum(runs.with, (r) => r.duration_s),
      without_rps: sum(runs.without, (r) => r.completed) / sum(runs.without, (r) => r.duration_s),
      pair_ratios: runs.with.map((r, i) => round(r.rps / runs.without[i].rps, 3)),
      with: summarize(runs.with),
      without: summarize(runs.without),
      db_ms_per_request: [mean(runs.with, (r) => r.db_ms_per_request ?? 0), mean(runs.without, (r) => r.db_ms_per_request ?? 0)],
      wal_bytes_per_request: [
        mean(runs.with, (r) => r.wal_bytes_per_request ?? 0),
        mean(runs.without, (r) => r.wal_bytes_per_request ?? 0),
      ],
      // CPU per request (ms): the function, Postgres (every backend)
      fn_cpu_ms_per_request: [
        sum(runs.with, (r) => r.fn_cpu_s ?? 0) * 1000 / sum(runs.with, (r) => r.completed),
        sum(runs.without, (r) => r.fn_cpu_s ?? 0) * 1000 / sum(runs.without, (r) => r.completed),
      ],
      pg_cpu_ms_per_request: [
        sum(runs.with, (r) => r.pg_cpu_s ?? 0) * 1000 / sum(runs.with, (r) => r.completed),
        sum(runs.without, (r) => r.pg_cpu_s ?? 0) * 1000 / sum(runs.without, (r) => r.completed),
      ],
      // the function role's active backends by what they wait on (mean per 20 ms sample)
      waits: [meanWaits(runs.with.map((r) => r.waits)), meanWaits(runs.without.map((r) => r.waits))],
      errors: sum([...runs.with, ...runs.without], (r) => r.errors),
      events_recorded: recorded.events,
      deliveries_recorded: recorded.deliveries,
      created_with_endpoint: sum(runs.with, (r) => r.ok) + warm.ok, // with the warm-up's
    };
    create.ratio = create.with_rps / create.without_rps;
    out.create = create;
    log(
      `  ratio ${create.ratio.toFixed(3)} (pairs: ${create.pair_ratios.join(", ")}); A recorded ${recorded.events} events ` +
        `(${recorded.deliveries} deliveries, left undelivered)`,
    );
    // A's undelivered backlog goes, so that the dispatcher starts with part 2's deliveries alone.
    await db.query("delete from app.webhook_endpoints where account_id = $1", [hooked]);
    await db.query("delete from app.webhook_events where account_id = $1", [hooked]);
    await db.query("vacuum (analyze) app.webhook_deliveries, app.webhook_events, app.webhook_endpoints");

    // 2. Throughput: E events over C endpoints, recorded while no dispatcher runs.
    log(
      `webhooks 2/4: dispatcher throughput, ${events} events over ${concurrency} endpoints (one receiver path each), ` +
        `WEBHOOK_CONCURRENCY=${concurrency}`,
    );
    const secrets = new Map();
    for (const [i, account] of spread.entries()) {
      const made = await endpoint(account, `${receiver.origin}/w/${i}`, ["*"]);
      secrets.set(made.id, made.secret);
    }
    const t = performance.now();
    // One insert, one transaction: `events` tournaments round-robin over the C accounts, so one
    // tournament.created event each and one delivery each (numbered far above the scenario's).
    await seed.createTournaments(db, spread, events, 50_000_000);
    const recordMs = performance.now() - t;
    // Statistics that know the backlog (autovacuum would analyze it within the minute).
    await db.query("analyze app.webhook_deliveries, app.webhook_events, app.webhook_endpoints");
    const { rows: queued } = await db.query(
      `select d.endpoint_id, w.url, e.id, e.payload from app.webhook_deliveries d
         join app.webhook_events e on e.id = d.event_id join app.webhook_endpoints w on w.id = d.endpoint_id
        where d.account_id = any ($1) and d.status = 'pending' order by d.endpoint_id, d.seq`,
      [spread],
    );
    if (queued.length !== events) throw new Error(`${queued.length} deliveries pending after recording ${events} events`);
    const byEndpoint = new Map();
    for (const r of queued) {
      if (!byEndpoint.has(r.endpoint_id)) {
        byEndpoint.set(r.endpoint_id, { path: new URL(r.url).pathname, secret: secrets.get(r.endpoint_id), items: [] });
      }
      byEndpoint.get(r.endpoint_id).items.push({ id: r.id, payload: r.payload });
    }
    const payloadBytes = queued.reduce((a, r) => a + Buffer.byteLength(r.payload), 0) / queued.length;
    const planFile = path.join(stack.scratch, "plan-webhook-floor.json");
    const floorRun = async (runtime, client) => {
      fs.writeFileSync(planFile, JSON.stringify({ origin: receiver.origin, concurrency, client, endpoints: [...byEndpoint.values()] }));
      await receiver.control("reset");
      const cpu0 = cpuSeconds(receiver.pid);
      const r = await runWebhookFloor(planFile, { runtime });
      const stats = await receiver.control("stats");
      if (r.ok !== events || stats.by_prefix["/w/"] !== events) {
        throw new Error(`the webhook floor sent ${r.ok} of ${events} (receiver: ${stats.by_prefix["/w/"]}); ${r.errors.join("; ")}`);
      }
      const label = `${runtime === "deno" ? "Deno" : "Node"} ${client === "http" ? "node:http" : "fetch"}`;
      log(`  floor (${label}): ${r.ok} POSTs in ${r.seconds.toFixed(2)} s, ${r.rps.toFixed(0)} req/s, its CPU ${r.cpu_s.toFixed(2)} s`);
      return { ...r, runtime, client, label, receiver_cpu_s: cpuSeconds(receiver.pid) - cpu0 };
    };
    const floorBefore = await floorRun("deno", "fetch");
    const references = [await floorRun("node", "http"), await floorRun("node", "fetch")];

    await receiver.control("reset");
    await resetStats(db, view);
    const receiverCpu = cpuSeconds(receiver.pid);
    const onLine = (line) => {
      if (dispatcherLines.length < 20 && /"level":"(error|warn)"/.test(line)) dispatcherLines.push(line.slice(0, 300));
    };
    const bootT0 = performance.now();
    dispatcher = await startDispatcher({
      databaseUrl: dispatcherDatabaseUrl(stack.adminUrl),
      encryptionKey: stack.webhookKey,
      env: { WEBHOOK_CONCURRENCY: String(concurrency) },
      onLine,
    });
    children.add(dispatcher.child);
    const t0 = performance.now();
    const t0Wall = wall();
    const watcher = watch({ fnPid: dispatcher.pid, pgPid });
    const machine0 = machineTimes();
    let done = 0;
    let polls = 0;
    while (performance.now() - t0 < 120_000) {
      ({ rows: [{ done }] } = await db.query(
        "select count(*)::int as done from app.webhook_deliveries where status = 'succeeded' and account_id = any ($1)",
        [spread],
      ));
      polls++;
      if (done >= events) break;
      await sleep(20);
    }
    const elapsedMs = performance.now() - t0;
    const cpu = watcher.stop();
    const machine = since(machine0);
    const arrivals = await receiver.control(`wait?prefix=/w/&count=${events}&timeout_ms=1`);
    const pauses = pausesOf(await receiver.control("arrivals?prefix=/w/"));
    const { rows: statuses } = await db.query(
      `select status, count(*)::int as n from app.webhook_deliveries where account_id = any ($1) group by status`,
      [spread],
    );
    const { rows: statements } = await db.query(
      `select case when query ilike '%webhooks.claim%' then 'claim' when query ilike '%webhooks.settle%' then 'settle'
                   when query ilike '%webhooks.prune%' then 'prune' else 'other' end as what,
              sum(calls)::int as calls, sum(total_exec_time)::float8 as total_ms, sum(rows)::int as rows
         from ${view} where userid = 'tournament_webhooks'::regrole and toplevel group by 1 order by 1`,
    );
    const floorAfter = await floorRun("deno", "fetch");
    const floorRps = Math.max(floorBefore.rps, floorAfter.rps);
    const dispatch = {
      events,
      endpoints: concurrency,
      concurrency,
      machine_cpus: os.cpus().length,
      payload_bytes_mean: Math.round(payloadBytes),
      record_ms: Math.round(recordMs),
      dispatcher_boot_ms: Math.round(t0 - bootT0),
      completed: done,
      elapsed_ms: Math.round(elapsedMs),
      deliveries_per_s: done / (elapsedMs / 1000),
      // the receiver's view: from the dispatcher's ready line to the first and the last arrival
      first_arrival_ms: arrivals.first_ms === null ? null : Math.round(arrivals.first_ms - t0Wall),
      last_arrival_ms: arrivals.last_ms === null ? null : Math.round(arrivals.last_ms - t0Wall),
      statuses: Object.fromEntries(statuses.map((s) => [s.status, s.n])),
      polls,
      pauses,
      paused_ms: pauses.reduce((a, p) => a + p.ms, 0),
      machine_s: machine,
      statements: Object.fromEntries(
        statements.map((
          s,
        ) => [s.what, { calls: s.calls, total_ms: round(s.total_ms, 1), mean_ms: round(s.total_ms / s.calls, 3), rows: s.rows }]),
      ),
      cpu_s: {
        dispatcher: round(cpu.fn_cpu_s),
        postgres: round(cpu.pg_cpu_s),
        receiver: round(cpuSeconds(receiver.pid) - receiverCpu),
        machine: round(cpu.machine_cpu_s),
      },
      floor: {
        before: floorBefore,
        after: floorAfter,
        rps: floorRps,
        runtime: "Deno fetch",
        references: Object.fromEntries(references.map((r) => [r.label, r])),
      },
      dispatcher_log: dispatcherLines.slice(),
    };
    dispatch.ratio = dispatch.completed === events ? dispatch.deliveries_per_s / floorRps : null;
    out.dispatch = dispatch;
    const st = dispatch.statements;
    log(
      `  dispatcher: ${done} of ${events} succeeded in ${dispatch.elapsed_ms} ms (${dispatch.deliveries_per_s.toFixed(0)}/s; ` +
        `floor ${floorRps.toFixed(0)} req/s, ratio ${fixed(dispatch.ratio, 2)}); claim ${st.claim?.calls ?? 0} calls, ` +
        `${fixed(st.claim?.mean_ms, 2)} ms each; settle ${st.settle?.calls ?? 0} calls, ${fixed(st.settle?.mean_ms, 2)} ms each; ` +
        `CPU s dispatcher/pg/receiver/machine ${
          [cpu.fn_cpu_s, cpu.pg_cpu_s, dispatch.cpu_s.receiver, cpu.machine_cpu_s].map((x) => fixed(x, 2)).join("/")
        }`,
    );

    // 3. Commit-to-receipt latency, the dispatcher running.
    log(`webhooks 3/4: commit-to-receipt latency, ${latencySamples} single changes ${SPACING_MS} ms apart`);
    await seed.createTournaments(db, [latency], 1, 60_000_000); // before the endpoint: no event for it
    const { rows: [{ id: latencyTournament }] } = await db.query(
      "select id from app.tournaments where account_id = $1",
      [latency],
    );
    await endpoint(latency, `${receiver.origin}/t/`, ["tournament.updated"]);
    await receiver.control("reset");
    const l0 = performance.now();
    for (let i = 0; i < latencySamples; i++) {
      await db.query("update app.tournaments set name = $2 where id = $1", [latencyTournament, `Bench latency ${i}`]);
      const next = l0 + (i + 1) * SPACING_MS;
      await sleep(Math.max(0, next - performance.now()));
    }
    await receiver.control(`wait?prefix=/t/&count=${latencySamples}&timeout_ms=15000`);
    const timed = await receiver.control("timed");
    const inOrder = timed.filter(([, ts]) => ts !== null).sort((a, b) => a[1] - b[1]).map(([at, ts]) => round(at - ts, 1));
    const lat = inOrder.slice().sort((a, b) => a - b);
    out.latency = {
      samples: latencySamples,
      received: timed.length,
      spacing_ms: SPACING_MS,
      p50_ms: round(quantile(lat, 0.5), 1),
      p90_ms: round(quantile(lat, 0.9), 1),
      p99_ms: round(quantile(lat, 0.99), 1),
      min_ms: round(lat[0], 1),
      max_ms: round(lat[lat.length - 1], 1),
      over_100_ms: lat.filter((x) => x > 100).length,
      samples_ms: inOrder, /* in commit order */
    };
    log(
      `  ${timed.length} of ${latencySamples} received: p50 ${out.latency.p50_ms} ms, p99 ${out.latency.p99_ms} ms, ` +
        `max ${out.latency.max_ms} ms`,
    );

    // 4. A 1,024-team single elimination started: 512 match.ready events to one endpoint.
    log("webhooks 4/4: starting a 1024-team single elimination with an endpoint on match.ready…");
    const bracket = await seed.startBracket(db, base, null, major, teams.slice(0, 1024), { start: false, tag: "webhooks" });
    await endpoint(major, `${receiver.origin}/m/`, ["match.ready"]);
    await receiver.control("reset");
    const res = await send(base, keyOf(major), "PATCH", `/tournaments/${bracket}`, { status: "ongoing" });
    const answeredAt = wall();
    if (res.status !== 200) throw new Error(`start of the 1024-team bracket: ${res.status} ${res.text?.slice(0, 200)}`);
    const got = await receiver.control(`wait?prefix=/m/&count=512&timeout_ms=30000`);
    const { rows: [{ ready }] } = await db.query(
      "select count(*)::int as ready from app.webhook_events where tournament_id = $1 and type = 'match.ready'",
      [bracket],
    );
    // The arrivals' rhythm: bursts, and the pauses between them (over 200 ms) with where they fell.
    const gaps = pausesOf(await receiver.control("arrivals?prefix=/m/"));
    out.bracket = {
      teams: 1024,
      match_ready_events: ready,
      received: got.count,
      start_response_ms: Math.round(res.ms),
      pauses: gaps,
      paused_ms: gaps.reduce((a, p) => a + p.ms, 0),
      all_received_ms: got.count >= 512 ? Math.round(got.last_ms - answeredAt) : null,
      first_received_ms: got.first_ms === null ? null : Math.round(got.first_ms - answeredAt),
    };
    log(
      `  start answered in ${out.bracket.start_response_ms} ms; ${got.count} of 512 match.ready received, the last ` +
        `${fixed(out.bracket.all_received_ms)} ms after the response (the first ${fixed(out.bracket.first_received_ms)} ms)`,
    );
    out.dispatcher_log = dispatcherLines;
  } finally {
    await stopDispatcher();
    await receiver.stop();
  }
  out.targets = webhookTargets(out);
  return out;
}

/**
 * Samples what the function role's active backends wait on, every 20 ms, on a connection of its
 * own; `stop()` gives the mean number of backends per wait (CPU: none), the largest first.
 */
async function sampleWaits(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const waits = new Map();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as w, count(*)::int as n from pg_stat_activity
          where usename = 'tournament_api' and state = 'active' group by 1`,
      );
      samples++;
      for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + r.n);
      await sleep(20);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop.catch(() => {});
      await client.end().catch(() => {});
      return Object.fromEntries([...waits].sort((a, b) => b[1] - a[1]).map(([w, n]) => [w, round(n / samples, 2)]));
    },
  };
}

const waitText = (w) => Object.entries(w).map(([k, v]) => `${k} ${v}`).join(", ");

/** Adds up wait samples of several runs (mean per run). */
function meanWaits(list) {
  const out = {};
  for (const w of list) for (const [k, v] of Object.entries(w)) out[k] = (out[k] ?? 0) + v / list.length;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, v]) => [k, round(v, 2)]));
}

/** The load rows of one side of the A/B, in brief. */
function summarize(rows) {
  return rows.map((r) => ({
    rps: round(r.rps, 1),
    p50_ms: r.latency_ms.p50,
    p99_ms: r.latency_ms.p99,
    errors: r.errors,
    db_ms_per_request: round(r.db_ms_per_request, 3),
    wal_bytes_per_request: round(r.wal_bytes_per_request, 0),
    round_trips_per_request: round(r.round_trips_per_request, 3),
    fn_cpu_s: round(r.fn_cpu_s),
    pg_cpu_s: round(r.pg_cpu_s),
    machine_cpu_s: round(r.machine_cpu_s),
    other_cpu_pct: round(r.other_cpu_pct, 0),
  }));
}

function webhookTargets(w) {
  const T = WEBHOOK_TARGETS;
  const targets = [];
  const add = (target, value, ok) => targets.push({ target, value, result: verdict(ok) });
  if (w.create) {
    add(
      `webhooks: POST /tournaments with one endpoint ≥ ${T.create_ratio}× without`,
      `${w.create.ratio.toFixed(2)}× (${w.create.with_rps.toFixed(0)} / ${w.create.without_rps.toFixed(0)} req/s; pairs ` +
        `${w.create.pair_ratios.join(", ")})`,
      w.create.ratio >= T.create_ratio,
    );
  }
  if (w.dispatch) {
    add(
      `webhooks: dispatcher deliveries/s ≥ ${T.dispatch_ratio}× a plain signed fetch loop`,
      w.dispatch.ratio === null
        ? `not measured: ${w.dispatch.completed} of ${w.dispatch.events} succeeded within 120 s`
        : `${w.dispatch.ratio.toFixed(2)}× (${w.dispatch.deliveries_per_s.toFixed(0)} / ${w.dispatch.floor.rps.toFixed(0)} per s)`,
      w.dispatch.ratio === null ? false : w.dispatch.ratio >= T.dispatch_ratio,
    );
  }
  if (w.bracket) {
    add(
      `webhooks: 1024-team start → all 512 match.ready received < ${T.bracket_ms} ms`,
      w.bracket.all_received_ms === null ? `${w.bracket.received} of 512 received within 30 s` : `${w.bracket.all_received_ms} ms`,
      w.bracket.all_received_ms !== null && w.bracket.all_received_ms < T.bracket_ms,
    );
  }
  return targets;
}

/** The webhook figures as a table (value, floor, ratio, target, verdict), with notes and the breakdown below. */
export function webhookReport(w) {
  if (w.error) return `webhooks: not measured (${w.error})`;
  const T = WEBHOOK_TARGETS;
  const head = ["webhooks", "value", "floor", "ratio", "target", ""];
  const lines = [];
  const notes = [];
  if (w.create) {
    const c = w.create;
    lines.push([
      'POST /tournaments: account with one endpoint (["*"]) ÷ account with none',
      `${c.with_rps.toFixed(0)} req/s`,
      `${c.without_rps.toFixed(0)} req/s`,
      `${c.ratio.toFixed(2)}×`,
      `≥ ${T.create_ratio}×`,
      verdict(c.ratio >= T.create_ratio),
    ]);
    notes.push(
      `POST /tournaments: ${c.with.length} runs each, alternated; per pair ${c.pair_ratios.join(", ")}; req/s ` +
        `${c.with.map((r) => r.rps.toFixed(0)).join("/")} with, ${c.without.map((r) => r.rps.toFixed(0)).join("/")} without; ` +
        `other processes' share of the machine's CPU per run ${c.with.map((r) => `${r.other_cpu_pct}%`).join("/")} with, ` +
        `${c.without.map((r) => `${r.other_cpu_pct}%`).join("/")} without; ` +
        `with vs without: Postgres CPU ${fixed(c.pg_cpu_ms_per_request[0], 2)} vs ${fixed(c.pg_cpu_ms_per_request[1], 2)} ms/req, ` +
        `function CPU ${fixed(c.fn_cpu_ms_per_request[0], 2)} vs ${fixed(c.fn_cpu_ms_per_request[1], 2)} ms/req, statement time ` +
        `${fixed(c.db_ms_per_request[0], 2)} vs ${fixed(c.db_ms_per_request[1], 2)} ms/req (pg_stat_statements; the commit-time ` +
        `publish is outside it), WAL ${fixed(c.wal_bytes_per_request[0])} vs ${fixed(c.wal_bytes_per_request[1])} B/req; ` +
        `${c.events_recorded} events recorded for the ${c.created_with_endpoint} creates with the endpoint (warm-up too); no dispatcher ` +
        `running meanwhile; ${c.errors} errors`,
      `POST /tournaments: the function role's active backends by wait (mean per 20 ms sample), with: ${waitText(c.waits[0])}; ` +
        `without: ${waitText(c.waits[1])} (Lock:object is LISTEN/NOTIFY's commit lock: one notifying commit at a time)`,
    );
  }
  if (w.dispatch) {
    const d = w.dispatch;
    lines.push([
      `dispatcher: ${d.events} events over ${d.endpoints} endpoints, WEBHOOK_CONCURRENCY=${d.concurrency}`,
      `${d.deliveries_per_s.toFixed(0)} deliveries/s`,
      `${d.floor.rps.toFixed(0)} req/s`,
      `${fixed(d.ratio, 2)}×`,
      `≥ ${T.dispatch_ratio}×`,
      d.ratio === null ? "NOT MET" : verdict(d.ratio >= T.dispatch_ratio),
    ]);
    const busyMs = d.elapsed_ms - d.paused_ms;
    notes.push(
      `dispatcher: ${d.completed} of ${d.events} succeeded ${d.elapsed_ms} ms after its ready line (boot ` +
        `${d.dispatcher_boot_ms} ms not counted), of which ${d.paused_ms} ms in ${d.pauses.length} pauses over 200 ms with nothing ` +
        `arriving${d.pauses.length ? ` (${(d.completed / (busyMs / 1000)).toFixed(0)} deliveries/s outside them)` : ""}; ` +
        `one endpoint per receiver path, as per endpoint it sends first attempts one ` +
        `after another, in order; the floor: a plain POST loop with the same bodies, signed, same paths and concurrency ` +
        `(Deno fetch, the dispatcher's runtime: ${d.floor.before.rps.toFixed(0)} before, ${d.floor.after.rps.toFixed(0)} after; ` +
        `the higher counts); for reference ${
          Object.values(d.floor.references).map((r) =>
            `${r.label} ${r.rps.toFixed(0)} req/s ` +
            `(ratio ${(d.deliveries_per_s / r.rps).toFixed(2)}×)`
          ).join(", ")
        }`,
    );
  }
  if (w.latency) {
    const l = w.latency;
    lines.push([
      `commit → receipt, ${l.samples} single changes ${l.spacing_ms} ms apart`,
      `p50 ${fixed(l.p50_ms, 1)} / p99 ${fixed(l.p99_ms, 1)} ms`,
      "–",
      "–",
      "–",
      "",
    ]);
    notes.push(
      `latency: receiver arrival − the payload's timestamp (set at commit, ms); p90 ${fixed(l.p90_ms, 1)}, ` +
        `min ${fixed(l.min_ms, 1)}, max ${fixed(l.max_ms, 1)} ms; ${l.over_100_ms} over 100 ms; ${l.received} of ${l.samples} received`,
    );
  }
  if (w.bracket) {
    const b = w.bracket;
    lines.push([
      "1024-team start → all 512 match.ready received",
      `${fixed(b.all_received_ms)} ms`,
      "–",
      "–",
      `< ${T.bracket_ms} ms`,
      verdict(b.all_received_ms !== null && b.all_received_ms < T.bracket_ms),
    ]);
    notes.push(
      `bracket: ${b.match_ready_events} match.ready events recorded, ${b.received} received, all to one endpoint; ` +
        `the start answered in ${b.start_response_ms} ms; the first arrived ${fixed(b.first_received_ms)} ms after the response; ` +
        pauseText(b.pauses),
    );
  }
  let text = `${markdown(head, lines, 1)}
${notes.map((n) => `  - ${n}`).join("\n")}`;
  if (w.dispatch) {
    const d = w.dispatch;
    const s = d.statements;
    const fmt = (x) => (x ? `${x.calls} calls, ${fixed(x.mean_ms, 2)} ms each (${fixed(x.total_ms, 0)} ms in all)` : "none");
    const secs = (d.elapsed_ms / 1000).toFixed(2);
    text += `\n\nWhere the dispatcher's time goes (${d.events} deliveries in ${secs} s; mean payload ${d.payload_bytes_mean} B, ` +
      `recorded in one transaction in ${d.record_ms} ms):\n` +
      `  server time (pg_stat_statements): claim ${fmt(s.claim)}` +
      `${s.claim ? `, ${(s.claim.rows / s.claim.calls).toFixed(1)} deliveries per call` : ""}; settle ${fmt(s.settle)}` +
      `${s.settle ? `, ${(d.completed / s.settle.calls).toFixed(1)} outcomes per call` : ""}\n` +
      `  CPU s: dispatcher ${fixed(d.cpu_s.dispatcher, 2)}, Postgres ${fixed(d.cpu_s.postgres, 2)} (with the bench's polling), ` +
      `receiver ${fixed(d.cpu_s.receiver, 2)}, machine ${fixed(d.cpu_s.machine, 2)} (with steal) of ${d.machine_cpus} CPUs × ${secs} s, ` +
      `so other processes ${fixed(d.cpu_s.machine - d.cpu_s.dispatcher - d.cpu_s.postgres - d.cpu_s.receiver, 2)}; ` +
      `CPU ms per delivery: dispatcher ${fixed(d.cpu_s.dispatcher * 1000 / d.completed, 3)}, Postgres ` +
      `${fixed(d.cpu_s.postgres * 1000 / d.completed, 3)}; per request of the floors: ` +
      `${
        [d.floor.before, ...Object.values(d.floor.references)].map((r) => `${r.label} ${(r.cpu_s * 1000 / r.ok).toFixed(3)}`).join(", ")
      }\n` +
      `  machine over the run (s, all CPUs): busy ${d.machine_s.busy}, steal ${d.machine_s.steal}, I/O wait ${d.machine_s.iowait}, ` +
      `idle ${d.machine_s.idle}\n` +
      `  receiver: ${pauseText(d.pauses)}\n` +
      `  receiver: first arrival ${fixed(d.first_arrival_ms)} ms, last ${fixed(d.last_arrival_ms)} ms after the ready line; ` +
      `statuses ${JSON.stringify(d.statuses)}` + (d.dispatcher_log.length ? `\n  dispatcher log: ${d.dispatcher_log.join(" | ")}` : "");
  }
  return text;
}

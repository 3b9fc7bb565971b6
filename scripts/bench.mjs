// `npm run bench`: load figures for the API against a floor, on realistic data.
//
// Starts a throwaway stack (Postgres in a temp folder and the `api` function, on free ports)
// or uses a running one (--url <api base> --db <superuser URL>), seeds data as the operator,
// then drives each workload from a separate process (scripts/bench/load.mjs, autocannon) and
// prints one row per workload: req/s, p50, p99, errors, the ratio to the floor (bench/floor.ts:
// Deno, pg, Pool max 10, one `select 1` per request), database round trips per request
// (pg_stat_statements), server time, WAL, CPU and the function's peak RSS. The figures also
// go to .bench/results-<timestamp>.json and .bench/latest.json.
//
//   npm run bench [-- --duration 10 --connections 16]
//   npm run bench -- --scale                       # also 1,000 → 1,000,000 tournaments
//   npm run bench -- --url http://127.0.0.1:54321/functions/v1/api/v1 \
//                    --db postgres://postgres:postgres@127.0.0.1:54322/postgres     # a running stack
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { ROOT, freePort, functionDatabaseUrl, prepareDatabase, startFunction, startPostgres } from "./stack.mjs";
import { children, runLoad, startFloor } from "./bench/processes.mjs";
import * as seed from "./bench/seed.mjs";
import {
  gitState, listenerPid, postmasterPid, readStats, resetStats, rssMb, statementsView, timeResults, watch,
} from "./bench/measure.mjs";
import { judge, table, targetList } from "./bench/report.mjs";

const USAGE = `npm run bench [-- options]
  --duration <s>      seconds per workload (10)
  --connections <n>   concurrent connections of the load generator (16)
  --scale             also measure GET by id and the list at 1,000 and then 1,000,000 tournaments
  --url <base>        a running stack's API base (…/functions/v1/api/v1), with --db <superuser URL>;
                      --fn-db <url> the function role's URL for the floor, --fn-pid <pid> the function's pid`;

const { values: opt } = parseArgs({ options: {
  help: { type: "boolean", default: false },
  duration: { type: "string", default: "10" },
  connections: { type: "string", default: "16" },
  scale: { type: "boolean", default: false },
  url: { type: "string" },
  db: { type: "string" },
  "fn-db": { type: "string" },
  "fn-pid": { type: "string" },
} });
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
if (!(DURATION >= 1 && Number.isInteger(CONNECTIONS) && CONNECTIONS >= 1)) {
  console.error("--duration (seconds, ≥ 1) and --connections (≥ 1) take numbers");
  process.exit(2);
}
const KEY_BUDGET = 90; // requests per key per workload: under the limit of 100 per 60 s

const LABELS = {
  floor: "floor: select 1 (bench/floor.ts)",
  get: "GET /tournaments/{id}",
  list: "GET /tournaments?status=…&limit=20",
  create: "POST /tournaments",
  register: "POST /tournaments/{id}/registrations",
  results: "GET /tournaments/{id}/results (256 teams)",
  mix: "mix: 90% reads, 10% writes",
  hammer: "one key hammered (429s)",
};

const cleanups = [];
let interrupted = false;
const log = (msg) => console.log(`[bench] ${msg}`);

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, async () => {
    interrupted = true;
    log(`${signal}: stopping…`);
    for (const child of children) child.kill("SIGTERM");
    await teardown();
    process.exit(130);
  });
}

async function teardown() {
  while (cleanups.length) {
    const step = cleanups.pop();
    await Promise.race([step().catch((err) => log(`cleanup: ${err.message}`)),
      new Promise((r) => setTimeout(r, 15_000))]);
  }
}

/** The stack to measure: a throwaway one, or the running one given by --url and --db. */
async function openStack(scratch) {
  if (opt.url || opt.db) {
    if (!opt.url || !opt.db) throw new Error("--url and --db go together");
    const base = new URL(opt.url.replace(/\/$/, ""));
    const fnPid = opt["fn-pid"] ? Number(opt["fn-pid"]) : listenerPid(Number(base.port || 80));
    return { adminUrl: opt.db, fnDbUrl: opt["fn-db"] ?? functionDatabaseUrl(opt.db), origin: base.origin,
      basePath: base.pathname, fnPid };
  }
  log("starting Postgres and migrating (throwaway, in a temp folder)…");
  const db = await startPostgres({ dataDir: path.join(scratch, "pg", "data"), port: await freePort(), persistent: false });
  cleanups.push(() => db.stop());
  await prepareDatabase(db.url);
  const fn = await startFunction({ port: await freePort(), databaseUrl: functionDatabaseUrl(db.url), onLine: () => {} });
  children.add(fn.child);
  cleanups.push(() => fn.stop());
  return { adminUrl: db.url, fnDbUrl: functionDatabaseUrl(db.url), origin: fn.url, basePath: "/functions/v1/api/v1",
    fnPid: fn.pid };
}

async function main() {
  const started = new Date();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-bench-"));
  fs.chmodSync(scratch, 0o755); // Postgres runs as the postgres user below it
  cleanups.push(async () => fs.rmSync(scratch, { recursive: true, force: true }));

  const stack = await openStack(scratch);
  const floorServer = await startFloor(stack.fnDbUrl);
  cleanups.push(() => floorServer.stop());
  const idleRss = { function_mb: stack.fnPid ? rssMb(stack.fnPid) : null, floor_mb: rssMb(floorServer.pid) };
  const db = new pg.Client({ connectionString: stack.adminUrl });
  await db.connect();
  cleanups.push(() => db.end());
  if (opt.url) cleanups.push(() => seed.removeRun(db)); // leave a running stack's data as it was
  const view = await statementsView(db);
  const pgPid = await postmasterPid(db);
  const base = stack.origin + stack.basePath;
  const data = { tournaments: [], targets: {}, teams: [], resultsId: null, gameId: seed.GAMES[2] };
  const rows = [];
  let floorRps = 0;

  // Keys per workload: enough for 1.5 times the floor's rate (which the API does not reach), so
  // that no key nears the limit.
  const keysFor = (seconds) => Math.max(20, Math.ceil((floorRps * 1.5 * seconds) / KEY_BUDGET));

  /** Drives one workload for `duration` s: a fresh key pool, the load process, the database's side. */
  async function measure(workload, { keyAccounts, duration }) {
    const t0 = performance.now();
    const keys = workload === "floor" ? null
      : await seed.createKeys(db, keyAccounts, workload === "hammer" ? 1 : keysFor(duration), workload);
    const keyMs = Math.round(performance.now() - t0);
    const target = workload === "floor" ? { origin: floorServer.origin, basePath: "", pid: floorServer.pid }
      : { origin: stack.origin, basePath: stack.basePath, pid: stack.fnPid };
    const planFile = path.join(scratch, `plan-${workload}.json`);
    fs.writeFileSync(planFile, JSON.stringify({ ...data, workload, keys, connections: CONNECTIONS, duration,
      origin: target.origin, basePath: target.basePath }));
    await resetStats(db, view);
    const rssBefore = target.pid ? rssMb(target.pid) : null;
    const watcher = watch({ fnPid: target.pid, pgPid });
    const ownCpu = process.cpuUsage(); // this process reads the function's log lines meanwhile
    let result, procs;
    try {
      result = await runLoad(planFile);
    } finally {
      procs = watcher.stop();
    }
    const own = process.cpuUsage(ownCpu);
    const row = { ...result, ...procs, fn_rss_before_mb: rssBefore, keys_made_ms: keyMs,
      ...(await readStats(db, view, result.sent)) };
    row.bench_cpu_s = (own.user + own.system) / 1e6;
    row.other_cpu_s = row.machine_cpu_s - row.fn_cpu_s - (row.pg_cpu_s ?? 0) - row.load_cpu_s - row.bench_cpu_s;
    if (workload === "floor") floorRps = Math.max(floorRps, row.rps);
    return row;
  }

  // This machine's speed drifts (a shared VM: the floor alone has moved 2x within minutes), so
  // each workload is compared with the floor measured just before or just after it, the higher
  // (a probe can dip too).
  const PROBE_S = Math.max(3, Math.round(DURATION / 2));
  let previous = null; // the last workload's row, which the next floor measurement also bounds

  /** One row of the table: a workload, after a floor probe unless it is the floor. */
  async function run(workload, { size, keyAccounts, label = LABELS[workload] }) {
    const probe = workload === "floor" ? null : await measure("floor", { duration: PROBE_S });
    const row = { label, size, ...(await measure(workload, { keyAccounts, duration: DURATION })) };
    const floor = probe ?? row;
    previous?.floor_probes.push(floor.rps);
    row.floor_probes = [floor.rps];
    previous = probe ? row : null;
    rows.push(row);
    log(`${workload} [${size}]: ${row.rps.toFixed(0)} req/s (floor just before: ${floor.rps.toFixed(0)}), ` +
      `p50 ${row.latency_ms.p50} ms, p99 ${row.latency_ms.p99} ms, errors ${row.errors}` +
      (row.unexpected.length ? ` (${row.unexpected[0]})` : "") +
      (row.keys ? `; ${row.keys} keys, at most ${row.max_requests_per_key} requests each` : ""));
    return row;
  }

  log(`floor: ${DURATION} s, ${CONNECTIONS} connections`);
  await measure("floor", { duration: 3 }); // warm-up
  await run("floor", { size: "–" });

  // Seed: the default mode's 10,000 tournaments over 100 accounts; the scale mode starts with
  // 1,000 over 10 accounts (each account 100 either way, so page 1 is full in both).
  const nAccounts = opt.scale ? 10 : 100;
  log(`seeding ${nAccounts * 100} tournaments over ${nAccounts} accounts…`);
  const { accounts, major, reported, counts, timings } = await seed.scenario(db, base, data,
    { accounts: nAccounts, perAccount: 100 });
  log(`256-team bracket ${data.resultsId} started through the API; reported ${reported.length} matches, e.g. ` +
    reported.slice(0, 3).map((m) => `round ${m.round} #${m.position} → ${m.team1_score}-${m.team2_score}`).join(", "));
  log(`seeded ${JSON.stringify(counts)} in ${JSON.stringify(timings)} ms`);
  const timed = async (name, fn) => {
    const t0 = performance.now();
    await fn();
    timings[name] = Math.round(performance.now() - t0);
  };

  const size = () => (counts.tournaments >= 1e6 ? "1M" : `${Math.round(counts.tournaments / 1000)}k`);
  const all = { keyAccounts: accounts };
  const scalePairs = [];
  await measure("get", { keyAccounts: accounts, duration: 3 }); // warm-up
  if (opt.scale) {
    const small = { get: await run("get", { size: size(), ...all }), list: await run("list", { size: size(), ...all }) };
    log("growing to 1,000,000 tournaments over 1,000 accounts…");
    const more = await seed.createAccounts(db, 990, nAccounts + 1);
    await timed("grow_tournaments", async () => {
      await seed.createTournaments(db, accounts, 900 * nAccounts, nAccounts * 100 + 1, { bulk: true });
      await seed.createTournaments(db, more, 1000 * more.length, 1000 * nAccounts + 1, { bulk: true });
    });
    await timed("grow_vacuum", () => db.query("vacuum (analyze) app.tournaments"));
    data.tournaments = await seed.sampleTournaments(db, accounts, 200);
    const { rows: [grown] } = await db.query("select count(*)::int as n from app.tournaments");
    counts.tournaments = grown.n;
    log(`grown to ${grown.n} tournaments in ${timings.grow_tournaments} ms (+ vacuum ${timings.grow_vacuum} ms)`);
    await measure("get", { keyAccounts: accounts, duration: 3 }); // warm-up
    scalePairs.push({ label: LABELS.get, small: small.get, large: await run("get", { size: size(), ...all }) });
    scalePairs.push({ label: LABELS.list, small: small.list, large: await run("list", { size: size(), ...all }) });
  } else {
    await run("get", { size: size(), ...all });
    await run("list", { size: size(), ...all });
  }
  await run("create", { size: size(), ...all });
  // Registration targets just before they are needed (not in the scale mode's first 1,000).
  data.targets.register = await seed.createTargets(db, accounts, floorRps * 1.5 * DURATION, "register");
  await run("register", { size: size(), ...all });
  await run("results", { size: size(), keyAccounts: [accounts[0]] });
  data.targets.mix = await seed.createTargets(db, accounts, floorRps * 1.5 * DURATION / 20, "mix");
  await run("mix", { size: size(), ...all });
  await run("hammer", { size: size(), keyAccounts: [accounts[0]] });

  await run("floor", { size: "–", label: "floor again, at the end" });
  for (const row of rows) {
    row.floor_rps = Math.max(...row.floor_probes);
    row.ratio_to_floor = row.rps / row.floor_rps;
  }

  log("timing the results of the 1024-team bracket (768 matches reported) as tournament_api…");
  const results1024 = await timeResults(async () => {
    const c = new pg.Client({ connectionString: stack.adminUrl });
    await c.connect();
    return c;
  }, accounts[0], major);

  const targets = judge({ rows, results1024, idleRss, scale: opt.scale ? scalePairs : null });
  console.log(`\n${table(rows)}\n\nTargets\n${targetList(targets)}\n`);

  const report = {
    started_at: started.toISOString(), finished_at: new Date().toISOString(),
    options: { duration_s: DURATION, connections: CONNECTIONS, scale: opt.scale, stack: opt.url ? "running" : "throwaway" },
    git: gitState(ROOT),
    machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, node: process.version, loadavg: os.loadavg() },
    seed: {
      ...counts, accounts: nAccounts + (opt.scale ? 990 : 0), teams: data.teams.length, timings_ms: timings,
      bracket_256: data.resultsId, bracket_1024: major,
      bracket_256_reported: reported.map((m) => ({ round: m.round, position: m.position, winner_id: m.winner_id,
        score: `${m.team1_score}-${m.team2_score}` })),
    },
    idle_rss_at_start: idleRss, workloads: rows, results_1024: results1024, targets,
  };
  const dir = path.join(ROOT, ".bench");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `results-${started.toISOString().replace(/[:.]/g, "-")}.json`);
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + "\n");
  fs.copyFileSync(file, path.join(dir, "latest.json"));
  log(`written ${path.relative(ROOT, file)} and .bench/latest.json`);
}

main()
  .catch((err) => {
    if (!interrupted) console.error(err.stack ?? err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await teardown();
    process.exit(); // with process.exitCode
  });

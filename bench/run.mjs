// `npm run bench`: load figures for the API, each as a ratio to a floor measured in the same run.
//
// Starts a throwaway stack (bench/lib/stack.mjs: Postgres in a temp folder and the `api`
// function, on free ports) or uses a running one (--url <api base> --db <the postgres URL>), seeds
// data as the operator (bench/lib/seed.mjs), then drives each workload from a separate process
// (bench/lib/loadgen.mjs, autocannon) right after a probe of the floor (bench/floor.ts: Deno, pg,
// Pool max 10, one `select 1` per request). Every row: req/s ÷ the floor's req/s next to it,
// against its target; round trips per request (pg_stat_statements), server time, WAL, CPU and the
// function's peak RSS. Then the comparisons: one account grown from 1,000 tournaments to
// 100,000 (--scale: 1,000,000), and a small account alone and then beside the grown one, and
// the webhook figures (bench/lib/webhooks.mjs: POST /tournaments with an endpoint against
// without, the dispatcher against a plain signed fetch loop, commit-to-receipt latency, a
// 1,024-team start's 512 match.ready). Issue 34's lineups: a registration that copies a
// 7-player roster against one of a team without a roster, and a 256-team tournament's
// registrations with lineups against without. Issue 35's participants: GET /participant with a
// registration token (`tpt_`) against the organiser's GET of the same registration with an API
// key, and a sign-up (POST /participant/registrations: team, 5 players, registration, token)
// against a plain registration POST; participant tokens are made in bulk as the operator
// (seed.createTokens) and rotate like keys, each under its own limit. Issue 36's reported results
// (--reports only): team1's report (POST /participant/matches/{match_id}/report, its registration
// token) and team2's confirmation of it (…/report/confirm), each against the organiser's PATCH of
// the match's result with an API key, every request on a fresh ready match of started 512-team
// single eliminations with participant_reporting "confirm" (the brackets in turn, analyzed
// before each workload); and the worker's deadline sweep (webhooks.confirm_due_reports) over
// 10,000 open reports with 1,000 due, timed on the server (bench/lib/reports.mjs). Issue 37's
// scoring (--scoring only): a 64-team round robin's standings with all 8 tie-breakers against the
// defaults and the defaults against a plain query, a 1,024-team swiss round's draw, each alone and
// beside an account 100× the size (bench/lib/scoring.mjs). The figures
// also go to .bench/results-<timestamp>.json and .bench/latest.json.
//
//   npm run bench [-- --duration 8 --connections 16]
//   npm run bench -- --scale                       # the account grows to 1,000,000 tournaments
//   npm run bench -- --webhooks                    # the webhook figures alone (under two minutes)
//   npm run bench -- --live                        # the live figures alone (ETag reads, 1,000 streams)
//   npm run bench -- --public                      # the public view's figures alone (pictures' CPU, 304)
//   npm run bench -- --pictures                    # the pictures in fresh function instances alone (CPU, RSS)
//   npm run bench -- --lineups                     # the lineup figures alone (rosters copied, lineups read)
//   npm run bench -- --participants                # the participant figures alone (GET /participant, sign-up)
//   npm run bench -- --reports                     # the reported results' figures alone (report, confirm, sweep)
//   npm run bench -- --scoring                     # the scoring figures alone (tie-breakers, swiss draws, a neighbour)
//   npm run bench -- --ffa                         # the free-for-all figures alone (a lobby's game PUT, a 1,000-team stage)
//   npm run bench -- --rush                        # the rush hours (issue 39): sign-ups, check-ins, reports, the final
//   npm run bench -- --url http://127.0.0.1:54321/functions/v1/api/v1 \
//                    --db postgres://postgres:postgres@127.0.0.1:54322/postgres     # a running stack
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { functionDatabaseUrl, ROOT } from "../scripts/stack.mjs";
import { KEY_BUDGET, KeyRing, send, walkCursor } from "./lib/client.mjs";
import { children, runLoad, startFloor } from "./lib/processes.mjs";
import { webhookBench, webhookReport } from "./lib/webhooks.mjs";
import { liveBench, liveReport } from "./lib/live.mjs";
import { publicBench, publicReport } from "./lib/public.mjs";
import { picturesBench, picturesReport } from "./lib/pictures.mjs";
import { sweepBench, sweepReport } from "./lib/reports.mjs";
import { scoringBench, scoringReport } from "./lib/scoring.mjs";
import { ffaBench, ffaReport } from "./lib/ffa.mjs";
import { rushBench, rushReport } from "./lib/rush.mjs";
import * as seed from "./lib/seed.mjs";
import {
  drain,
  gitState,
  listenerPid,
  postmasterPid,
  readStats,
  resetStats,
  rssMb,
  statementsView,
  timeServer,
  watch,
} from "./lib/measure.mjs";
import {
  compare,
  comparisonTable,
  judge,
  LINEUP_SLOWDOWN,
  PARTICIPANT_SLOWDOWN,
  pooled,
  REPORT_SLOWDOWN,
  table,
  targetList,
} from "./lib/report.mjs";
import { startThrowawayStack } from "./lib/stack.mjs";

const USAGE = `npm run bench [-- options]
  --duration <s>      seconds per workload (8); each is preceded by a floor probe of half that
  --connections <n>   concurrent connections of the load generator (16)
  --scale             grow the one big account to 1,000,000 tournaments (default: 100,000)
  --large <n>         grow it to <n> tournaments instead
  --url <base>        a running stack's API base (…/functions/v1/api/v1), with --db <the postgres URL>;
                      --fn-db <url> the function role's URL for the floor, --fn-pid <pid> the function's pid
  --formats           only seed, then time each format's largest bracket (start and results) and the
                      stages event (issue 21), and stop
  --webhooks          only the webhook figures (a throwaway stack only; the full run ends with them):
                      POST /tournaments with an endpoint ÷ without (A B B A A B, --duration each), the
                      dispatcher's deliveries/s ÷ a plain signed POST loop's (Deno fetch), commit-to-receipt
                      latency, and a 1024-team start's 512 match.ready; written to .bench/results-<time>.json
  --writes            only the floor and the write workloads (POST /tournaments, POST registration, the
                      90/10 mix), three rounds each: to compare two versions of the code, run it against
                      each one's stack (--url, --db) and compare the ratios
  --hot               only the floor and the hot path (GET by id, the list's page 1, POST /tournaments),
                      three rounds each, with the function's peak RSS: for before/after comparisons
  --live              only the live figures (issue 23): a read answered 304 against a whole one (server
                      time), and 1, 100 and 1,000 open streams on one tournament: the database polls
                      per second while idle and request-to-event latency (p50, p99)
  --public            only the public view's figures (issue 24): the bracket pictures' CPU under Deno
                      (a 1,024-team double elimination: SVG, the largest PNG) and a public read answered
                      304 against a whole one
  --pictures          only the pictures in the function itself (issue 32): the first PNG's CPU in fresh
                      instances, and the RSS drawing 50 of the largest one after another and 10 at once
  --lineups           only the floor and the lineup figures (issue 34), three rounds alternated: POST
                      registration of a team whose 7-player roster becomes its lineup ÷ of a team without
                      a roster (≤ 1.2×), and GET registrations of 256 teams with 5-6 player lineups ÷
                      without (≤ 1.5×)
  --participants      only the floor and the participant figures (issue 35), three rounds alternated: GET
                      /participant with registration tokens ÷ the organiser's GET /tournaments/{id}/
                      registrations/{registration_id} of the same registrations with API keys (≤ 1.1×; GET
                      /tournaments/{id} of the same tournaments beside it, for information), and POST
                      /participant/registrations with sign-up tokens (team, 5 players, registration,
                      token) ÷ POST /tournaments/{id}/registrations {team_id} with API keys (≤ 3×)
  --reports           only the floor and the reported results' figures (issue 36), three rounds alternated:
                      the organiser's PATCH /tournaments/{id}/matches/{match_id} {team1_score: 2,
                      team2_score: 0} with API keys against team1's POST /participant/matches/{match_id}/
                      report (the same body) and team2's POST …/report/confirm of team1's report, with
                      registration tokens, each request on a fresh ready match of started 512-team single
                      eliminations with participant_reporting "confirm", the brackets in turn (PATCH
                      req/s ÷ report req/s, and ÷ confirm req/s, ≤ 1.3× each); then the worker's sweep,
                      select webhooks.confirm_due_reports(1000) as the operator over 10,000 reports
                      awaiting confirmation in 80 tournaments of 20 accounts, 1,000 past their deadline
                      (< 1 s of database time, exactly 1,000 applied)
  --scoring           only the scoring figures (issue 37), timed in one connection as the operator, each side
                      in rotation with its floor: GET stages/1's standings of a 64-team round robin (2,016
                      matches, one in six drawn) with all 8 tie-breakers ÷ with the defaults (≤ 1.3×), the
                      defaults ÷ a plain GROUP BY of the same points (information); the draw of round 2 and
                      of round 5 of a 1,024-team swiss (and round 5 with draws on), the round's last result
                      reported and rolled back 12 times (p95 < 50 ms); each again beside an account 100× the
                      size (the account's tournaments copied 100 times), over its floor (≤ 1.5×)
  --ffa               only the free-for-all figures (issue 38): a lobby's game PUT (100 teams, 5 lobbies × 6
                      games, reported game by game through the API) ÷ a duel's game PUT, alternately (median
                      and p95 ≤ 1.5×); the results of a 1,000-team stage (50 lobbies × 6 games) on the server
                      (< 50 ms)
  --rush              only the rush hours (issue 39), through the API, 32 requests in flight: (a) 2,000
                      sign-ups from 2,000 sign-up links against 512 slots with the waitlist on (all within
                      30 s, p99 < 3 s, exactly 512 accepted and the rest waitlisted in order); (b) 512
                      registration tokens checking in (p99 < 1 s, every check-in recorded); (c) a 512-team
                      round's 256 matches reported and confirmed by registration tokens (confirmations
                      p99 < 2 s, every match decided once as reported); (d) a final's games reported
                      under 1,000 public streams and 50 page loads a second (request → event p99 < 1 s,
                      page loads p99 < 500 ms); Postgres CPU and WAL per request, the function's peak RSS
  --webhook-events <n>       events for the dispatcher's throughput (3000)
  --webhook-concurrency <n>  its WEBHOOK_CONCURRENCY, and as many endpoints and receiver paths (16)`;

const { values: opt } = parseArgs({
  options: {
    help: { type: "boolean", default: false },
    duration: { type: "string", default: "8" },
    connections: { type: "string", default: "16" },
    scale: { type: "boolean", default: false },
    large: { type: "string" },
    url: { type: "string" },
    db: { type: "string" },
    "fn-db": { type: "string" },
    "fn-pid": { type: "string" },
    formats: { type: "boolean", default: false },
    webhooks: { type: "boolean", default: false },
    live: { type: "boolean", default: false },
    public: { type: "boolean", default: false },
    pictures: { type: "boolean", default: false },
    lineups: { type: "boolean", default: false },
    participants: { type: "boolean", default: false },
    reports: { type: "boolean", default: false },
    scoring: { type: "boolean", default: false },
    ffa: { type: "boolean", default: false },
    rush: { type: "boolean", default: false },
    writes: { type: "boolean", default: false },
    hot: { type: "boolean", default: false },
    "webhook-events": { type: "string", default: "3000" },
    "webhook-concurrency": { type: "string", default: "16" },
  },
});
if (opt.help) {
  console.log(USAGE);
  process.exit(0);
}
const DURATION = Number(opt.duration);
const CONNECTIONS = Number(opt.connections);
const SMALL = 1000; // tournaments of the small account, and of the big one before it grows
const LARGE = Number(opt.large ?? (opt.scale ? 1_000_000 : 100_000));
if (!(DURATION >= 1 && Number.isInteger(CONNECTIONS) && CONNECTIONS >= 1 && Number.isInteger(LARGE) && LARGE > SMALL)) {
  console.error("--duration (seconds, ≥ 1), --connections (≥ 1) and --large (> 1000) take numbers");
  process.exit(2);
}
const WEBHOOK_EVENTS = Number(opt["webhook-events"]);
const WEBHOOK_CONCURRENCY = Number(opt["webhook-concurrency"]);
if (
  !(Number.isInteger(WEBHOOK_EVENTS) && WEBHOOK_EVENTS >= 1 && Number.isInteger(WEBHOOK_CONCURRENCY) &&
    WEBHOOK_CONCURRENCY >= 1 && WEBHOOK_CONCURRENCY <= 200)
) {
  console.error("--webhook-events (≥ 1) and --webhook-concurrency (1–200) take whole numbers");
  process.exit(2);
}
if (opt.webhooks && opt.url) {
  console.error("--webhooks needs the throwaway stack: a running one has a dispatcher of its own and another encryption key");
  process.exit(2);
}
const DEEP_PAGE = 500;
const MAX_FORMAT_RESULTS_MS = 50; // issue 13: results of the largest brackets read in under 50 ms
const MAX_SERIES_RESULTS_MS = 20; // issue 25: a 1,024-team best-of-three double elimination's results
// Page 500 and the cursor's 500th page at a page size of 2: the last page at 1,000 tournaments,
// so that the same request exists (and returns 2 rows) at both sizes.
const DEEP_LIMIT = 2;

const LABELS = {
  floor: "floor: select 1 (bench/floor.ts)",
  get: "GET /tournaments/{id}",
  list: "GET /tournaments?status=registration&limit=20 (page 1)",
  page500: `GET /tournaments?page=${DEEP_PAGE}&limit=${DEEP_LIMIT}`,
  cursor500: `GET /tournaments?cursor=… (page ${DEEP_PAGE}, limit ${DEEP_LIMIT})`,
  page1_20: "GET /tournaments?page=1&limit=20",
  page500_20: `GET /tournaments?page=${DEEP_PAGE}&limit=20`,
  create: "POST /tournaments",
  register: "POST /tournaments/{id}/registrations",
  register_lineup: "POST /tournaments/{id}/registrations (a 7-player roster copied)",
  registrations: "GET /tournaments/{id}/registrations (256 teams)",
  registrations_lineup: "GET /tournaments/{id}/registrations (256 teams, 5-6 player lineups)",
  results: "GET /tournaments/{id}/results (256 teams)",
  registration: "GET /tournaments/{id}/registrations/{registration_id} (an API key)",
  participant_get: "GET /participant (a registration token)",
  signup: "POST /participant/registrations (a sign-up token: team, 5 players, registration, token)",
  patch: "PATCH /tournaments/{id}/matches/{match_id} (an API key)",
  report: "POST /participant/matches/{match_id}/report (team1's registration token)",
  confirm: "POST /participant/matches/{match_id}/report/confirm (team2's registration token)",
  mix: "mix: 90% reads, 10% writes",
  hammer: "one key hammered (429s)",
};
const KINDS = { page500: "list", cursor500: "list", page1_20: "list", page500_20: "list", registrations_lineup: "registrations" };
const size = (n) => (n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));

const cleanups = [];
const log = (msg) => console.log(`[bench] ${msg}`);

/** The stages event's lines (issue 21): the stage 2 start and the whole event's results. */
function stagesReport(st) {
  if (st.error) return `Stages (issue 21): ERROR ${st.error}\n`;
  const r = st.results;
  return `Stages (issue 21): ${st.teams} teams in ${st.groups} round-robin groups, top 2 into a ${st.advancing}-team double elimination\n` +
    `  ${st.start.error ? "ERROR  " : st.start.calls_per_request === 1 ? "MET    " : "NOT MET"}  stage 2 start in one request: ` +
    (st.start.error ??
      `${st.start.cold_ms.toFixed(1)} ms on the server in ${st.start.calls_per_request} statement (${st.stage2_matches} matches made)`) +
    "\n" +
    `  ${
      r.error ? "ERROR  " : r.warm_mean_ms < MAX_FORMAT_RESULTS_MS && r.calls_per_request === 1 ? "MET    " : "NOT MET"
    }  results of the whole event (${st.matches} matches) < ${MAX_FORMAT_RESULTS_MS} ms: ` +
    (r.error ??
      `${r.warm_mean_ms.toFixed(1)} ms (mean of ${r.runs} at one version, the JSON the instance kept; built on the first read: ${
          r.cold_ms.toFixed(1)
        }; ${r.calls_per_request} statement per request; ` +
        `${(r.response_bytes / 1024).toFixed(0)} KiB)`) +
    "\n";
}

/** The series' lines (issue 22): the results of a best-of-three double elimination with its games, one game report. */
function seriesReport(se) {
  if (se.error) return `Series (issue 22): ERROR ${se.error}\n`;
  const r = se.results;
  const b = se.built ?? { error: "not measured" };
  return `Series (issues 22 and 25): a ${se.teams}-team ${se.format}, best of three, ${se.completed} of ${se.matches} matches decided map by map (${se.games} games)\n` +
    `  ${
      r.error ? "ERROR  " : r.warm_mean_ms < MAX_SERIES_RESULTS_MS && r.calls_per_request === 1 ? "MET    " : "NOT MET"
    }  results with every match's games < ${MAX_SERIES_RESULTS_MS} ms: ` +
    (r.error ??
      `${
          r.warm_mean_ms.toFixed(1)
        } ms (mean of ${r.runs} reads at one version: the JSON the instance kept, Postgres checking the version; ` +
        `the first read ${r.cold_ms.toFixed(1)} ms; ${r.calls_per_request} statement per request; ${
          (r.response_bytes / 1024).toFixed(0)
        } KiB)`) +
    "\n" +
    `  ${
      b.error ? "ERROR  " : b.warm_mean_ms < MAX_SERIES_RESULTS_MS ? "MET    " : "NOT MET"
    }  the same built by Postgres on every read (?since=0) < ${MAX_SERIES_RESULTS_MS} ms: ` +
    (b.error ?? `${b.warm_mean_ms.toFixed(1)} ms (mean of ${b.runs}, min ${b.warm_min_ms.toFixed(1)}, max ${b.warm_max_ms.toFixed(1)})`) +
    "\n" +
    `  ${
      se.game.error ? "ERROR  " : se.game.calls_per_request === 1 ? "MET    " : "NOT MET"
    }  a game report is one request, one statement: ` +
    (se.game.error ?? `${se.game.cold_ms.toFixed(1)} ms on the server in ${se.game.calls_per_request} statement`) + "\n";
}

/** The formats' lines (issue 13): the start's server time and the results' against the target. */
function formatsReport(formatRuns) {
  return `Formats (issue 13): the start makes the whole bracket in one request; results < ${MAX_FORMAT_RESULTS_MS} ms on the server\n` +
    formatRuns.map((f) =>
      `  ${f.generation.error || f.results.error ? "ERROR  " : f.results.warm_mean_ms < MAX_FORMAT_RESULTS_MS ? "MET    " : "NOT MET"}  ` +
      `${f.format}, ${f.teams} teams (${f.matches} matches at the start): ` +
      (f.generation.error ?? `start ${f.generation.cold_ms.toFixed(1)} ms in ${f.generation.calls_per_request} statement`) + "; " +
      (f.results.error ??
        `results ${f.results.warm_mean_ms.toFixed(1)} ms (mean of ${f.results.runs} at one version, kept; built on the first read: ${
            f.results.cold_ms.toFixed(1)
          }; ` +
          `${(f.results.response_bytes / 1024).toFixed(0)} KiB)`)
    ).join("\n") + "\n";
}

async function teardown() {
  while (cleanups.length) {
    const step = cleanups.pop();
    await Promise.race([step().catch((err) => log(`cleanup: ${err.message}`)), new Promise((r) => setTimeout(r, 15_000))]);
  }
}

/** The stack to measure: a throwaway one, or the running one given by --url and --db. */
async function openStack() {
  if (opt.url || opt.db) {
    if (!opt.url || !opt.db) throw new Error("--url and --db go together");
    const base = new URL(opt.url.replace(/\/$/, ""));
    const fnPid = opt["fn-pid"] ? Number(opt["fn-pid"]) : listenerPid(Number(base.port || 80));
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-bench-"));
    cleanups.push(async () => fs.rmSync(scratch, { recursive: true, force: true }));
    for (const signal of ["SIGINT", "SIGTERM"]) {
      process.once(signal, async () => {
        log(`${signal}: stopping…`);
        for (const child of children) child.kill("SIGTERM");
        await teardown();
        process.exit(130);
      });
    }
    return {
      adminUrl: opt.db,
      fnDbUrl: opt["fn-db"] ?? functionDatabaseUrl(opt.db),
      origin: base.origin,
      basePath: base.pathname,
      fnPid,
      pgPid: null,
      scratch,
    };
  }
  const stack = await startThrowawayStack({ name: "bench", webhooks: true, log });
  cleanups.push(() => stack.stop());
  return stack;
}

async function main() {
  const started = new Date();
  const stack = await openStack();
  const scratch = stack.scratch;
  const floorServer = await startFloor(stack.fnDbUrl);
  cleanups.push(() => floorServer.stop());
  const idleRss = { function_mb: stack.fnPid ? rssMb(stack.fnPid) : null, floor_mb: rssMb(floorServer.pid) };
  const db = new pg.Client({ connectionString: stack.adminUrl });
  await db.connect();
  cleanups.push(() => db.end());
  if (opt.url) cleanups.push(() => seed.removeRun(db)); // leave a running stack's data as it was
  const view = await statementsView(db);
  const pgPid = stack.pgPid ?? (await postmasterPid(db));
  const base = stack.origin + stack.basePath;
  const data = { targets: {}, teams: [], resultsId: null, gameId: seed.GAMES[2] };
  const rows = [];
  let floorRps = 0;

  // Keys per workload: enough for the floor's rate (which the API does not reach), so that no
  // key nears the limit.
  const keysFor = (seconds) => Math.max(20, Math.ceil((floorRps * seconds) / KEY_BUDGET));

  let measured = 0; // measurements so far: tags the names a sign-up workload makes

  /**
   * Drives one workload for `duration` s: a fresh key pool, the load process, the database's side.
   * `tokens(count, name)`, when given, makes the pool instead of API keys of `keyAccounts`
   * (participant tokens, issue 35); `registrations` are [{tournament, registration}] to read;
   * `matches` [{tournament, match}] to report, one per request, and `maxRequests` stops the load
   * once they are all taken (issue 36).
   */
  async function measure(
    workload,
    { keyAccounts = [], tournaments = null, tournament, registrations, matches, maxRequests, tokens, query, duration },
  ) {
    const t0 = performance.now();
    const count = workload === "hammer" ? 1 : keysFor(duration);
    const keys = workload === "floor"
      ? null
      : tokens
      ? await tokens(count, workload)
      : await seed.createKeys(db, keyAccounts, count, workload);
    const keyMs = Math.round(performance.now() - t0);
    const target = workload === "floor"
      ? { origin: floorServer.origin, basePath: "", pid: floorServer.pid }
      : { origin: stack.origin, basePath: stack.basePath, pid: stack.fnPid };
    const planFile = path.join(scratch, `plan-${workload}.json`);
    fs.writeFileSync(
      planFile,
      JSON.stringify({
        ...data,
        workload,
        kind: KINDS[workload] ?? workload,
        query,
        keys,
        tournaments,
        tournament,
        registrations,
        matches,
        maxRequests,
        tag: `${seed.RUN}m${++measured}`,
        connections: CONNECTIONS,
        duration,
        origin: target.origin,
        basePath: target.basePath,
      }),
    );
    await resetStats(db, view);
    const rssBefore = target.pid ? rssMb(target.pid) : null;
    const watcher = watch({ fnPid: target.pid, pgPid });
    const ownCpu = process.cpuUsage();
    let result, procs;
    try {
      result = await runLoad(planFile);
    } finally {
      procs = watcher.stop();
    }
    const own = process.cpuUsage(ownCpu);
    await drain(db);
    const row = { ...result, ...procs, fn_rss_before_mb: rssBefore, keys_made_ms: keyMs, ...(await readStats(db, view, result.sent)) };
    row.bench_cpu_s = (own.user + own.system) / 1e6;
    row.other_cpu_s = row.machine_cpu_s - (row.fn_cpu_s ?? 0) - (row.pg_cpu_s ?? 0) - row.load_cpu_s - row.bench_cpu_s;
    if (workload === "floor") floorRps = Math.max(floorRps, row.rps);
    return row;
  }

  // This machine's speed drifts (a shared VM: the floor alone has moved 2x within minutes), so
  // each workload is compared with the floor measured just before or just after it, the higher
  // (a probe can dip too).
  const PROBE_S = Math.max(3, Math.round(DURATION / 2));
  let previous = null; // the last workload's row, which the next floor measurement also bounds

  /** One row of the table: a workload, after a floor probe unless it is the floor. */
  async function run(workload, { data: dataLabel, label = LABELS[workload], ...how }) {
    const probe = workload === "floor" ? null : await measure("floor", { duration: PROBE_S });
    const row = { label, data: dataLabel, kind: KINDS[workload] ?? workload, ...(await measure(workload, { ...how, duration: DURATION })) };
    const floor = probe ?? row;
    previous?.floor_probes.push(floor.rps);
    row.floor_probes = [floor.rps];
    previous = probe ? row : null;
    rows.push(row);
    log(
      `${workload} [${dataLabel}]: ${row.rps.toFixed(0)} req/s (floor just before: ${floor.rps.toFixed(0)}), ` +
        `p50 ${row.latency_ms.p50} ms, p99 ${row.latency_ms.p99} ms, errors ${row.errors}` +
        (row.unexpected.length ? ` (${row.unexpected[0]})` : "") +
        (row.keys ? `; ${row.keys} keys, at most ${row.max_requests_per_key} requests each` : ""),
    );
    return row;
  }

  log(`floor: ${DURATION} s per workload, ${PROBE_S} s per floor probe, ${CONNECTIONS} connections`);
  await measure("floor", { duration: 3 }); // warm-up

  /** The webhook figures (bench/lib/webhooks.mjs), on the throwaway stack only. */
  const webhooks = async () => {
    if (!stack.webhookKey) {
      log("webhooks: not measured on a running stack (its dispatcher and encryption key are its own)");
      return null;
    }
    const t0 = performance.now();
    const out = await webhookBench({
      db,
      stack,
      view,
      pgPid,
      measure,
      teams: data.teams,
      duration: DURATION,
      events: WEBHOOK_EVENTS,
      concurrency: WEBHOOK_CONCURRENCY,
      log,
    });
    out.took_s = Math.round((performance.now() - t0) / 1000);
    log(`webhooks: measured in ${out.took_s} s`);
    return out;
  };
  const writeReport = (report) => {
    const dir = path.join(ROOT, ".bench");
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `results-${started.toISOString().replace(/[:.]/g, "-")}.json`);
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + "\n");
    return file;
  };
  const machine = () => ({ cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, node: process.version, loadavg: os.loadavg() });

  /** The live figures (bench/lib/live.mjs). */
  /**
   * A section run alone (--live, --ffa, --scoring, --public, --pictures): its 1,024 teams (256 for
   * live), its figures printed with their targets, and its own report file.
   */
  const only = async (name, title, run, report, teamCount = 1024) => {
    data.teams = await seed.createTeams(db, teamCount);
    const out = await run();
    console.log(`\n${report(out)}\n\nTargets (${title})\n${targetList(out.targets)}\n`);
    const file = writeReport({
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      options: { only: name, stack: opt.url ? "running" : "throwaway" },
      git: gitState(ROOT),
      machine: machine(),
      [name]: out,
      targets: out.targets,
    });
    log(`written ${path.relative(ROOT, file)} (.bench/latest.json stays the last full run's)`);
  };
  const live = async () => {
    const t0 = performance.now();
    const out = await liveBench({ db, view, base, teams: data.teams, log });
    out.took_s = Math.round((performance.now() - t0) / 1000);
    return out;
  };
  if (opt.live) return await only("live", "live", () => live(), liveReport, 256);
  if (opt.rush) {
    return await only(
      "rush",
      "issue 39, rush hours",
      () => rushBench({ db, base, teams: data.teams, watched: { fnPid: stack.fnPid ?? null, pgPid }, log }),
      rushReport,
    );
  }
  if (opt.ffa) return await only("ffa", "issue 38, free-for-all", () => ffaBench({ db, view, base, teams: data.teams, log }), ffaReport);
  if (opt.scoring) {
    return await only("scoring", "issue 37, scoring", () => scoringBench({ db, base, teams: data.teams, log }), scoringReport);
  }
  /** The public view's figures (bench/lib/public.mjs). */
  const publicFigures = async () => {
    const t0 = performance.now();
    const out = await publicBench({ db, view, base, teams: data.teams, log });
    out.took_s = Math.round((performance.now() - t0) / 1000);
    return out;
  };
  if (opt.public) return await only("public", "public", () => publicFigures(), publicReport);
  /** The pictures in fresh function instances (bench/lib/pictures.mjs). */
  const pictureFigures = async () => {
    const t0 = performance.now();
    const out = await picturesBench({ db, base, fnDbUrl: stack.fnDbUrl, basePath: stack.basePath, teams: data.teams, log });
    out.took_s = Math.round((performance.now() - t0) / 1000);
    return out;
  };
  if (opt.pictures) return await only("pictures", "pictures", () => pictureFigures(), picturesReport);
  // Issue 34: players, rosters and lineups. The account's own 1,024 teams, each with a roster of
  // 5 players, a substitute and a coach (7,168 players of the account), and two 256-team
  // tournaments of the same teams: one whose registrations hold 5-6 player lineups, one none.
  async function seedLineups(w) {
    const t0 = performance.now();
    data.rosterTeams = await seed.createRosterTeams(db, w, 1024);
    data.lineupIds = await seed.lineupTournaments(db, w, data.rosterTeams.slice(0, 256));
    const { rows: [c] } = await db.query(
      `select (select count(*) from app.team_members m where m.account_id = $1)::int as members,
              (select count(*) from app.lineup_entries e where e.tournament_id = $2)::int as entries`,
      [w, data.lineupIds.lineups],
    );
    log(
      `lineups: 1,024 teams of the account with ${c.members} roster members, two 256-team tournaments ` +
        `(${c.entries} lineup entries in one, none in the other), in ${Math.round(performance.now() - t0)} ms`,
    );
  }
  /**
   * One pair of issue 34's figures, each after its floor probe: `register` (a team without a
   * roster, then one whose roster the registration copies) or `registrations` (256 teams without
   * lineups, then with); `lineupFirst` swaps the order. Registrations go to fresh tournaments
   * (team_size 5, substitutes_max 1, room for the floor's rate). Returns {base, after}.
   */
  async function lineupPair(kind, { w, how, dataLabel, tag, lineupFirst = false }) {
    const out = {};
    for (const side of lineupFirst ? ["after", "base"] : ["base", "after"]) {
      if (kind === "register") {
        const workload = side === "base" ? "register" : "register_lineup";
        data.targets[workload] = await seed.createTargets(db, [w], floorRps * DURATION, `${workload}-${tag}`, { substitutesMax: 1 });
        out[side] = await run(workload, { data: dataLabel, ...how });
      } else {
        out[side] = await run(side === "base" ? "registrations" : "registrations_lineup", {
          data: dataLabel,
          ...how,
          tournament: data.lineupIds[side === "base" ? "plain" : "lineups"],
        });
      }
    }
    return out;
  }
  /** Issue 34's two comparisons from pairs of rows (several rounds: their means). */
  const lineupComparisons = (register, registrations) => [
    compare(
      "lineups: POST /tournaments/{id}/registrations, the team's 7-player roster copied",
      pooled(register.map((p) => p.base), "a team without a roster"),
      pooled(register.map((p) => p.after), "a 7-player roster"),
      LINEUP_SLOWDOWN.register,
    ),
    compare(
      "lineups: GET /tournaments/{id}/registrations, 256 teams",
      pooled(registrations.map((p) => p.base), "no lineups"),
      pooled(registrations.map((p) => p.after), "5-6 player lineups"),
      LINEUP_SLOWDOWN.registrations,
    ),
  ];
  // Issue 35: participants. 200 registrations of the account's open tournaments, read by the
  // organiser (API keys) and by their holders (a registration token each, made per workload).
  let participantRegs = [];
  async function seedParticipants(w) {
    participantRegs = await seed.sampleRegistrations(db, w, 200);
    if (!participantRegs.length) throw new Error("participants: the account has no registrations in open tournaments");
    log(`participants: ${participantRegs.length} registrations of ${new Set(participantRegs.map((r) => r.tournament)).size} tournaments`);
  }
  /** `count` registration tokens of the sampled registrations, each in turn. */
  const registrationTokens = (count, name) =>
    seed.createTokens(db, Array.from({ length: count }, (_, i) => participantRegs[i % participantRegs.length]), name);
  /**
   * Sign-up tokens of `targets` (tournaments for 1,024 teams, which the load generator fills one
   * at a time, as `register` fills its own): enough of each that its 1,024 sign-ups stay under
   * the paced budget per token.
   */
  const signupTokens = (targets) => (_count, name) =>
    seed.createTokens(db, targets.flatMap((tournament) => Array(Math.ceil(1024 / KEY_BUDGET)).fill({ tournament })), name);
  /**
   * One set of issue 35's figures, each after its floor probe. `get`: GET /tournaments/{id} of
   * the registrations' tournaments (`tournament`, for information), the organiser's GET of the
   * registrations (`base`), GET /participant with their tokens (`after`). `signup`: POST
   * registration of a team with an API key (`base`), then a sign-up with sign-up tokens
   * (`after`), each to fresh tournaments with room for the floor's rate. `participantFirst`
   * reverses the order. Returns {base, after[, tournament]}.
   */
  async function participantPair(kind, { w, how, dataLabel, tag, participantFirst = false }) {
    const out = {};
    const sides = kind === "get" ? ["tournament", "base", "after"] : ["base", "after"];
    for (const side of participantFirst ? sides.toReversed() : sides) {
      if (kind === "get") {
        const tournaments = [[...new Set(participantRegs.map((r) => r.tournament))]];
        out[side] = side === "tournament"
          ? await run("get", { data: dataLabel, ...how, tournaments })
          : side === "base"
          ? await run("registration", { data: dataLabel, ...how, registrations: participantRegs })
          : await run("participant_get", { data: dataLabel, tokens: registrationTokens });
      } else if (side === "base") {
        data.targets.register = await seed.createTargets(db, [w], floorRps * DURATION, `register-${tag}`);
        out.base = await run("register", { data: dataLabel, ...how });
      } else {
        const [targets] = await seed.createTargets(db, [w], floorRps * DURATION, `signup-${tag}`);
        out.after = await run("signup", { data: dataLabel, tokens: signupTokens(targets) });
      }
    }
    return out;
  }
  /** Issue 35's comparisons from sets of rows (several rounds: their means); the second is for information. */
  const participantComparisons = (gets, signups) => [
    compare(
      "participants: GET /participant (a registration token) against the organiser's GET of the registration (an API key)",
      pooled(gets.map((p) => p.base), "GET /tournaments/{id}/registrations/{registration_id}"),
      pooled(gets.map((p) => p.after), "GET /participant"),
      PARTICIPANT_SLOWDOWN.get,
    ),
    compare(
      "participants: GET /participant against GET /tournaments/{id} (an API key), the same tournaments",
      pooled(gets.map((p) => p.tournament), "GET /tournaments/{id}"),
      pooled(gets.map((p) => p.after), "GET /participant"),
      null,
    ),
    compare(
      "participants: a sign-up (team, 5 players, registration, token) against a registration POST",
      pooled(signups.map((p) => p.base), "POST /tournaments/{id}/registrations {team_id}"),
      pooled(signups.map((p) => p.after), "POST /participant/registrations"),
      PARTICIPANT_SLOWDOWN.signup,
    ),
  ];
  if (opt.participants) {
    const [w] = await seed.createAccounts(db, 1);
    data.teams = await seed.createTeams(db, 1024);
    await seed.createTournaments(db, [w], SMALL); // the account as the full run's W holds it
    await seed.createRegistrations(db, data.teams);
    await db.query("vacuum (analyze) app.tournaments, app.registrations, app.api_keys");
    await seedParticipants(w);
    const how = { keyAccounts: [w] };
    // Warm-up: each of the five once, short, not counted.
    await measure("get", { ...how, tournaments: [[...new Set(participantRegs.map((r) => r.tournament))]], duration: 3 });
    await measure("registration", { ...how, registrations: participantRegs, duration: 3 });
    await measure("participant_get", { tokens: registrationTokens, duration: 3 });
    data.targets.register = await seed.createTargets(db, [w], floorRps * 3, "register-warm");
    await measure("register", { ...how, duration: 3 });
    await measure("signup", { tokens: signupTokens((await seed.createTargets(db, [w], floorRps * 3, "signup-warm"))[0]), duration: 3 });
    const pairs = { get: [], signup: [] };
    for (let round = 1; round <= 3; round++) {
      // A B, then B A, then A B: the machine's drift within a round falls on both sides.
      const participantFirst = round % 2 === 0;
      const dataLabel = `round ${round}`;
      pairs.get.push(await participantPair("get", { w, how, dataLabel, tag: round, participantFirst }));
      pairs.signup.push(await participantPair("signup", { w, how, dataLabel, tag: round, participantFirst }));
    }
    await run("floor", { data: "–", label: "floor again, at the end" });
    for (const row of rows) {
      row.floor_rps = Math.max(...row.floor_probes);
      row.ratio_to_floor = row.rps / row.floor_rps;
    }
    const perRound = [1, 2, 3].flatMap((round) =>
      participantComparisons([pairs.get[round - 1]], [pairs.signup[round - 1]])
        .map((c) => ({ ...c, label: `${c.label} (round ${round})` }))
    );
    const participants = participantComparisons(pairs.get, pairs.signup).map((c) => ({ ...c, label: `${c.label} (mean of 3 rounds)` }));
    const targets = judge({ rows, idleRss, scale: [], neighbour: [], participants });
    console.log(
      `\n${table(rows)}\n\n${comparisonTable([...perRound, ...participants])}\n\nTargets (issue 35, participants)\n${
        targetList(targets)
      }\n`,
    );
    const file = writeReport({
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      options: { only: "participants", duration_s: DURATION, connections: CONNECTIONS, stack: opt.url ? "running" : "throwaway" },
      git: gitState(ROOT),
      machine: machine(),
      seed: { account: w, registrations: participantRegs.length },
      workloads: rows,
      comparisons: { participants_per_round: perRound, participants },
      targets,
    });
    log(`written ${path.relative(ROOT, file)} (.bench/latest.json stays the last full run's)`);
    return;
  }
  // Issue 36: reported results. Every request of these workloads takes a fresh ready match, a
  // first-round match of a started 512-team single elimination with participant_reporting
  // "confirm" (256 each): the organiser's PATCH of its result (API keys), team1's report (a
  // registration token of each match's team1, scopes {participant:report}), team2's confirmation
  // of team1's report (seeded beforehand through app.participant_report, with a token of each
  // team2). The requests go to the pool's brackets in turn (request c to bracket c mod B), so
  // that the 16 connections seldom wait on one tournament's row lock (all three take it): req/s
  // is then the inverse of a request's cost, not of the time one tournament's lock is held,
  // commit included. Each pool is analyzed before its floor probe: with the statistics of a
  // smaller app.matches, the cached generic plan of app.advance's status update (`m.id in
  // (next, loser_next) and m.status in ('pending', 'ready')`, under the account's RLS) may AND
  // matches_account_idx with matches_open_idx instead of taking the primary key, reading every
  // open match of the account: 2,000-3,600 buffers per request instead of 200-350, on whichever
  // workload it fell (docs/performance.md, "Reported results").
  let reportRing = null;
  let reportPoolSize = 768; // matches per workload: sized after the warm-up (enough for twice its rate)
  /** Fresh ready matches for one workload (about `size`, whole brackets): [{tournament, match, reg1, reg2}]. */
  async function reportPool(w, workload, size, tag) {
    const ids = await seed.reportingBrackets(db, base, [reportRing], [w], data.teams.slice(0, 512), Math.ceil(size / 256), {
      tag: `${workload}-${tag}`,
    });
    const brackets = ids.map(() => []);
    for (const m of await seed.readyMatches(db, ids)) brackets[ids.indexOf(m.tournament)].push(m);
    const matches = Array.from({ length: Math.max(...brackets.map((l) => l.length)) }, (_, k) => brackets.map((l) => l[k]))
      .flat().filter(Boolean); // the brackets in turn
    if (workload === "confirm" && (await seed.seedReports(db, matches)) !== matches.length) {
      throw new Error("reports: team1's reports were not all made");
    }
    await db.query("analyze app.matches, app.registrations, app.stage_entries");
    return matches;
  }
  /** measure()'s arguments for a pool: a registration token per match (its side's), or the account's API keys. */
  const reportArgs = (w, workload, matches) => ({
    matches,
    maxRequests: matches.length,
    ...(workload === "patch" ? { keyAccounts: [w] } : {
      tokens: async (_count, name) => {
        const specs = matches.map((m) => ({ tournament: m.tournament, registration: workload === "report" ? m.reg1 : m.reg2 }));
        const tokens = await seed.createTokens(db, specs, name, { scopes: ["participant:report"] });
        return tokens.map((t, i) => ({ ...t, match: matches[i].match }));
      },
    }),
  });
  /** One round: the three workloads, each after its floor probe on its own fresh matches; `reverse` swaps the order. */
  async function reportRound(w, { dataLabel, tag, reverse = false }) {
    const out = {};
    for (const workload of reverse ? ["confirm", "report", "patch"] : ["patch", "report", "confirm"]) {
      const matches = await reportPool(w, workload, reportPoolSize, tag);
      const row = await run(workload, { data: dataLabel, ...reportArgs(w, workload, matches) });
      row.matches = matches.length;
      row.matches_exhausted = row.sent >= matches.length;
      if (row.matches_exhausted) log(`${workload} [${dataLabel}]: every one of its ${matches.length} matches taken: the run stopped early`);
      out[workload] = row;
    }
    return out;
  }
  /** Issue 36's comparisons from rounds (several: their means). */
  const reportComparisons = (rounds) => [
    compare(
      "reports: team1's report (a registration token) against the organiser's PATCH of the result (an API key)",
      pooled(rounds.map((r) => r.patch), "PATCH /tournaments/{id}/matches/{match_id}"),
      pooled(rounds.map((r) => r.report), "POST /participant/matches/{match_id}/report"),
      REPORT_SLOWDOWN.report,
    ),
    compare(
      "reports: team2's confirmation (a registration token) against the organiser's PATCH of the result (an API key)",
      pooled(rounds.map((r) => r.patch), "PATCH /tournaments/{id}/matches/{match_id}"),
      pooled(rounds.map((r) => r.confirm), "POST /participant/matches/{match_id}/report/confirm"),
      REPORT_SLOWDOWN.confirm,
    ),
  ];
  if (opt.reports) {
    const [w] = await seed.createAccounts(db, 1);
    data.teams = await seed.createTeams(db, 1024);
    await seed.createTournaments(db, [w], SMALL); // the account as the full run's W holds it
    reportRing = new KeyRing((await seed.createKeys(db, [w], 20, "reports start")).map((k) => k.key), { budget: 80 });
    // Warm-up: each of the three once, short, not counted; their rates size the pools.
    let warmest = 0;
    for (const workload of ["patch", "report", "confirm"]) {
      const matches = await reportPool(w, workload, reportPoolSize, "warm");
      const row = await measure(workload, { ...reportArgs(w, workload, matches), duration: 3 });
      log(
        `${workload} (warm-up): ${row.rps.toFixed(0)} req/s, ${row.errors} errors${row.unexpected.length ? ` (${row.unexpected[0]})` : ""}`,
      );
      warmest = Math.max(warmest, row.rps);
    }
    reportPoolSize = Math.max(1024, Math.ceil((warmest * DURATION * 2) / 256) * 256);
    log(`reports: ${reportPoolSize} fresh matches per workload (${reportPoolSize / 256} brackets of 512 teams)`);
    await db.query("vacuum (analyze) app.tournaments, app.registrations, app.matches, app.api_keys");
    const rounds = [];
    for (let round = 1; round <= 3; round++) {
      // A B C, then C B A, then A B C: the machine's drift within a round falls on every side.
      rounds.push(await reportRound(w, { dataLabel: `round ${round}`, tag: round, reverse: round % 2 === 0 }));
    }
    await run("floor", { data: "–", label: "floor again, at the end" });
    for (const row of rows) {
      row.floor_rps = Math.max(...row.floor_probes);
      row.ratio_to_floor = row.rps / row.floor_rps;
    }
    const perRound = rounds.flatMap((r, i) => reportComparisons([r]).map((c) => ({ ...c, label: `${c.label} (round ${i + 1})` })));
    const reports = reportComparisons(rounds).map((c) => ({ ...c, label: `${c.label} (mean of 3 rounds)` }));
    log("sweep: seeding 10,000 open reports…");
    const sweep = await sweepBench({ db, adminUrl: stack.adminUrl, view, base, teams: data.teams, log }).catch((err) => {
      log(`sweep: failed: ${err.stack ?? err}`);
      return {
        error: err.message,
        targets: [{ target: "the worker's deadline sweep", value: `not measured: ${err.message}`, result: "–" }],
      };
    });
    const targets = [...judge({ rows, idleRss, scale: [], neighbour: [], reports }), ...sweep.targets];
    console.log(
      `\n${table(rows)}\n\n${comparisonTable([...perRound, ...reports])}\n\nTargets (issue 36, reported results)\n${
        targetList(targets)
      }\n` +
        (sweep.runs ? `\n${sweepReport(sweep)}\n` : ""),
    );
    const file = writeReport({
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      options: { only: "reports", duration_s: DURATION, connections: CONNECTIONS, stack: opt.url ? "running" : "throwaway" },
      git: gitState(ROOT),
      machine: machine(),
      seed: { account: w, matches_per_workload: reportPoolSize },
      workloads: rows,
      comparisons: { reports_per_round: perRound, reports },
      sweep,
      targets,
    });
    log(`written ${path.relative(ROOT, file)} (.bench/latest.json stays the last full run's)`);
    return;
  }
  if (opt.lineups) {
    const [w] = await seed.createAccounts(db, 1);
    data.teams = await seed.createTeams(db, 1024);
    await seed.createTournaments(db, [w], SMALL); // the account as the full run's W holds it
    await seedLineups(w);
    await db.query("vacuum (analyze) app.tournaments, app.registrations, app.teams, app.players, app.team_members, app.lineup_entries");
    const how = { keyAccounts: [w] };
    // Warm-up: each of the four once, short, not counted.
    for (const workload of ["register", "register_lineup"]) {
      data.targets[workload] = await seed.createTargets(db, [w], floorRps * 3, `${workload}-warm`, { substitutesMax: 1 });
      await measure(workload, { ...how, duration: 3 });
    }
    await measure("registrations", { ...how, tournament: data.lineupIds.plain, duration: 3 });
    await measure("registrations_lineup", { ...how, tournament: data.lineupIds.lineups, duration: 3 });
    const pairs = { register: [], registrations: [] };
    for (let round = 1; round <= 3; round++) {
      // A B, then B A, then A B: the machine's drift within a round falls on both sides.
      const lineupFirst = round % 2 === 0;
      const dataLabel = `round ${round}`;
      pairs.register.push(await lineupPair("register", { w, how, dataLabel, tag: round, lineupFirst }));
      pairs.registrations.push(await lineupPair("registrations", { w, how, dataLabel, tag: round, lineupFirst }));
    }
    await run("floor", { data: "–", label: "floor again, at the end" });
    for (const row of rows) {
      row.floor_rps = Math.max(...row.floor_probes);
      row.ratio_to_floor = row.rps / row.floor_rps;
    }
    const perRound = [1, 2, 3].flatMap((round) =>
      lineupComparisons([pairs.register[round - 1]], [pairs.registrations[round - 1]])
        .map((c) => ({ ...c, label: `${c.label} (round ${round})` }))
    );
    const lineups = lineupComparisons(pairs.register, pairs.registrations).map((c) => ({
      ...c,
      label: `${c.label} (mean of 3 rounds)`,
    }));
    const targets = judge({ rows, idleRss, scale: [], neighbour: [], lineups });
    console.log(
      `\n${table(rows)}\n\n${comparisonTable([...perRound, ...lineups])}\n\nTargets (issue 34, lineups)\n${targetList(targets)}\n`,
    );
    const file = writeReport({
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      options: { only: "lineups", duration_s: DURATION, connections: CONNECTIONS, stack: opt.url ? "running" : "throwaway" },
      git: gitState(ROOT),
      machine: machine(),
      seed: { account: w, roster_teams: data.rosterTeams.length, tournaments: data.lineupIds },
      workloads: rows,
      comparisons: { lineups_per_round: perRound, lineups },
      targets,
    });
    log(`written ${path.relative(ROOT, file)} (.bench/latest.json stays the last full run's)`);
    return;
  }
  if (opt.writes || opt.hot) {
    const [w] = await seed.createAccounts(db, 1, 1, { prefix: `Bench ${seed.RUN} ${opt.hot ? "hot" : "writes"}` });
    data.teams = await seed.createTeams(db, 1024);
    await seed.createTournaments(db, [w], SMALL);
    await db.query("vacuum (analyze) app.tournaments");
    const W = { keyAccounts: [w], tournaments: await seed.sampleTournaments(db, [w], 200) };
    for (let round = 1; round <= 3; round++) {
      for (const workload of opt.hot ? ["get", "list", "create"] : ["create", "register", "mix"]) {
        // Registrations need tournaments with room: enough for the floor's rate (the mix sends a 20th).
        if (workload === "register" || workload === "mix") {
          data.targets[workload] = await seed.createTargets(
            db,
            [w],
            floorRps * DURATION / (workload === "mix" ? 20 : 1),
            `${workload}${round}`,
          );
        }
        await run(workload, { data: `round ${round}`, ...W });
      }
    }
    await run("floor", { data: "–", label: "floor again, at the end" });
    for (const row of rows) {
      row.floor_rps = Math.max(...row.floor_probes);
      row.ratio_to_floor = row.rps / row.floor_rps;
    }
    console.log(`\n${table(rows)}\n`);
    const file = writeReport({
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      options: {
        only: opt.hot ? "hot" : "writes",
        duration_s: DURATION,
        connections: CONNECTIONS,
        stack: opt.url ? "running" : "throwaway",
      },
      git: gitState(ROOT),
      machine: machine(),
      workloads: rows,
    });
    log(`written ${path.relative(ROOT, file)}`);
    return;
  }
  if (opt.webhooks) {
    data.teams = await seed.createTeams(db, 1024);
    const out = await webhooks();
    console.log(`\n${webhookReport(out)}\n\nTargets (webhooks)\n${targetList(out.targets)}\n`);
    const file = writeReport({
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      options: {
        only: "webhooks",
        duration_s: DURATION,
        connections: CONNECTIONS,
        webhook_events: WEBHOOK_EVENTS,
        webhook_concurrency: WEBHOOK_CONCURRENCY,
        stack: "throwaway",
      },
      git: gitState(ROOT),
      machine: machine(),
      floor_rps: floorRps,
      webhooks: out,
      targets: out.targets,
    });
    log(`written ${path.relative(ROOT, file)} (.bench/latest.json stays the last full run's)`);
    return;
  }
  await run("floor", { data: "–" });

  // Three accounts of 1,000 tournaments: W (the workloads' own, with the brackets), S (small,
  // stays so) and B (grows to LARGE later).
  log(`seeding accounts W, S and B with ${SMALL} tournaments each, 1024 teams and two brackets…`);
  const { accounts: { w, s, b }, major, reported, timings, nextNumber } = await seed.scenario(db, base, data, { perAccount: SMALL });
  log(
    `256-team bracket ${data.resultsId} started through the API; reported ${reported.length} matches, e.g. ` +
      reported.slice(0, 3).map((m) => `round ${m.round} #${m.position} → ${m.team1_score}-${m.team2_score}`).join(", "),
  );
  log(`seeded in ${JSON.stringify(timings)} ms`);
  const samples = async (id) => seed.sampleTournaments(db, [id], 200);
  const on = async (id) => ({ keyAccounts: [id], tournaments: await samples(id) });
  const S = await on(s);
  const W = await on(w);
  let B = await on(b);
  await seedParticipants(w); // issue 35: registrations of W's open tournaments, before the workloads add theirs

  // Issue 13: each format's largest bracket made in one request (the start), and its results read.
  async function timeFormats() {
    log("timing each format's bracket generation and results on the server…");
    const { rows: [{ formats: offered }] } = await db.query("select app.formats() as formats");
    const formatRuns = [];
    for (
      const f of [{ format: "single_elimination", teams: 1024 }, { format: "double_elimination", teams: 1024 }, {
        format: "round_robin",
        teams: 64,
      }, { format: "swiss", teams: 1024 }].filter((f) => offered.includes(f.format))
    ) {
      const [{ key: fKey }] = await seed.createKeys(db, [w], 1, `format ${f.format}`);
      const id = await seed.startBracket(db, base, fKey, w, data.teams.slice(0, f.teams), {
        format: f.format,
        start: false,
        tag: "formats",
      });
      await db.query("analyze app.registrations"); // current statistics, as in the stages event below
      const generation = await timeServer(db, view, async () => {
        const res = await send(base, fKey, "PATCH", `/tournaments/${id}`, { status: "ongoing" });
        if (res.status !== 200) throw new Error(`start of the ${f.format} bracket: ${res.status} ${res.text}`);
        return res.text.length;
      }, 0).catch((err) => ({ error: err.message }));
      const { rows: [{ matches }] } = await db.query("select count(*)::int as matches from app.matches where tournament_id = $1", [id]);
      await db.query("analyze app.matches, app.stage_entries");
      const results = await timeServer(db, view, async () => {
        const res = await send(base, fKey, "GET", `/tournaments/${id}/results`);
        if (res.status !== 200) throw new Error(`results of the ${f.format} bracket: ${res.status}`);
        return res.text.length;
      }, 10).catch((err) => ({ error: err.message }));
      formatRuns.push({ ...f, matches, generation, results });
    }
    return formatRuns;
  }
  // Issue 22: a 1,024-team double elimination of best-of-three series, two thirds of it played
  // map by map (every ready match gets its games, 2-1 or 2-0, pass after pass, in SQL through
  // the same operation the API runs): the results read with every match's games, and one game
  // report through the API (one request, one statement).
  async function timeSeries() {
    log("timing a best-of-three 1,024-team double elimination with its games on the server…");
    const out = { teams: 1024, format: "double_elimination" };
    try {
      const [{ key: gKey }] = await seed.createKeys(db, [w], 1, "series");
      const id = await seed.startBracket(db, base, gKey, w, data.teams.slice(0, out.teams), {
        format: "double_elimination",
        options: { best_of: 3 },
        start: false,
        tag: "series",
      });
      const started = await send(base, gKey, "PATCH", `/tournaments/${id}`, { status: "ongoing" });
      if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
      await seed.playSeries(db, id);
      const { rows: [c] } = await db.query(
        `select count(*)::int as matches, count(*) filter (where status = 'completed')::int as completed,
                coalesce(sum(jsonb_array_length(games)), 0)::int as games
           from app.matches where tournament_id = $1`,
        [id],
      );
      Object.assign(out, c);
      out.results = await timeServer(db, view, async () => {
        const res = await send(base, gKey, "GET", `/tournaments/${id}/results`);
        if (res.status !== 200) throw new Error(`results: ${res.status}`);
        return res.text.length;
      }, 10).catch((err) => ({ error: err.message }));
      // The same document built by Postgres on every read (?since=0 is every match: never kept).
      out.built = await timeServer(db, view, async () => {
        const res = await send(base, gKey, "GET", `/tournaments/${id}/results?since=0`);
        if (res.status !== 200) throw new Error(`results?since=0: ${res.status}`);
        return res.text.length;
      }, 10).catch((err) => ({ error: err.message }));
      const { rows: [next] } = await db.query(
        `select id from app.matches where tournament_id = $1 and status = 'ready' and games = '[]' order by stage, round, position limit 1`,
        [id],
      );
      out.game = await timeServer(db, view, async () => {
        const res = await send(base, gKey, "PUT", `/tournaments/${id}/matches/${next.id}/games/1`, {
          team1_score: 13,
          team2_score: 7,
          map: "Nuke",
        });
        if (res.status !== 200) throw new Error(`game: ${res.status} ${res.text}`);
        return res.text.length;
      }, 0).catch((err) => ({ error: err.message }));
    } catch (err) {
      out.error = err.message;
    }
    return out;
  }
  // Issue 21: 256 teams in 32 round-robin groups, top 2 into a 64-team double elimination. Stage 1
  // is started through the API and its 896 results recorded in SQL (the same operation the API
  // runs, in one transaction, so the seed takes a second); then the stage 2 start and the whole
  // event's results are timed on the server.
  async function timeStages() {
    log("timing the stages event (256 teams, 32 groups, top 2 into double elimination) on the server…");
    const out = { teams: 256, groups: 32, advancing: 64 };
    try {
      const [{ key: sKey }] = await seed.createKeys(db, [w], 1, "stages");
      const id = await seed.startBracket(db, base, sKey, w, data.teams.slice(0, out.teams), {
        format: "round_robin",
        start: false,
        tag: "stages",
      });
      await db.query(
        `update app.tournaments t set stages = d.stages, format_options = d.stages #> '{0,format_options}'
           from (select app.stage_definitions($2) as stages) d where t.id = $1`,
        [
          id,
          JSON.stringify([{ name: "Groups", format: "round_robin", format_options: { groups: out.groups }, advance: { per_group: 2 } }, {
            name: "Playoffs",
            format: "double_elimination",
          }]),
        ],
      );
      const started = await send(base, sKey, "PATCH", `/tournaments/${id}`, { status: "ongoing" });
      if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
      await db.query(
        `select count(app.report_match(jsonb_build_object('tournament_id', m.tournament_id, 'match_id', m.id,
                  'body', jsonb_build_object('team1_score', 2 + m.position % 2, 'team2_score', m.round % 2))))
           from app.matches m where m.tournament_id = $1 and m.status = 'ready'`,
        [id],
      );
      // The planner's statistics as a database in service has them: this throwaway one took
      // them when its tables were nearly empty, and plans made from those (nested loops over
      // the 896 group matches) cost 2-3x the time. Autovacuum would analyze later; the bench
      // does it now and says so.
      await db.query("analyze app.matches, app.stage_entries, app.registrations, app.stages");
      out.start = await timeServer(db, view, async () => {
        const res = await send(base, sKey, "PATCH", `/tournaments/${id}/stages/2`, { status: "ongoing" });
        if (res.status !== 200) throw new Error(`stage 2 start: ${res.status} ${res.text}`);
        return res.text.length;
      }, 0).catch((err) => ({ error: err.message }));
      const { rows: [c] } = await db.query(
        `select count(*)::int as matches, count(*) filter (where stage = 2)::int as stage2 from app.matches where tournament_id = $1`,
        [id],
      );
      out.matches = c.matches;
      out.stage2_matches = c.stage2;
      out.results = await timeServer(db, view, async () => {
        const res = await send(base, sKey, "GET", `/tournaments/${id}/results`);
        if (res.status !== 200) throw new Error(`results: ${res.status}`);
        return res.text.length;
      }, 10).catch((err) => ({ error: err.message }));
    } catch (err) {
      out.error = err.message;
    }
    return out;
  }
  if (opt.formats) {
    console.log(`\n${formatsReport(await timeFormats())}\n${stagesReport(await timeStages())}\n${seriesReport(await timeSeries())}`);
    return;
  }

  /** Follows B's cursor to page 500 (keys of its own, paced), or says why it cannot. */
  const cursor = {};
  async function walk(dataLabel) {
    const keys = await seed.createKeys(db, [b], Math.ceil(DEEP_PAGE / 80) + 2, "cursor walk");
    const ring = new KeyRing(keys.map((k) => k.key), { budget: 80 });
    const out = await walkCursor(base, ring, { limit: DEEP_LIMIT, pages: DEEP_PAGE });
    cursor[dataLabel] = out;
    if (out.unavailable) log(`cursor: not available at ${dataLabel} (${out.unavailable})`);
    else log(`cursor: followed next_cursor ${DEEP_PAGE - 1} times in ${out.walk_ms} ms to page ${DEEP_PAGE}`);
    return out;
  }
  /** Page 1, page 500 and the cursor's page 500 of B, and GET by id; returns the rows by workload. */
  async function bigAccount(dataLabel) {
    const out = {
      get: await run("get", { data: dataLabel, ...B }),
      list: await run("list", { data: dataLabel, ...B }),
      page500: await run("page500", { data: dataLabel, ...B, query: `?page=${DEEP_PAGE}&limit=${DEEP_LIMIT}` }),
    };
    const c = await walk(dataLabel);
    if (!c.unavailable) out.cursor500 = await run("cursor500", { data: dataLabel, ...B, query: c.query });
    return out;
  }

  await measure("get", { ...S, duration: 3 }); // warm-up
  const alone = {
    get: await run("get", { data: `S ${size(SMALL)}, alone`, ...S }),
    list: await run("list", { data: `S ${size(SMALL)}, alone`, ...S }),
  };
  const before = await bigAccount(`B ${size(SMALL)}`);

  log(`growing account B to ${LARGE.toLocaleString("en")} tournaments (set-based)…`);
  timings.grow = await seed.grow(db, b, LARGE - SMALL, nextNumber);
  const counts = await seed.countByAccount(db, [w, s, b]);
  log(`B holds ${counts[b]} tournaments (insert ${timings.grow.insert_ms} ms, vacuum ${timings.grow.vacuum_ms} ms)`);
  if (counts[b] !== LARGE) throw new Error(`B holds ${counts[b]} tournaments, not ${LARGE}`);
  B = await on(b);
  await measure("get", { ...B, duration: 3 }); // warm-up
  const after = await bigAccount(`B ${size(LARGE)}`);
  // Issue 25: a deep page of the usual size against its page 1, both at B's large size.
  const deep = {
    first: await run("page1_20", { data: `B ${size(LARGE)}`, ...B, query: "?page=1&limit=20" }),
    deep: await run("page500_20", { data: `B ${size(LARGE)}`, ...B, query: `?page=${DEEP_PAGE}&limit=20` }),
  };
  const beside = {
    get: await run("get", { data: `S ${size(SMALL)}, beside B ${size(LARGE)}`, ...S }),
    list: await run("list", { data: `S ${size(SMALL)}, beside B ${size(LARGE)}`, ...S }),
  };

  // The other workloads, on W, with B large in the same database.
  const wLabel = `W ${size(SMALL)}, B ${size(LARGE)}`;
  await run("create", { data: wLabel, ...W });
  data.targets.register = await seed.createTargets(db, [w], floorRps * DURATION, "register");
  const register = await run("register", { data: wLabel, ...W });
  // Issue 34: the same registration for a team whose roster becomes its lineup, right after.
  await seedLineups(w);
  await db.query("analyze app.teams, app.players, app.team_members, app.lineup_entries, app.registrations");
  data.targets.register_lineup = await seed.createTargets(db, [w], floorRps * DURATION, "register-lineup", { substitutesMax: 1 });
  const registerLineup = await run("register_lineup", { data: wLabel, ...W });
  await run("results", { data: wLabel, ...W });
  const registrationsPair = await lineupPair("registrations", { w, how: W, dataLabel: wLabel, tag: "full" });
  // Issue 35: a participant token's GET and a sign-up, each against the organiser's with an API key.
  const participantGets = await participantPair("get", { w, how: W, dataLabel: wLabel, tag: "full" });
  const signups = await participantPair("signup", { w, how: W, dataLabel: wLabel, tag: "full" });
  data.targets.mix = await seed.createTargets(db, [w], floorRps * DURATION / 20, "mix");
  await run("mix", { data: wLabel, ...W });
  await run("hammer", { data: wLabel, ...W });
  await run("floor", { data: "–", label: "floor again, at the end" });
  for (const row of rows) {
    row.floor_rps = Math.max(...row.floor_probes);
    row.ratio_to_floor = row.rps / row.floor_rps;
  }

  const scale = ["get", "list", "page500", "cursor500"].filter((k) => before[k] && after[k])
    .map((k) => compare(`scale: ${LABELS[k]}`, before[k], after[k]));
  const neighbour = ["get", "list"].map((k) => compare(`neighbour: ${LABELS[k]}`, alone[k], beside[k]));
  scale.push(compare(`deep page: ${LABELS.page500_20} against ${LABELS.page1_20}`, deep.first, deep.deep));
  const cursorState = Object.values(cursor).find((c) => c.unavailable) ?? null;
  const lineups = lineupComparisons([{ base: register, after: registerLineup }], [registrationsPair]);
  const participants = participantComparisons([participantGets], [signups]);

  log("timing the results of the 1024-team bracket (768 matches reported) on the server…");
  const [{ key: resultsKey }] = await seed.createKeys(db, [w], 1, "results 1024");
  const results1024 = await timeServer(db, view, async () => {
    const res = await send(base, resultsKey, "GET", `/tournaments/${major}/results`);
    if (res.status !== 200) throw new Error(`GET results of the 1024-team bracket: ${res.status}`);
    return res.text.length;
  }).catch((err) => ({ error: err.message }));

  const formatRuns = await timeFormats();
  const stagesRun = await timeStages();
  const webhookRuns = await webhooks().catch((err) => { // the figures above are written whatever happens here
    log(`webhooks: failed: ${err.stack ?? err}`);
    return { error: err.message, targets: [{ target: "webhooks", value: `not measured: ${err.message}`, result: "–" }] };
  });

  const liveRuns = await live().catch((err) => {
    log(`live: failed: ${err.stack ?? err}`);
    return { error: err.message, targets: [{ target: "live", value: `not measured: ${err.message}`, result: "–" }] };
  });
  const publicRuns = await publicFigures().catch((err) => {
    log(`public: failed: ${err.stack ?? err}`);
    return { error: err.message, targets: [{ target: "public view", value: `not measured: ${err.message}`, result: "–" }] };
  });
  const pictureRuns = await pictureFigures().catch((err) => {
    log(`pictures: failed: ${err.stack ?? err}`);
    return { error: err.message, targets: [{ target: "pictures", value: `not measured: ${err.message}`, result: "–" }] };
  });
  const targets = [
    ...judge({ rows, results1024, idleRss, scale, neighbour, cursor: cursorState, lineups, participants }),
    ...(webhookRuns?.targets ?? []),
    ...(liveRuns?.targets ?? []),
    ...(publicRuns?.targets ?? []),
    ...(pictureRuns?.targets ?? []),
  ];
  console.log(
    `\n${table(rows)}\n\n${comparisonTable([...scale, ...neighbour, ...lineups, ...participants])}\n` +
      (cursorState ? `\ncursor: not available (${cursorState.unavailable})\n` : "") +
      `\nTargets (issues 11, 25, 34 and 35${webhookRuns ? ", and the webhooks'" : ""})\n${targetList(targets)}\n` +
      `\n${formatsReport(formatRuns)}\n${stagesReport(stagesRun)}` + (webhookRuns ? `\n${webhookReport(webhookRuns)}\n` : "") +
      (liveRuns?.reads ? `\n${liveReport(liveRuns)}\n` : "") + (publicRuns?.reads ? `\n${publicReport(publicRuns)}\n` : "") +
      (pictureRuns?.fresh ? `\n${picturesReport(pictureRuns)}\n` : ""),
  );

  const report = {
    started_at: started.toISOString(),
    finished_at: new Date().toISOString(),
    options: {
      duration_s: DURATION,
      probe_s: PROBE_S,
      connections: CONNECTIONS,
      scale: opt.scale,
      small: SMALL,
      large: LARGE,
      stack: opt.url ? "running" : "throwaway",
    },
    git: gitState(ROOT),
    machine: machine(),
    seed: {
      accounts: { w, s, b },
      tournaments_by_account: counts,
      teams: data.teams.length,
      timings_ms: timings,
      bracket_256: data.resultsId,
      bracket_1024: major,
      bracket_256_reported: reported.map((m) => ({
        round: m.round,
        position: m.position,
        winner_id: m.winner_id,
        score: `${m.team1_score}-${m.team2_score}`,
      })),
    },
    cursor,
    idle_rss_at_start: idleRss,
    workloads: rows,
    comparisons: { scale, neighbour, lineups, participants },
    results_1024: results1024,
    formats: formatRuns,
    stages: stagesRun,
    webhooks: webhookRuns,
    live: liveRuns,
    public: publicRuns,
    pictures: pictureRuns,
    targets,
  };
  const file = writeReport(report);
  fs.copyFileSync(file, path.join(ROOT, ".bench", "latest.json"));
  log(`written ${path.relative(ROOT, file)} and .bench/latest.json`);
}

let failed = false;
main()
  .catch((err) => {
    failed = true;
    console.error(err.stack ?? err);
  })
  .finally(async () => {
    for (const child of children) child.kill("SIGTERM");
    await teardown();
    process.exit(failed ? 1 : 0);
  });

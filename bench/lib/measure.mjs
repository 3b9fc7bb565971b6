// What `npm run bench` (and the soak's RSS sampling) measures besides the HTTP figures: processes (RSS, CPU time) from
// /proc, database round trips and server time from pg_stat_statements, WAL from pg_stat_wal,
// and the server-side time of a big bracket's results.
import fs from "node:fs";
import { execFileSync } from "node:child_process";

const TICKS = 100; // USER_HZ: /proc/<pid>/stat times are in 1/100 s on Linux

function readProc(pid, file) {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return null;
  }
}

/** Whether a process runs (a zombie, dead but not yet reaped, does not). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readProc(pid, "stat");
  return stat !== null && !/^\d+ \(.*\) Z/.test(stat);
}

/** CPU seconds (user + system) a process has used so far, or null when it is gone. */
export function cpuSeconds(pid) {
  const stat = readProc(pid, "stat");
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime, stime
}

/** Resident set size in MB, or null when the process is gone. */
export function rssMb(pid) {
  const m = readProc(pid, "status")?.match(/^VmRSS:\s+(\d+) kB/m);
  return m ? Number(m[1]) / 1024 : null;
}

/** The ids of a process's children (Postgres backends are the postmaster's). */
export function childPids(pid) {
  const out = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(entry, "stat");
    if (stat && stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] === String(pid)) out.push(Number(entry));
  }
  return out;
}

/** CPU seconds of a process and its children, per pid (a snapshot to diff later). */
function cpuSnapshot(pid) {
  const snap = new Map();
  if (!pid) return snap;
  for (const p of [pid, ...childPids(pid)]) snap.set(p, cpuSeconds(p) ?? 0);
  return snap;
}

function cpuSince(before, pid) {
  let total = 0;
  for (const [p, now] of cpuSnapshot(pid)) total += now - (before.get(p) ?? 0);
  return total;
}

/** CPU seconds all cores have spent busy so far (from /proc/stat). */
function machineBusySeconds() {
  const [user, nice, system, _idle, _iowait, irq, softirq, steal] = readProc("", "stat").split("\n")[0].trim().split(/\s+/).slice(1).map(
    Number,
  );
  return (user + nice + system + irq + softirq + steal) / TICKS;
}

/**
 * Watches a workload: the function's RSS every 100 ms (the peak) and the CPU time that the
 * function, Postgres (the postmaster and every backend) and the whole machine use meanwhile.
 */
export function watch({ fnPid, pgPid }) {
  const busy = machineBusySeconds();
  const fnCpu = fnPid ? cpuSeconds(fnPid) : null;
  const pgCpu = cpuSnapshot(pgPid);
  let peak = fnPid ? rssMb(fnPid) : null;
  const timer = setInterval(() => {
    const rss = fnPid ? rssMb(fnPid) : null;
    if (rss !== null && rss > peak) peak = rss;
  }, 100);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return {
        fn_rss_peak_mb: peak,
        fn_cpu_s: fnPid ? (cpuSeconds(fnPid) ?? 0) - fnCpu : null,
        pg_cpu_s: pgPid ? cpuSince(pgCpu, pgPid) : null,
        machine_cpu_s: machineBusySeconds() - busy,
      };
    },
  };
}

/** The postmaster's pid, when the data folder is readable from here. */
export async function postmasterPid(db) {
  const { rows: [{ dir }] } = await db.query("select current_setting('data_directory') as dir");
  const text = (() => {
    try {
      return fs.readFileSync(`${dir}/postmaster.pid`, "utf8");
    } catch {
      return null;
    }
  })();
  return text ? Number(text.split("\n")[0]) : null;
}

/** Makes sure pg_stat_statements can be read; returns the schema-qualified view name. */
export async function statementsView(db) {
  await db.query("create extension if not exists pg_stat_statements with schema extensions");
  const { rows: [{ schema }] } = await db.query(
    `select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
      where e.extname = 'pg_stat_statements'`,
  );
  return `${schema}.pg_stat_statements`;
}

/** Resets the statement counts (pg_stat_statements_reset, in the view's schema). */
export async function resetStats(db, view) {
  await db.query(`select ${view.replace(/pg_stat_statements$/, "pg_stat_statements_reset")}()`);
}

/**
 * Waits (up to `maxMs`) until the function's role runs no statement: the requests still in
 * flight when the load generator stopped finish theirs, so that statements ÷ requests sent
 * counts every request once.
 */
export async function drain(db, maxMs = 10_000) {
  const until = performance.now() + maxMs;
  for (;;) {
    const { rows: [{ n }] } = await db.query(
      `select count(*)::int as n from pg_stat_activity
        where usename = 'tournament_api' and state = 'active' and pid <> pg_backend_pid()`,
    );
    if (n === 0 || performance.now() > until) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * What the function's role ran since the reset, per request: statements (round trips), their
 * server time, the buffers they touched and the WAL they wrote.
 */
export async function readStats(db, view, requests) {
  const { rows: [s] } = await db.query(
    `select coalesce(sum(calls), 0)::float8 as calls, coalesce(sum(total_exec_time), 0)::float8 as exec_ms,
            coalesce(sum(shared_blks_hit + shared_blks_read), 0)::float8 as blocks,
            coalesce(sum(wal_bytes), 0)::float8 as wal_bytes, coalesce(sum(wal_records), 0)::float8 as wal_records
       from ${view} where userid = 'tournament_api'::regrole and toplevel -- right even with track = all
    `,
  );
  const per = (x) => (requests ? x / requests : null);
  return {
    round_trips_per_request: per(s.calls),
    db_ms_per_request: per(s.exec_ms),
    blocks_per_request: per(s.blocks),
    wal_bytes_per_request: per(s.wal_bytes),
    wal_records_per_request: per(s.wal_records),
  };
}

/**
 * The server-side time of one request, from pg_stat_statements: `runs` requests sent one after
 * the other through the API (after one cold request, timed on its own), and the function role's
 * top-level statement time per request (api.call: the key check, the rate limit, the operation
 * and its JSON). Measured through the API so that it holds whatever the operations are called.
 */
/** Server time of one request (`runs` = 0: once, cold) or of `runs` warm repeats after a cold one. */
export async function timeServer(db, view, send, runs = 20) {
  const per = async (n) => {
    const { rows: [s] } = await db.query(
      `select coalesce(sum(calls), 0)::float8 as calls, coalesce(sum(total_exec_time), 0)::float8 as total,
              coalesce(max(max_exec_time), 0)::float8 as max, coalesce(min(min_exec_time), 0)::float8 as min
         from ${view} where userid = 'tournament_api'::regrole and toplevel`,
    );
    return { ms: s.total / n, max: s.max, min: s.min, calls_per_request: s.calls / n };
  };
  await resetStats(db, view);
  let bytes = await send();
  const cold = await per(1);
  if (runs === 0) return { cold_ms: cold.ms, calls_per_request: cold.calls_per_request, response_bytes: bytes };
  await resetStats(db, view);
  for (let i = 0; i < runs; i++) bytes = await send();
  const warm = await per(runs);
  return {
    cold_ms: cold.ms,
    warm_mean_ms: warm.ms,
    warm_min_ms: warm.min,
    warm_max_ms: warm.max,
    calls_per_request: warm.calls_per_request,
    runs,
    response_bytes: bytes,
  };
}

/** The pid of the process listening on 127.0.0.1:`port` (to watch a stack started elsewhere). */
export function listenerPid(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set();
  for (const file of ["tcp", "tcp6"]) {
    for (const line of (readProc("net", file) ?? "").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex}`) && f[3] === "0A") inodes.add(f[9]); // 0A: LISTEN
    }
  }
  for (const pid of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        const m = fs.readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
        if (m && inodes.has(m[1])) return Number(pid);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}

/** The commit measured, and the files of the stack (function, migrations, stack.mjs) changed since. */
export function gitState(root) {
  try {
    const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    return {
      commit: git("rev-parse", "HEAD"),
      changed: git("status", "--porcelain", "--", "functions", "supabase", "sql", "scripts/stack.mjs")
        .split("\n").filter(Boolean),
    };
  } catch {
    return null;
  }
}

/** A list of times in ms as the bench reports them: runs, median, p95, p99, min and max (nearest rank). */
export function latency(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  return { runs: s.length, median_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99), min_ms: s[0], max_ms: s.at(-1) };
}

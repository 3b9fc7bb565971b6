// Starts the stack once per test run: a throwaway Postgres 17 (migrated by the Supabase CLI)
// and the real `api` function on Deno; in the pooler pass (TEST_POOLER=1, vitest.pooler.config.ts)
// the function reaches Postgres through PgBouncer in transaction mode, as hosted functions reach
// it through Supavisor. All are torn down at the end, by PID; if vitest itself is killed first
// (SIGKILL, a closed pipe), a watchdog process stops them.
//
// The function's and Postgres's logs are kept in .test-artifacts/stack/<pass>/ (CI keeps the
// clone's folder), and a run that saw any 5xx ends by printing why: the function's log lines of
// those requests (with the driver's SQLSTATE) and Postgres's errors (deadlocks with both
// statements, lock waits, timeouts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import {
  dispatcherDatabaseUrl,
  findPgBouncer,
  freePort,
  functionDatabaseUrl,
  newEncryptionKey,
  prepareDatabase,
  ROOT,
  startFunction,
  startPgBouncer,
  startPostgres,
  startWatchdog,
} from "../../scripts/stack.mjs";
import { serverErrorReport } from "./server-errors.ts";

declare module "vitest" {
  export interface ProvidedContext {
    apiUrl: string;
    adminDbUrl: string;
    /** The cluster's superuser (supabase_admin; `postgres` is not one, as on Supabase): for what only a superuser may do, such as moving a test's clock with the triggers off. */
    superuserDbUrl: string;
    /** The function's role, for tests that connect as it themselves (or start another instance): through PgBouncer in the pooler pass. */
    functionDbUrl: string;
    logFile: string;
    /** The dispatcher's role (tests start their own dispatchers: tests/support/webhook-helpers.ts). */
    dispatcherDbUrl: string;
    /** The function's WEBHOOK_ENCRYPTION_KEY. */
    webhookEncryptionKey: string;
    /** The pooler pass: PgBouncer's admin console (SHOW STATS); null in the main pass. */
    poolerAdminUrl: string | null;
  }
}

/** Postgres's log, so that an aborted transaction says why: deadlocks (both statements), lock waits past 1 s, every error's statement. */
const POSTGRES_LOGGING = {
  log_line_prefix: "%m [%p] %e %u ",
  log_lock_waits: "on",
  log_min_error_statement: "error",
};

export default async function setup(project: TestProject) {
  const pooled = process.env.TEST_POOLER === "1";
  // A fixture suite run inside this one (tests/platform/can-fail, setup-watchdog) names its own
  // folder: it must not clear the logs the outer run is writing and reading.
  const pass = process.env.TEST_STACK_NAME ?? (pooled ? "pooler" : "main");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-test-"));
  fs.chmodSync(dir, 0o755); // the postgres user must reach the data folder below it
  const logs = path.join(ROOT, ".test-artifacts", "stack", pass);
  fs.rmSync(logs, { recursive: true, force: true });
  fs.mkdirSync(logs, { recursive: true });
  const logFile = path.join(logs, "function.log");
  const postgresLog = fs.createWriteStream(path.join(logs, "postgres.log"));
  const watchdog = startWatchdog();
  watchdog.remove(dir);
  const db = await startPostgres({
    dataDir: path.join(dir, "pg", "data"),
    port: await freePort(),
    persistent: false,
    settings: POSTGRES_LOGGING,
    onLog: (text: string) => postgresLog.write(text),
  });
  watchdog.watch("INT", db.pid);
  let fn: Awaited<ReturnType<typeof startFunction>> | undefined;
  let bouncer: Awaited<ReturnType<typeof startPgBouncer>> | undefined;
  let log: fs.WriteStream | undefined;
  let pgbouncerLog: fs.WriteStream | undefined;
  try {
    await prepareDatabase(db);
    const functionDbUrl = functionDatabaseUrl(db.url);
    let databaseUrl = functionDbUrl;
    if (pooled) {
      const binary = findPgBouncer();
      if (!binary) throw new Error("the pooler pass needs PgBouncer (Debian's package pgbouncer): apt-get install pgbouncer");
      pgbouncerLog = fs.createWriteStream(path.join(logs, "pgbouncer.log"));
      bouncer = await startPgBouncer({
        binary,
        dir: path.join(dir, "pgbouncer"),
        port: await freePort(),
        databaseUrl: db.url,
        users: { tournament_api: "tournament_api" },
        onLog: (text: string) => pgbouncerLog?.write(text),
      });
      watchdog.watch("INT", bouncer.pid);
      databaseUrl = bouncer.url("tournament_api");
    }
    log = fs.createWriteStream(logFile);
    const webhookEncryptionKey = newEncryptionKey();
    fn = await startFunction({
      port: await freePort(),
      databaseUrl,
      onLine: (l: string) => log?.write(l + "\n"),
      // The public routes' client address from X-Forwarded-For: each test names its own.
      env: { WEBHOOK_ENCRYPTION_KEY: webhookEncryptionKey, WEBHOOK_ALLOW_LOCAL: "true", CLIENT_ADDRESS_HEADERS: "x-forwarded-for" },
    });
    watchdog.watch("TERM", fn.pid);
    project.provide("apiUrl", `${fn.url}/functions/v1/api/v1`);
    project.provide("adminDbUrl", db.url);
    project.provide("superuserDbUrl", db.superuserUrl);
    project.provide("functionDbUrl", databaseUrl);
    project.provide("logFile", logFile);
    project.provide("dispatcherDbUrl", dispatcherDatabaseUrl(db.url));
    project.provide("webhookEncryptionKey", webhookEncryptionKey);
    project.provide("poolerAdminUrl", bouncer ? bouncer.url("tournament_api", "pgbouncer") : null);
  } catch (err) {
    await fn?.stop();
    await bouncer?.stop();
    await db.stop();
    watchdog.done();
    throw err;
  }
  return async () => {
    await fn?.stop();
    await bouncer?.stop();
    await db.stop();
    watchdog.done();
    // Every log written out before it is read.
    await Promise.all([log, postgresLog, pgbouncerLog].map((s) => s && new Promise((done) => s.end(done))));
    fs.rmSync(dir, { recursive: true, force: true });
    const report = serverErrorReport(logFile, path.join(logs, "postgres.log"));
    if (report) process.stderr.write(report);
  };
}

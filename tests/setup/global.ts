// Starts the stack once per test run: a throwaway Postgres 17 (migrated by the Supabase CLI)
// and the real `api` function on Deno. Both are torn down at the end, by PID; if vitest itself
// is killed first (SIGKILL, a closed pipe), a watchdog process stops them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import {
  dispatcherDatabaseUrl, freePort, functionDatabaseUrl, newEncryptionKey, prepareDatabase, startFunction, startPostgres,
  startWatchdog,
} from "../../scripts/stack.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    apiUrl: string;
    adminDbUrl: string;
    functionDbUrl: string;
    logFile: string;
    /** The dispatcher's role (tests start their own dispatchers: tests/webhook-helpers.ts). */
    dispatcherDbUrl: string;
    /** The function's WEBHOOK_ENCRYPTION_KEY. */
    webhookEncryptionKey: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-test-"));
  fs.chmodSync(dir, 0o755); // the postgres user must reach the data folder below it
  const logFile = path.join(dir, "function.log");
  const watchdog = startWatchdog();
  watchdog.remove(dir);
  const db = await startPostgres({ dataDir: path.join(dir, "pg", "data"), port: await freePort(), persistent: false });
  watchdog.watch("INT", db.pid);
  let fn: Awaited<ReturnType<typeof startFunction>> | undefined;
  try {
    await prepareDatabase(db);
    const functionDbUrl = functionDatabaseUrl(db.url);
    const log = fs.createWriteStream(logFile);
    const webhookEncryptionKey = newEncryptionKey();
    fn = await startFunction({ port: await freePort(), databaseUrl: functionDbUrl, onLine: (l: string) => log.write(l + "\n"),
      // The public routes' client address from X-Forwarded-For: each test names its own.
      env: { WEBHOOK_ENCRYPTION_KEY: webhookEncryptionKey, WEBHOOK_ALLOW_LOCAL: "true", CLIENT_ADDRESS_HEADERS: "x-forwarded-for" } });
    watchdog.watch("TERM", fn.pid);
    project.provide("apiUrl", `${fn.url}/functions/v1/api/v1`);
    project.provide("adminDbUrl", db.url);
    project.provide("functionDbUrl", functionDbUrl);
    project.provide("logFile", logFile);
    project.provide("dispatcherDbUrl", dispatcherDatabaseUrl(db.url));
    project.provide("webhookEncryptionKey", webhookEncryptionKey);
  } catch (err) {
    await fn?.stop();
    await db.stop();
    watchdog.done();
    throw err;
  }
  return async () => {
    await fn?.stop();
    await db.stop();
    watchdog.done();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

// The throwaway stack that `npm run bench` and `npm run soak` measure: Postgres in a temp
// folder and the `api` function, on free ports, torn down by PID whatever happens (normal end,
// error, Ctrl-C, an exception after the event loop is gone).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, functionDatabaseUrl, newEncryptionKey, prepareDatabase, startFunction, startPostgres } from "../../scripts/stack.mjs";
import { alive, childPids } from "./measure.mjs";

/**
 * Starts Postgres (migrated, with the function's role) and the function in a fresh temp
 * folder. Returns what a run needs: the superuser URL, the function role's URL, the API's
 * origin and base path, both pids, the scratch folder, and `stop()` (async, orderly). A
 * synchronous teardown by PID is registered for signals and exit. With `webhooks`, the function
 * gets a fresh WEBHOOK_ENCRYPTION_KEY (returned as `webhookKey`, for the dispatcher) and
 * WEBHOOK_ALLOW_LOCAL=true, so that endpoints may point at a local http:// receiver.
 */
export async function startThrowawayStack({ name, webhooks = false, onLine = () => {}, log = () => {} }) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `tournament-api-${name}-`));
  fs.chmodSync(scratch, 0o755); // Postgres runs as the postgres user below it when this runs as root
  const dataDir = path.join(scratch, "pg", "data");
  const state = { db: null, fn: null, tornDown: false };

  /** Synchronous, by PID: the function and any other child get SIGKILL, Postgres a fast shutdown. */
  const stopNow = () => {
    if (state.tornDown) return;
    state.tornDown = true;
    const pgPid = state.db?.pid ?? postmasterPidOf(dataDir);
    const others = new Set([...(state.fn?.pid ? [state.fn.pid] : []), ...childPids(process.pid)]);
    others.delete(pgPid);
    for (const pid of others) {
      if (alive(pid)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
    }
    if (pgPid && alive(pgPid)) {
      try {
        process.kill(pgPid, "SIGINT");
      } catch { /* gone */ }
      const until = Date.now() + 10_000;
      const nap = new Int32Array(new SharedArrayBuffer(4));
      while (alive(pgPid) && Date.now() < until) Atomics.wait(nap, 0, 0, 50);
      if (alive(pgPid)) {
        try {
          process.kill(pgPid, "SIGKILL");
        } catch { /* gone */ }
      }
    }
    fs.rmSync(scratch, { recursive: true, force: true });
  };
  const stop = async () => {
    if (state.tornDown) return;
    await state.fn?.stop().catch(() => {});
    await state.db?.stop().catch(() => {});
    stopNow();
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the stack…`);
      stopNow();
      process.exit(130);
    });
  }
  process.on("exit", stopNow);

  try {
    log(`starting Postgres and migrating (throwaway, in ${scratch})…`);
    state.db = await startPostgres({ dataDir, port: await freePort(), persistent: false });
    await prepareDatabase(state.db);
    const fnDbUrl = functionDatabaseUrl(state.db.url);
    const webhookKey = webhooks ? newEncryptionKey() : null;
    state.fn = await startFunction({
      port: await freePort(),
      databaseUrl: fnDbUrl,
      onLine,
      // The public figures send each request from an address of its own (X-Forwarded-For).
      env: {
        CLIENT_ADDRESS_HEADERS: "x-forwarded-for",
        ...(webhookKey ? { WEBHOOK_ENCRYPTION_KEY: webhookKey, WEBHOOK_ALLOW_LOCAL: "true" } : {}),
      },
    });
    return {
      // The bench seeds as the cluster's superuser (bulk loads skip triggers); the API still
      // runs on the Supabase-shaped database, migrated as `postgres`.
      scratch,
      adminUrl: state.db.superuserUrl,
      fnDbUrl,
      origin: state.fn.url,
      basePath: "/functions/v1/api/v1",
      base: `${state.fn.url}/functions/v1/api/v1`,
      fnPid: state.fn.pid,
      fnChild: state.fn.child,
      pgPid: state.db.pid ?? postmasterPidOf(dataDir),
      webhookKey,
      stop,
      stopNow,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The postmaster's pid from its data folder, or null. */
export function postmasterPidOf(dataDir) {
  try {
    return Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]) || null;
  } catch {
    return null;
  }
}

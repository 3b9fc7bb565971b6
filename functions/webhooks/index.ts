// The `webhooks` edge function: the dispatcher. Locally (`npm start`, WEBHOOK_LISTEN=true) it
// runs for good, woken by the commit of each change that recorded events (LISTEN webhooks)
// and every second for retries. Deployed, each POST (Supabase Cron every few seconds, and the
// `api` function's nudge) runs the dispatcher until nothing is due or the time budget ends.
//
// It is also the worker of reported results (contract section 18): a report nobody answered by
// its `confirm_by` is applied as confirmed by webhooks.confirm_due_reports, which this calls
// every REPORT_SWEEP_MS locally (15 s: within the contract's minute, whatever the traffic) and
// on every POST deployed (Cron's every 5 s), one sweep at a time per instance.
import pg from "pg";
import { onSupabase as runningOnSupabase, positiveInt, set, unusableUrl } from "../_shared/runtime.ts";
import { importEncryptionKey } from "../_shared/webhook-secrets.ts";
import { Dispatcher } from "./dispatcher.ts";

const env = (name: string) => set((n) => Deno.env.get(n), name);
const onSupabase = runningOnSupabase((n) => Deno.env.get(n));
const log = (line: Record<string, unknown>) =>
  line.level === "error" ? console.error(JSON.stringify(line)) : console.log(JSON.stringify(line));
const int = (name: string, fallback: number) => positiveInt(env(name), fallback);

/** The dispatcher's settings (README, "Configuration"). */
export const DEFAULT_RETRY_SECONDS = [5, 300, 1800, 7200, 18000, 36000];
const databaseUrl = env("WEBHOOKS_DATABASE_URL") ??
  (onSupabase ? undefined : "postgres://tournament_webhooks:tournament_webhooks@127.0.0.1:54322/postgres");
const retrySeconds = env("WEBHOOK_RETRY_SECONDS")?.split(",").map((s) => Number(s.trim()));
if (retrySeconds && retrySeconds.some((n) => !Number.isFinite(n) || n < 0)) {
  throw new Error("WEBHOOK_RETRY_SECONDS must be a comma-separated list of seconds, such as 5,300,1800");
}
const token = env("WEBHOOK_DISPATCH_TOKEN");
const budgetMs = int("WEBHOOK_DISPATCH_BUDGET_MS", 25_000);
/** How often the local dispatcher applies the reports past their deadline (the tests shorten it). */
export const DEFAULT_REPORT_SWEEP_MS = 15_000;
const reportSweepMs = int("REPORT_SWEEP_MS", DEFAULT_REPORT_SWEEP_MS);

let dispatcher: Dispatcher | null = null;
let problem: string | null = null;
if (!databaseUrl) problem = "WEBHOOKS_DATABASE_URL is not set: set it as a secret (supabase secrets set WEBHOOKS_DATABASE_URL=...)";
else problem = unusableUrl("WEBHOOKS_DATABASE_URL", databaseUrl, (connectionString) => new pg.Client({ connectionString }));
if (!problem && !env("WEBHOOK_ENCRYPTION_KEY")) problem = "WEBHOOK_ENCRYPTION_KEY is not set";
if (!problem) {
  try {
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: int("WEBHOOKS_DB_POOL_SIZE", 4),
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    });
    pool.on("error", () => {});
    dispatcher = new Dispatcher({
      pool,
      encryptionKey: await importEncryptionKey(env("WEBHOOK_ENCRYPTION_KEY")!),
      timeoutMs: int("WEBHOOK_TIMEOUT_MS", 10_000),
      retrySeconds: retrySeconds ?? DEFAULT_RETRY_SECONDS,
      allowLocal: env("WEBHOOK_ALLOW_LOCAL") === "true",
      concurrency: int("WEBHOOK_CONCURRENCY", 16),
      disableAfterSeconds: int("WEBHOOK_DISABLE_AFTER_SECONDS", 5 * 24 * 3600),
      listening: env("WEBHOOK_LISTEN") === "true",
      log,
    });
  } catch (err) {
    problem = (err as Error).message;
  }
}
if (problem) log({ level: "error", msg: `refusing to dispatch: ${problem}; every request answers 503` });

let sweeping: Promise<number | null> | null = null;

/**
 * Applies the reports past their deadline (Dispatcher.confirmDueReports), then wakes the
 * dispatcher for the events that made. One sweep at a time in this process: a call while one
 * runs shares it. Never throws (a failure is logged; the next sweep tries again).
 */
function sweepReports(d: Dispatcher): Promise<number | null> {
  sweeping ??= d.confirmDueReports().then((n) => {
    if (n) d.wake();
    return n;
  }).finally(() => (sweeping = null));
  return sweeping;
}

/** Runs for good: LISTEN webhooks on a connection of its own (reconnecting), a claim on every wake. */
async function listen(d: Dispatcher): Promise<void> {
  let stopped = false;
  let sweepTimer: ReturnType<typeof setTimeout> | undefined;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      stopped = true;
      clearTimeout(sweepTimer);
      d.wake();
    });
  }
  // The reports' sweep, on its own clock: at start (what fell due while no worker ran), then every
  // reportSweepMs after the previous sweep ended, whatever webhook traffic there is.
  const sweep = async () => {
    await sweepReports(d);
    if (!stopped) sweepTimer = setTimeout(sweep, reportSweepMs);
  };
  sweep();
  const subscribe = async () => {
    while (!stopped) {
      const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
      try {
        await client.connect();
        client.on("notification", () => d.wake());
        await client.query("listen webhooks");
        d.wake(); // anything committed while not listening
        await new Promise<void>((resolve) => {
          client.once("error", () => resolve());
          client.once("end", () => resolve());
        });
      } catch { /* the database is away: try again */ }
      await client.end().catch(() => {});
      if (!stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  };
  subscribe();
  let pruned = 0;
  log({ level: "info", msg: "dispatching", mode: "listen", report_sweep_ms: reportSweepMs });
  while (!stopped) {
    // Idle, it also looks every 400 ms: a commit that checked for sleepers just before this one
    // went to sleep notifies no one and is found by the next look, still within the contract's
    // second (with 1000 ms that path took 1,012 ms once on a loaded machine).
    await d.run({ until: Date.now() + 60_000, pollMs: 400, stopped: () => stopped });
    if (Date.now() - pruned > 60_000) {
      pruned = Date.now();
      await d.prune().catch(() => {});
    }
  }
  await sweeping; // a sweep under way commits (or rolls back) before the exit
  Deno.exit(0);
}

let running: Promise<number> | null = null;

/**
 * A POST sweeps the reports past their deadline, then runs the dispatcher (one run per instance
 * at a time; a POST during a run sweeps and wakes it). Answers `{attempts, confirmed}`
 * (`confirmed`: reports applied by this POST's sweep, null if it failed; 202 `{running: true,
 * confirmed}` during a run).
 */
async function handle(req: Request): Promise<Response> {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  if (!dispatcher) return json(503, { error: "service_unavailable", message: "The dispatcher is not configured." });
  if (req.method !== "POST") return json(405, { error: "method_not_allowed" });
  if (!token || req.headers.get("authorization") !== `Bearer ${token}`) return json(401, { error: "unauthorized" });
  const d = dispatcher;
  if (running) {
    const confirmed = await sweepReports(d);
    d.wake();
    return json(202, { running: true, confirmed });
  }
  let confirmed: number | null = null;
  running = (async () => {
    confirmed = await sweepReports(d); // first: the events it makes go out in this run
    await d.prune().catch(() => {});
    return await d.run({ until: Date.now() + budgetMs, exitWhenIdle: true });
  })().finally(() => (running = null));
  // deno-lint-ignore no-explicit-any
  (globalThis as any).EdgeRuntime?.waitUntil?.(running);
  return json(200, { attempts: await running, confirmed });
}

// Started by `npm start` or a test (WEBHOOK_LIFELINE=stdin): stdin is a pipe from the parent, and
// its end (the parent is gone, even killed outright) ends this process too.
if (env("WEBHOOK_LIFELINE") === "stdin") {
  (async () => {
    for await (const _ of Deno.stdin.readable) { /* nothing is sent: only the end matters */ }
    Deno.exit(0);
  })();
}

if (dispatcher && env("WEBHOOK_LISTEN") === "true") {
  listen(dispatcher);
} else {
  const port = env("WEBHOOKS_PORT");
  const onListen = ({ hostname, port }: { hostname: string; port: number }) =>
    log({ level: "info", msg: "listening", url: `http://${hostname}:${port}` });
  if (port) Deno.serve({ hostname: "127.0.0.1", port: Number(port), onListen }, handle);
  else Deno.serve(handle);
}

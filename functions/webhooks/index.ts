// The `webhooks` edge function: the dispatcher. Locally (`npm start`, WEBHOOK_LISTEN=true) it
// runs for good, woken by the commit of each change that recorded events (LISTEN webhooks)
// and every second for retries. Deployed, each POST (Supabase Cron every few seconds, and the
// `api` function's nudge) runs the dispatcher until nothing is due or the time budget ends.
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

/** Runs for good: LISTEN webhooks on a connection of its own (reconnecting), a claim on every wake. */
async function listen(d: Dispatcher): Promise<void> {
  let stopped = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => {
      stopped = true;
      d.wake();
    });
  }
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
  log({ level: "info", msg: "dispatching", mode: "listen" });
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
  Deno.exit(0);
}

let running: Promise<number> | null = null;

/** A POST runs the dispatcher (one run per instance at a time; a second POST wakes it). */
async function handle(req: Request): Promise<Response> {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  if (!dispatcher) return json(503, { error: "service_unavailable", message: "The dispatcher is not configured." });
  if (req.method !== "POST") return json(405, { error: "method_not_allowed" });
  if (!token || req.headers.get("authorization") !== `Bearer ${token}`) return json(401, { error: "unauthorized" });
  if (running) {
    dispatcher.wake();
    return json(202, { running: true });
  }
  const d = dispatcher;
  running = (async () => {
    await d.prune().catch(() => {});
    return await d.run({ until: Date.now() + budgetMs, exitWhenIdle: true });
  })().finally(() => (running = null));
  // deno-lint-ignore no-explicit-any
  (globalThis as any).EdgeRuntime?.waitUntil?.(running);
  return json(200, { attempts: await running });
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

// The `api` edge function's Deno entry: configuration from the environment, then Deno.serve.
// On Supabase the platform chooses the port; locally (npm start, tests) API_PORT sets it.
import { createHandler, type LogLine } from "./app.ts";
import { loadConfig } from "./config.ts";
import { connect } from "./db-connection.ts";
import { baseHeaders, failure } from "./envelope.ts";
import { ApiError } from "./errors.ts";
import pg from "pg";
import { importEncryptionKey } from "../_shared/webhook-secrets.ts";
import { unusableUrl } from "../_shared/runtime.ts";

const config = loadConfig((name) => Deno.env.get(name));

// Error lines (5xx) always, on stderr (the error level in Supabase's function logs); every
// other request line only with LOG_REQUESTS=true (`npm start` and the tests turn it on).
function log(line: LogLine | Record<string, unknown>): void {
  if (line.level === "error") console.error(JSON.stringify(line));
  else if (config.logRequests) console.log(JSON.stringify(line));
}

/**
 * Deployed without a usable DATABASE_URL (unset, or not a URL pg can parse): refuse to serve
 * rather than guess a database. Every request answers 503 service_unavailable in the usual
 * envelope (it did nothing), and is logged as an error saying why (never the URL).
 */
function unconfigured(reason: string): (req: Request) => Promise<Response> {
  log({ level: "error", msg: `refusing to serve: ${reason}; every request answers 503 service_unavailable` });
  return (req) => {
    const started = performance.now();
    const requestId = crypto.randomUUID();
    const res = failure(
      new ApiError("service_unavailable", "The service is temporarily unavailable; the request did nothing. Try again shortly."),
      requestId,
      baseHeaders(requestId),
    );
    log(
      {
        level: "error",
        msg: "request",
        request_id: requestId,
        method: req.method,
        route: null,
        status: res.status,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
        key_id: null,
        error_code: "service_unavailable",
        error: reason,
      } satisfies LogLine,
    );
    return Promise.resolve(res);
  };
}

// A bad WEBHOOK_ENCRYPTION_KEY is logged once (never its value); webhook creates then answer 503.
const encryptionKey = config.webhookEncryptionKey === null ? null : importEncryptionKey(config.webhookEncryptionKey);
encryptionKey?.catch((err) => log({ level: "error", msg: `webhooks disabled: ${(err as Error).message}` }));

/**
 * After a request that recorded events, wake the hosted `webhooks` function (WEBHOOK_DISPATCH_URL)
 * in the background, at most one call in flight; Supabase Cron is the safety net. Locally the
 * dispatcher hears the commit (LISTEN webhooks) and this is unset.
 */
let nudging = false;
function nudge(): void {
  if (!config.webhookDispatchUrl || nudging) return;
  nudging = true;
  const call = fetch(config.webhookDispatchUrl, {
    method: "POST",
    headers: { Authorization: `Bearer ${config.webhookDispatchToken ?? ""}` },
    signal: AbortSignal.timeout(5000),
  }).then((res) => res.body?.cancel()).catch(() => {}).finally(() => (nudging = false));
  // deno-lint-ignore no-explicit-any
  (globalThis as any).EdgeRuntime?.waitUntil?.(call);
}

const urlProblem = config.databaseUrl === null
  ? "DATABASE_URL is not set: set it as a secret (supabase secrets set DATABASE_URL=...)"
  : unusableUrl("DATABASE_URL", config.databaseUrl, (connectionString) => new pg.Client({ connectionString }));
const handler = urlProblem !== null ? unconfigured(urlProblem) : createHandler({
  db: connect({ ...config, databaseUrl: config.databaseUrl! }),
  log,
  publicBaseUrl: config.publicBaseUrl,
  readFile: (url) => Deno.readFile(url),
  webhooks: { encryptionKey, allowLocal: config.webhookAllowLocal, nudge },
  live: config.live,
  addressHeaders: config.addressHeaders,
});

const port = Deno.env.get("API_PORT");
if (port) {
  Deno.serve({
    hostname: Deno.env.get("API_HOST") ?? "127.0.0.1",
    port: Number(port),
    // Always printed: `npm start` and the tests wait for this line.
    onListen: ({ hostname, port }) => console.log(JSON.stringify({ level: "info", msg: "listening", url: `http://${hostname}:${port}` })),
  }, handler);
} else {
  Deno.serve(handler);
}

import { type Env, onSupabase, positiveInt as int, set } from "../_shared/runtime.ts";
import { STREAM_LIMITS } from "./contract.ts";

/**
 * Where the client address is read from on hosted Supabase, in order: Cloudflare's header
 * (Supabase's edge is Cloudflare, which sets it and overwrites a client's), then the last
 * X-Forwarded-For entry (the one the nearest proxy appended). Elsewhere no header is trusted by
 * default (a client could write any): the connection's address, unless CLIENT_ADDRESS_HEADERS
 * names the header a proxy in front sets.
 */
export const SUPABASE_ADDRESS_HEADERS = ["cf-connecting-ip", "x-forwarded-for"];

/** The function's settings, read from the environment. */
export interface Config {
  /**
   * The function's connection (as `tournament_api`). null when running on Supabase without
   * DATABASE_URL: the function then answers 503 to every request (index.ts) and never falls
   * back to the local stack's URL.
   */
  databaseUrl: string | null;
  poolSize: number;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
  /** Public base URL up to /api/v1 (exclusive), for Location headers. */
  publicBaseUrl?: string;
  /** Running in Supabase's edge runtime (see onSupabase). */
  onSupabase: boolean;
  /** Log every request; otherwise only error lines (5xx) are logged. */
  logRequests: boolean;
  /** WEBHOOK_ENCRYPTION_KEY (base64 of 32 bytes): seals endpoint secrets. Unset: webhook creates answer 503. */
  webhookEncryptionKey: string | null;
  /** WEBHOOK_ALLOW_LOCAL=true: http:// endpoint URLs are accepted (local development). */
  webhookAllowLocal: boolean;
  /** WEBHOOK_DISPATCH_URL: the `webhooks` function, nudged after a request that recorded events. */
  webhookDispatchUrl: string | null;
  /** WEBHOOK_DISPATCH_TOKEN: the bearer token the `webhooks` function expects. */
  webhookDispatchToken: string | null;
  /** The live stream: STREAM_POLL_MS (250), STREAM_KEEPALIVE_SECONDS (10, at most 15) and
   * STREAM_MAX_SECONDS (110, at most 120). */
  live: { pollMs: number; keepAliveMs: number; maxMs: number };
  /** CLIENT_ADDRESS_HEADERS: the request headers the public routes read the client address from,
   * in order (the first present wins; of a list its last entry); else the connection's address. */
  addressHeaders: string[];
}

/** The local stack's URL for the function's role (see sql/local.sql). */
export const LOCAL_DATABASE_URL = "postgres://tournament_api:tournament_api@127.0.0.1:54322/postgres";

/** The role's statement_timeout (10 s, set in the platform migration) plus 2 s. */
export const MIN_QUERY_TIMEOUT_MS = 12_000;

/**
 * Connections per function instance. Locally one long-lived process serves everything, so 10.
 * On Supabase the platform runs many short-lived instances side by side and each keeps its own
 * pool, all of them clients of Supavisor (transaction mode), whose client-connection limit
 * is set by the compute size (200 on the smallest). A request holds a connection for one
 * statement (about 1 ms of database time on a GET), so 3 lets an instance overlap a few
 * requests without queueing while 60 busy instances stay within 180 pooler clients. Supabase's
 * pooler guidance for serverless deployments is one to four connections per process.
 */
export const DEFAULT_POOL_SIZE = { local: 10, onSupabase: 3 } as const;

export { onSupabase, SUPABASE_RUNTIME_MARKERS } from "../_shared/runtime.ts";

function flag(value: string | undefined): boolean {
  return /^(1|true|yes|on)$/i.test(value ?? "");
}

/** Reads the configuration through `env` (Deno.env.get on Deno, process.env in tests). */
export function loadConfig(env: Env): Config {
  const supabase = onSupabase(env);
  const supabaseUrl = set(env, "SUPABASE_URL");
  return {
    // On Supabase the local default would be wrong (and, behind the pooler, misleading): no
    // DATABASE_URL means the function refuses to serve.
    databaseUrl: set(env, "DATABASE_URL") ?? (supabase ? null : LOCAL_DATABASE_URL),
    poolSize: int(env("DB_POOL_SIZE"), supabase ? DEFAULT_POOL_SIZE.onSupabase : DEFAULT_POOL_SIZE.local),
    connectTimeoutMs: int(env("DB_CONNECT_TIMEOUT_MS"), 3000),
    // Never below the role's statement_timeout (10 s) plus a margin: the server must cancel (and
    // roll back) first, so that a 503 means the request did nothing. This bound only catches
    // a connection that went silent.
    queryTimeoutMs: Math.max(int(env("DB_QUERY_TIMEOUT_MS"), 15000), MIN_QUERY_TIMEOUT_MS),
    publicBaseUrl: set(env, "PUBLIC_BASE_URL") ?? (supabaseUrl ? `${supabaseUrl.replace(/\/$/, "")}/functions/v1` : undefined),
    onSupabase: supabase,
    // Hosted function logs are rate-limited and Supabase records every invocation's status and
    // duration anyway, so request lines are opt-in; errors are always logged.
    logRequests: flag(env("LOG_REQUESTS")),
    webhookEncryptionKey: set(env, "WEBHOOK_ENCRYPTION_KEY") ?? null,
    webhookAllowLocal: env("WEBHOOK_ALLOW_LOCAL")?.trim() === "true",
    webhookDispatchUrl: set(env, "WEBHOOK_DISPATCH_URL") ?? null,
    webhookDispatchToken: set(env, "WEBHOOK_DISPATCH_TOKEN") ?? null,
    live: {
      pollMs: Math.min(int(env("STREAM_POLL_MS"), 250), 1000), // events within a second of their commit
      keepAliveMs: Math.min(int(env("STREAM_KEEPALIVE_SECONDS"), 10), STREAM_LIMITS.keepAliveMaxSeconds) * 1000,
      maxMs: Math.min(int(env("STREAM_MAX_SECONDS"), 110), STREAM_LIMITS.maxSeconds) * 1000,
    },
    addressHeaders: set(env, "CLIENT_ADDRESS_HEADERS")?.split(",").map((h) => h.trim().toLowerCase()).filter(Boolean) ??
      (supabase ? SUPABASE_ADDRESS_HEADERS : []),
  };
}

/** The function's settings, read from the environment. */
export interface Config {
  databaseUrl: string;
  poolSize: number;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
  /** Public base URL up to /api/v1 (exclusive), for Location headers. */
  publicBaseUrl?: string;
}

/** The local stack's URL for the function's role (see sql/local.sql). */
export const LOCAL_DATABASE_URL = "postgres://tournament_api:tournament_api@127.0.0.1:54322/postgres";

/** The role's statement_timeout (10 s, set in the platform migration) plus 2 s. */
export const MIN_QUERY_TIMEOUT_MS = 12_000;

function int(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** Reads the configuration through `env` (Deno.env.get on Deno, process.env in tests). */
export function loadConfig(env: (name: string) => string | undefined): Config {
  const supabaseUrl = env("SUPABASE_URL");
  return {
    databaseUrl: env("DATABASE_URL") ?? LOCAL_DATABASE_URL,
    poolSize: int(env("DB_POOL_SIZE"), 10),
    connectTimeoutMs: int(env("DB_CONNECT_TIMEOUT_MS"), 3000),
    // Never below the role's statement_timeout (10 s) plus a margin: the server must cancel (and
    // roll back) first, so that a 503 means the request did nothing. This bound only catches
    // a connection that went silent.
    queryTimeoutMs: Math.max(int(env("DB_QUERY_TIMEOUT_MS"), 15000), MIN_QUERY_TIMEOUT_MS),
    publicBaseUrl: env("PUBLIC_BASE_URL") ?? (supabaseUrl ? `${supabaseUrl.replace(/\/$/, "")}/functions/v1` : undefined),
  };
}

import pg from "pg";
import { ApiError, type ErrorCode, type ErrorDetail, isErrorCode } from "./errors.ts";

/** The outcome of the key check, rate limit and scope check (api.call). */
export interface AuthOutcome {
  error: "unauthorized" | "api_access_disabled" | "rate_limited" | "insufficient_scope" | null;
  key_id?: string;
  account_id?: string;
  limit?: number;
  remaining?: number;
  reset?: number;
  window?: number;
  /** The request recorded webhook events (the function then nudges the dispatcher). */
  webhooks?: boolean;
}

/** What api.call answers: the auth outcome, then the operation's error or its JSON (raw text). */
export interface CallOutcome {
  auth: AuthOutcome;
  error: { sqlstate: string; code: string | null; message: string; details: ErrorDetail[] | null } | null;
  /** The operation's result as JSON text, spliced into the envelope without a parse. */
  result: string | null;
  /** A retry with a known Idempotency-Key: the first response's parts. */
  replay: { request_id: string; timestamp: string; result: unknown; error: CallOutcome["error"] } | null;
}

/** An Idempotency-Key with the request it came with (see app.idempotency_begin). */
export interface Idempotency {
  key: string;
  /** Hex SHA-256 of the method, path and canonical body. */
  hash: string;
  request_id: string;
  timestamp: string;
}

export interface Database {
  call(keyHash: Uint8Array, scope: string | null, op: string | null, args: unknown,
    idempotency?: Idempotency | null): Promise<CallOutcome>;
  end(): Promise<void>;
}

const JSON_OID = 114;
const rawJson = { getTypeParser: (oid: number, format?: string) =>
  oid === JSON_OID ? (value: string) => value : pg.types.getTypeParser(oid, format as "text") };

/** What api.call raises when the window filled up while the operation ran (see its migration). */
const RATE_LIMITED_STATE = "TA429";
// The transaction was rolled back before it did anything durable: serialization failure,
// deadlock, lock not available, statement timeout. The request did nothing (503).
const ABORTED_STATES = /^(40001|40P01|55P03|57014)$/;

// Connection-level failures: the database cannot be reached or went away mid-request.
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300)/;
const UNAVAILABLE_ERRNO = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);

function unavailable(): ApiError {
  return new ApiError("service_unavailable", "The service is temporarily unavailable; the request did nothing. Try again shortly.");
}

// The database went silent past the client's bound: the outcome is unknown, so say so.
function silent(): ApiError {
  return new ApiError("service_unavailable",
    "The database did not answer in time; the request may or may not have taken effect. Retry with the same Idempotency-Key to be safe.");
}

function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === "string" && (UNAVAILABLE_STATES.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
  return /timeout|terminat|Connection|ECONNREFUSED/i.test(e?.message ?? "");
}

export interface DatabaseOptions {
  databaseUrl: string;
  poolSize: number;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

/** A pooled connection to Postgres as the function's role; each call is one statement. */
export function connect(options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: options.queryTimeoutMs,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
  });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});

  return {
    async call(keyHash, scope, op, args, idempotency) {
      let rows: { auth: string; error: string | null; result: string | null; replay: string | null }[];
      try {
        ({ rows } = await pool.query({
          text: "select auth, error, result, replay from api.call($1, $2, $3, $4, $5)",
          values: [keyHash, scope, op, args === undefined ? null : JSON.stringify(args),
            idempotency ? JSON.stringify(idempotency) : null],
          types: rawJson,
        }));
      } catch (err) {
        if (/Query read timeout/i.test((err as Error)?.message ?? "")) throw silent();
        const e = err as { code?: string; detail?: string; message?: string };
        // The window filled up while the operation ran: api.call undid it all (nothing counted).
        if (e?.code === RATE_LIMITED_STATE && e.detail) {
          return { auth: JSON.parse(e.detail), error: null, result: null, replay: null };
        }
        if (typeof e?.code === "string" && ABORTED_STATES.test(e.code)) throw unavailable();
        if (isUnavailable(err)) throw unavailable();
        // Anything else is a bug: a 500, logged with the request id (never sent to the client).
        throw new Error(`database error ${e?.code ?? "?"}: ${e?.message ?? String(err)}`);
      }
      const row = rows[0];
      return {
        auth: JSON.parse(row.auth),
        error: row.error ? JSON.parse(row.error) : null,
        result: row.result,
        replay: row.replay ? JSON.parse(row.replay) : null,
      };
    },
    end: () => pool.end(),
  };
}

/**
 * Maps an operation's SQL error to the API error it stands for: a business error (P0001 with
 * the API code as its hint; validation errors are raised this way where SQL casts the caller's
 * input). Any other SQL error is a bug: thrown, so the handler answers 500 and logs it.
 */
export function operationError(error: NonNullable<CallOutcome["error"]>): ApiError {
  if (error.sqlstate === "P0001" && isErrorCode(error.code)) {
    return new ApiError(error.code as ErrorCode, error.message, error.details ?? undefined);
  }
  if (ABORTED_STATES.test(error.sqlstate)) return unavailable();
  throw new Error(`operation failed: ${error.sqlstate} ${error.message}`);
}

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
  /** A 429 that is not the request rate (a key's open streams): its message and when to retry. */
  message?: string;
  retry_after?: number;
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
  /** The tournament's version (the ETag) for an operation about one tournament; else null. */
  version: number | null;
  /** If-None-Match named the current version: the operation did not run (304). */
  notModified: boolean;
}

/** A request's conditions (contract section 14): versions named by If-Match / If-None-Match; null: `*`. */
export interface Conditions {
  if_match?: number[] | null;
  if_none_match?: number[] | null;
}

/** One poll of a live stream's tournament (api.stream_poll). */
export interface StreamPoll {
  state: "unchanged" | "changed" | "deleted" | "ended";
  version: number | null;
  /** The results since the version polled from, as JSON text ("changed" only). */
  data: string | null;
}

/** What a public request asks for: the tournament's document, its public view, a picture kept
 * at its version (else the view to draw it from), a stream's first event; or only to be counted
 * (a static file that needs no key). */
export type PublicOp = "tournament" | "view" | "picture" | "stream" | "count";

/** An Idempotency-Key with the request it came with (see app.idempotency_begin). */
export interface Idempotency {
  key: string;
  /** Hex SHA-256 of the method, path and canonical body. */
  hash: string;
  request_id: string;
  timestamp: string;
}

export interface Database {
  call(
    keyHash: Uint8Array,
    scope: string | null,
    op: string | null,
    args: unknown,
    idempotency?: Idempotency | null,
    conditions?: Conditions | null,
  ): Promise<CallOutcome>;
  /** A public request (contract section 15; api.public_call): the client address's count, the
   * public tournament by slug, the operation ('tournament', 'view' or 'stream'). */
  publicCall(
    addressHash: Uint8Array,
    op: PublicOp,
    args: { slug: string; key?: string; drawn_by?: string; query?: { since?: number } },
    conditions?: Conditions | null,
  ): Promise<CallOutcome>;
  /** Keeps a public PNG drawn at `version` by the renderer `drawnBy` for every instance
   * (api.keep_picture); false when the tournament has moved on or is no longer public. */
  keepPicture(slug: string, key: string, version: number, png: Uint8Array, clipped: string | null, drawnBy: string): Promise<boolean>;
  /** The live streams' poll, one answer per question in order: each tournament's version and,
   * when past `since`, the delta since it (asked through one of its streams' leases, or for a
   * public stream by the tournament's id). */
  streamPoll(asks: ({ stream: string; since: number } | { public: string; since: number })[]): Promise<StreamPoll[]>;
  /** Ends a live stream's lease (best effort: a lease also expires by itself). */
  streamClose(streamId: string): Promise<void>;
  end(): Promise<void>;
}

const JSON_OID = 114;
const rawJson = {
  getTypeParser: (oid: number, format?: string) =>
    oid === JSON_OID ? (value: string) => value : pg.types.getTypeParser(oid, format as "text"),
};

/** What api.call raises when the window filled up while the operation ran (supabase/schemas/24_api.sql). */
const RATE_LIMITED_STATE = "TA429";
// The transaction was rolled back before it did anything durable: serialization failure,
// deadlock, lock not available, statement timeout. The request did nothing (503).
const ABORTED_STATES = /^(40001|40P01|55P03|57014)$/;
// Calling api.call failed before it ran: no such function or schema (42883, 3F000), or no
// EXECUTE on it (42501). Only the call itself can raise these to the driver: api.call returns
// its operations' errors as values.
const NOT_DEPLOYED_STATES = /^(42883|3F000|42501)$/;

/**
 * Why the database could not serve a request, as the request's log line names it (`db_error`):
 * - before the statement was sent: `refused`, `dns`, `tls`, `auth` (bad password, unknown role or
 *   database), `timeout` (no connection within DB_CONNECT_TIMEOUT_MS), `pool_exhausted` (every
 *   pooled connection busy that long), `overloaded`, `shutdown`, `unreachable` (any other
 *   network failure), `other` (an unrecognised connect failure: still nothing was done);
 * - after: `dropped` (the connection went away: the outcome is unknown), `aborted` (rolled back:
 *   serialization failure, deadlock, lock or statement timeout), `query_timeout` (silent past
 *   the client's bound: unknown), `not_deployed` (api.call missing or not executable: the
 *   migrations are not applied, or DATABASE_URL names another role).
 */
export type DatabaseFailure =
  | "refused"
  | "dns"
  | "tls"
  | "auth"
  | "timeout"
  | "pool_exhausted"
  | "overloaded"
  | "shutdown"
  | "unreachable"
  | "other"
  | "dropped"
  | "aborted"
  | "query_timeout"
  | "not_deployed";

/** A 503 caused by the database: the client sees the envelope only; the log line sees why. */
export class DatabaseUnavailable extends ApiError {
  constructor(
    message: string,
    readonly failure: DatabaseFailure,
    /** The driver's code (SQLSTATE, errno or TLS code); null when it gave none. */
    readonly driverCode: string | null,
    /** The driver's message, with the connection's URL and password taken out. */
    readonly driverMessage: string,
  ) {
    super("service_unavailable", message);
  }
}

// Connection-level failures: the database cannot be reached or went away mid-request.
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300)/;
const UNAVAILABLE_ERRNO = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);
const DNS_ERRNO = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA"]);
// Node's (and Deno's node:tls) certificate and handshake codes: SELF_SIGNED_CERT_IN_CHAIN,
// DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED,
// ERR_TLS_CERT_ALTNAME_INVALID, ERR_SSL_*, ...
const TLS_CODES = /^(ERR_TLS_|ERR_SSL_)|CERT|SELF_SIGNED|UNABLE_TO_/;
// pg's own TLS messages carry no code ("The server does not support SSL connections").
const TLS_MESSAGES = /\b(SSL|TLS)\b|certificate/i;
// pg's SCRAM client fails without a code (no password given, server signature mismatch).
const AUTH_MESSAGES = /\b(SASL|SCRAM)\b/;

const UNAVAILABLE_MESSAGE = "The service is temporarily unavailable; the request did nothing. Try again shortly.";

// The database went silent past the client's bound: the outcome is unknown, so say so.
const SILENT_MESSAGE =
  "The database did not answer in time; the request may or may not have taken effect. Retry with the same Idempotency-Key to be safe.";

function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === "string" && (UNAVAILABLE_STATES.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
  return /timeout|terminat|Connection|ECONNREFUSED/i.test(e?.message ?? "");
}

function driverCodeOf(err: unknown): string | null {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" ? code : null;
}

/** The kinds that a driver error names on its own; null for a generic network failure. */
function failureOf(err: unknown): DatabaseFailure | null {
  const code = driverCodeOf(err) ?? "";
  const message = (err as Error)?.message ?? "";
  if (message === "timeout exceeded when trying to connect") return "pool_exhausted";
  if (code === "ECONNREFUSED") return "refused";
  if (DNS_ERRNO.has(code)) return "dns";
  if (TLS_CODES.test(code) || (!code && TLS_MESSAGES.test(message))) return "tls";
  if (code.startsWith("28") || code === "3D000" || (!code && AUTH_MESSAGES.test(message))) return "auth";
  if (code === "ETIMEDOUT" || /connection timeout|timeout expired/i.test(message)) return "timeout";
  if (code.startsWith("53")) return "overloaded";
  if (/^57P0[1-3]$/.test(code)) return "shutdown";
  return null;
}

/** Removes the connection's URL and password from a driver message bound for the log. */
function redactor(databaseUrl: string): (text: string) => string {
  const secrets = [databaseUrl];
  try {
    const password = new URL(databaseUrl).password;
    if (password) secrets.push(password, decodeURIComponent(password));
  } catch {
    // Not a URL pg could read either: the URL itself is still redacted.
  }
  return (text) => secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
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

  const redact = redactor(options.databaseUrl);
  const failed = (failure: DatabaseFailure, err: unknown, message = UNAVAILABLE_MESSAGE) =>
    new DatabaseUnavailable(message, failure, driverCodeOf(err), redact((err as Error)?.message ?? String(err)));

  /** One statement on a pooled connection, with the failures a request's call maps (503s). */
  async function query<R>(config: pg.QueryConfig): Promise<R[]> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw failed(failureOf(err) ?? (isUnavailable(err) ? "unreachable" : "other"), err);
    }
    try {
      const { rows } = await client.query(config);
      client.release();
      return rows as R[];
    } catch (err) {
      client.release(err as Error);
      if (isUnavailable(err)) throw failed(failureOf(err) ?? "dropped", err);
      const e = err as { code?: string; message?: string };
      throw new Error(`database error ${e?.code ?? "?"}: ${redact(e?.message ?? String(err))}`);
    }
  }

  type Row = {
    auth: string;
    error: string | null;
    result: string | null;
    replay: string | null;
    version: string | null;
    not_modified: boolean | null;
  };

  /** One request's statement (api.call or api.public_call) on a pooled connection, with its failures mapped. */
  async function statement(text: string, values: unknown[]): Promise<Row | { rateLimited: string }> {
    // Whatever fails before the statement is sent (refused, DNS, TLS, login, timeout) did
    // nothing: always a 503, whether or not the driver's error is one we recognise.
    let client: pg.PoolClient;
    try {
      client = await pool.connect(); // may also throw at once (a URL pg cannot parse)
    } catch (err) {
      throw failed(failureOf(err) ?? (isUnavailable(err) ? "unreachable" : "other"), err);
    }
    // As pool.query does: an error event while checked out must not crash the process, and a
    // client that failed is destroyed rather than returned to the pool.
    let released = false;
    const release = (err?: Error) => {
      if (!released) client.release(err);
      released = true;
    };
    client.once("error", release);
    try {
      const { rows } = await client.query({ text, values, types: rawJson });
      release();
      return rows[0] as Row;
    } catch (err) {
      release(err as Error);
      if (/Query read timeout/i.test((err as Error)?.message ?? "")) throw failed("query_timeout", err, SILENT_MESSAGE);
      const e = err as { code?: string; detail?: string; message?: string };
      // The window filled up while the operation ran: api.call undid it all (nothing counted).
      if (e?.code === RATE_LIMITED_STATE && e.detail) return { rateLimited: e.detail };
      if (typeof e?.code === "string" && ABORTED_STATES.test(e.code)) throw failed("aborted", err);
      // The function itself is missing or not executable: the database is not (fully) migrated,
      // or DATABASE_URL names another role. Nothing ran.
      if (typeof e?.code === "string" && NOT_DEPLOYED_STATES.test(e.code)) throw failed("not_deployed", err);
      // The connection went away after the statement was sent: it may have committed.
      if (isUnavailable(err)) throw failed(failureOf(err) ?? "dropped", err, SILENT_MESSAGE);
      // Anything else is a bug: a 500, logged with the request id (never sent to the client).
      throw new Error(`database error ${e?.code ?? "?"}: ${redact(e?.message ?? String(err))}`);
    } finally {
      client.removeListener("error", release);
    }
  }

  function outcomeOf(row: Row | { rateLimited: string }): CallOutcome {
    if ("rateLimited" in row) {
      return { auth: JSON.parse(row.rateLimited), error: null, result: null, replay: null, version: null, notModified: false };
    }
    return {
      auth: JSON.parse(row.auth),
      error: row.error ? JSON.parse(row.error) : null,
      result: row.result,
      replay: row.replay ? JSON.parse(row.replay) : null,
      version: row.version === null ? null : Number(row.version),
      notModified: row.not_modified === true,
    };
  }

  return {
    async streamPoll(asks) {
      const rows = await query<{ state: StreamPoll["state"]; version: string | null; data: string | null }>({
        text: "select state, version, data from api.stream_poll($1) order by ord",
        values: [JSON.stringify(asks)],
        types: rawJson,
      });
      return rows.map((row) => ({ state: row.state, version: row.version === null ? null : Number(row.version), data: row.data }));
    },
    async streamClose(streamId) {
      await query({ text: "select api.stream_close($1)", values: [streamId] });
    },
    async call(keyHash, scope, op, args, idempotency, conditions) {
      return outcomeOf(
        await statement(
          "select auth, error, result, replay, version, not_modified from api.call($1, $2, $3, $4, $5, $6)",
          [
            keyHash,
            scope,
            op,
            args === undefined ? null : JSON.stringify(args),
            idempotency ? JSON.stringify(idempotency) : null,
            conditions ? JSON.stringify(conditions) : null,
          ],
        ),
      );
    },
    async publicCall(addressHash, op, args, conditions) {
      return outcomeOf(
        await statement(
          "select auth, error, result, null as replay, version, not_modified from api.public_call($1, $2, $3, $4)",
          [addressHash, op, JSON.stringify(args), conditions ? JSON.stringify(conditions) : null],
        ),
      );
    },
    async keepPicture(slug, key, version, png, clipped, drawnBy) {
      const [row] = await query<{ kept: boolean }>({
        text: "select api.keep_picture($1, $2, $3, $4, $5, $6) as kept",
        values: [slug, key, version, png, clipped, drawnBy],
      });
      return row?.kept === true;
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
  if (ABORTED_STATES.test(error.sqlstate)) {
    return new DatabaseUnavailable(UNAVAILABLE_MESSAGE, "aborted", error.sqlstate, error.message);
  }
  throw new Error(`operation failed: ${error.sqlstate} ${error.message}`);
}

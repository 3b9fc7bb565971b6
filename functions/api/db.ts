// The database as the rest of the function sees it: the one statement each request runs
// (api.call, api.public_call) and what it answers, the live streams' poll, and the 503 a request
// gets when the database cannot serve it. The pooled connection is db-connection.ts; how a
// driver's failure is told apart, db-failure.ts.
import { ApiError, type ErrorDetail } from "./errors.ts";

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

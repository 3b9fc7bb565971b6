// How a database failure is told apart: the driver's errors and SQLSTATEs sorted into the kinds a
// request's log line names (a 503 that did nothing, a 503 whose outcome is unknown, or a bug),
// the driver's message with the connection's secrets taken out, and an operation's SQL error
// mapped to the API error it stands for.
import { ApiError, type ErrorCode, isErrorCode } from "./errors.ts";
import { type CallOutcome, type DatabaseFailure, DatabaseUnavailable } from "./db.ts";

/** What api.call raises when the window filled up while the operation ran (supabase/schemas/25_api.sql). */
export const RATE_LIMITED_STATE = "TA429";
/** What api.call fails with when a participant token went away (revoked, its registration withdrawn) while its
 * request ran: counting it, or keeping its Idempotency-Key, fails the foreign key to the token (foreign_key_violation);
 * nothing else outside the operation's subtransaction can. The whole request rolled back: 401, as for an unknown token. */
export const TOKEN_GONE_STATE = "23503";
/** The transaction was rolled back before it did anything durable: serialization failure,
 * deadlock, lock not available, statement timeout. The request did nothing (503). */
export const ABORTED_STATES = /^(40001|40P01|55P03|57014)$/;
/** Calling api.call failed before it ran: no such function or schema (42883, 3F000), or no
 * EXECUTE on it (42501). Only the call itself can raise these to the driver: api.call returns
 * its operations' errors as values. */
export const NOT_DEPLOYED_STATES = /^(42883|3F000|42501)$/;

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

/** The 503's message when the request did nothing. */
export const UNAVAILABLE_MESSAGE = "The service is temporarily unavailable; the request did nothing. Try again shortly.";

/** The database went silent past the client's bound: the outcome is unknown, so say so. */
export const SILENT_MESSAGE =
  "The database did not answer in time; the request may or may not have taken effect. Retry with the same Idempotency-Key to be safe.";

/** Whether a driver error says the database cannot be reached or went away mid-request. */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === "string" && (UNAVAILABLE_STATES.test(e.code) || UNAVAILABLE_ERRNO.has(e.code))) return true;
  return /timeout|terminat|Connection|ECONNREFUSED/i.test(e?.message ?? "");
}

/** The driver's code (SQLSTATE, errno or TLS code), its own or its cause's; null when it gave none. */
export function driverCodeOf(err: unknown): string | null {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" ? code : null;
}

/** The kinds that a driver error names on its own; null for a generic network failure. */
export function failureOf(err: unknown): DatabaseFailure | null {
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
export function redactor(databaseUrl: string): (text: string) => string {
  const secrets = [databaseUrl];
  try {
    const password = new URL(databaseUrl).password;
    if (password) secrets.push(password, decodeURIComponent(password));
  } catch {
    // Not a URL pg could read either: the URL itself is still redacted.
  }
  return (text) => secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
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

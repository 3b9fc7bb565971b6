import type { ApiError } from "./errors.ts";

/** The version reported in every response's `meta.api_version`. */
export const API_VERSION = "1.0";

const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers":
    "X-Request-Id, Location, Retry-After, Idempotent-Replayed, ETag, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Bracket-Clipped",
};

/** Headers of every response. */
export function baseHeaders(requestId: string): Headers {
  return new Headers({
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Request-Id": requestId,
    ...CORS_HEADERS,
  });
}

/** The answer to a CORS preflight. */
export function preflight(requestId: string): Response {
  const headers = baseHeaders(requestId);
  headers.delete("Content-Type");
  headers.set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
  headers.set(
    "Access-Control-Allow-Headers",
    "Authorization, Content-Type, Idempotency-Key, X-Request-Id, If-Match, If-None-Match, Last-Event-ID",
  );
  headers.set("Access-Control-Max-Age", "86400");
  return new Response(null, { status: 204, headers });
}

function meta(requestId: string, timestamp: string): string {
  return JSON.stringify({ timestamp, api_version: API_VERSION, request_id: requestId });
}

/**
 * A success envelope around `members`: JSON object members as text (`"data":...` and, for the
 * tournament list, `"pagination":...`), spliced in as the database returned them, without a
 * parse and re-serialisation.
 */
export function success(
  status: number,
  requestId: string,
  members: string,
  headers: Headers,
  timestamp = new Date().toISOString(),
): Response {
  return new Response(`{"success":true,${members},"meta":${meta(requestId, timestamp)}}`, { status, headers });
}

/** The error envelope for an ApiError. */
export function failure(err: ApiError, requestId: string, headers: Headers, timestamp = new Date().toISOString()): Response {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details?.length) error.details = err.details;
  for (const [name, value] of Object.entries(err.headers)) headers.set(name, value);
  const body = `{"success":false,"error":${JSON.stringify(error)},"meta":${meta(requestId, timestamp)}}`;
  return new Response(body, { status: err.status, headers });
}

/** The RateLimit headers (IETF draft) of a count: a key's (policy "default") or a client address's ("public"). */
export function rateLimitHeaders(
  count: { limit?: number; remaining?: number; reset?: number; window?: number },
  headers: Headers,
  policy = "default",
): void {
  if (count.limit === undefined) return;
  headers.set("RateLimit-Limit", String(count.limit));
  headers.set("RateLimit-Remaining", String(count.remaining));
  headers.set("RateLimit-Reset", String(count.reset));
  headers.set("RateLimit-Policy", `"${policy}";q=${count.limit};w=${count.window}`);
  headers.set("RateLimit", `"${policy}";r=${count.remaining};t=${count.reset}`);
}

/** A 304: the headers (ETag, rate limit) without a body or its type. */
export function notModified(headers: Headers): Response {
  headers.delete("Content-Type");
  return new Response(null, { status: 304, headers });
}

// A keyed request's input: the query, the body and the path's ids checked by the route's
// schemas, its Idempotency-Key with a hash of what it came with, and what the route prepares
// before the call (a new webhook secret, sealed).
import { ApiError } from "./errors.ts";
import { IDEMPOTENCY_KEY_MAX } from "./contract.ts";
import { hex, sha256 } from "./sha256.ts";
import type { Idempotency } from "./db.ts";
import type { Route, RouteEnv } from "./route.ts";
import { ClientGone, readJsonObject } from "./body.ts";
import { parse, UUID_PATTERN } from "./validation.ts";
import { lastEventVersion } from "./stream.ts";

/** A request's input: the operation's arguments and Idempotency-Key, or the first error found in them. */
export interface Input {
  args: Record<string, unknown> | null;
  idempotency: Idempotency | null;
  error: unknown;
}

/**
 * Reads and checks the query, the body and the path's ids, and adds what the route prepares.
 * Read before the database call (it has no side effects), so that the key check, rate limit,
 * scope check and operation take one round trip; its errors are answered only after the checks
 * that come first in the contract's order. Input (400/413/415) is checked before a malformed
 * path id (404, the existence step).
 */
export async function readInput(
  req: Request,
  url: URL,
  path: string,
  route: Route,
  params: Record<string, string>,
  ctx: { requestId: string; timestamp: string },
  env: RouteEnv,
): Promise<Input> {
  let idempotency: Idempotency | null = null;
  try {
    const args: Record<string, unknown> = {};
    let raw: unknown = null;
    if (route.query) args.query = parse(route.query, Object.fromEntries(url.searchParams), "query string");
    if (route.body) {
      raw = await readJsonObject(req);
      args.body = parse(route.body, raw, "request body");
    }
    idempotency = idempotencyOf(req, path, raw, ctx);
    bindIds(args, params);
    const reconnected = route.stream ? lastEventVersion(req) : undefined;
    if (reconnected !== undefined) args.query = { since: reconnected }; // the delta since the last event
    await route.prepare?.(args, env);
    return { args, idempotency, error: null };
  } catch (err) {
    if (err instanceof ClientGone) throw err;
    return { args: null, idempotency, error: err };
  }
}

/** Adds the path's ids to the operation's arguments; an id that is not a UUID (a stage or game
 * number that is not a small integer) names nothing (404). */
function bindIds(args: Record<string, unknown>, params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (!(name === "number" ? /^(0|[1-9][0-9]{0,3})$/ : UUID_PATTERN).test(value)) throw new ApiError("not_found", "Not found.");
    args[name] = value;
  }
}

const IDEMPOTENCY_KEY = new RegExp(`^[\\x20-\\x7e]{1,${IDEMPOTENCY_KEY_MAX}}$`);

/** The Idempotency-Key of a POST, with a hash of the request it came with; null without one. */
function idempotencyOf(req: Request, path: string, raw: unknown, ctx: { requestId: string; timestamp: string }): Idempotency | null {
  const key = req.headers.get("idempotency-key");
  if (key === null || req.method !== "POST") return null;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError("validation_error", "The Idempotency-Key header is invalid.", [{
      field: "Idempotency-Key",
      message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`,
    }]);
  }
  const hash = hex(sha256(`${req.method} ${path}\n${canonicalJson(raw)}`));
  return { key, hash, request_id: ctx.requestId, timestamp: ctx.timestamp };
}

/** JSON with object keys sorted, so that the same body hashes the same however it was written. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.keys(value).sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

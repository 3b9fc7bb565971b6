import { ApiError } from "./errors.ts";
import { baseHeaders, failure, notModified, preflight, rateLimitHeaders, success } from "./envelope.ts";
import { bearerKey, hashKey } from "./keys.ts";
import { type AuthOutcome, type CallOutcome, type Database, type DatabaseFailure, DatabaseUnavailable } from "./db.ts";
import { operationError } from "./db-failure.ts";
import { conditionsOf } from "./conditions.ts";
import { LIVE_DEFAULTS, LiveHub, type LiveOptions } from "./stream.ts";
import { type Route, type RouteCall, type RouteEnv, Router } from "./route.ts";
import { routes } from "./routes.ts";
import { ClientGone } from "./body.ts";
import { readInput } from "./input.ts";
import { staticFile, staticRouteOf } from "./docs.ts";
import { webhookPolicy } from "./resources/webhooks.ts";
import { clientNotModified, keptRead } from "./kept.ts";
import { type PublicRequest, publicRoute, publicRouteOf } from "./public.ts";

/** One structured log line per request. Never holds a key. */
export interface LogLine {
  level: "info" | "error";
  msg: string;
  request_id: string;
  method: string;
  route: string | null;
  status: number;
  duration_ms: number;
  key_id: string | null;
  error_code?: string;
  error?: string;
  /** Why the database could not serve the request (a 503), and the driver's code (null: none). */
  db_error?: DatabaseFailure;
  db_code?: string | null;
}

export interface HandlerDeps {
  db: Database;
  log: (line: LogLine) => void;
  /** Public base URL up to (not including) /api/v1, for Location; derived from the request if unset. */
  publicBaseUrl?: string;
  /** Reads a file (the docs page's assets): Deno.readFile on Deno. */
  readFile?: (url: URL) => Promise<Uint8Array>;
  /** Webhooks: the key that seals endpoint secrets (null: not configured), and the dispatcher nudge. */
  webhooks?: {
    encryptionKey: Promise<CryptoKey> | null;
    allowLocal: boolean;
    /** Called after a request that recorded events (wakes the hosted dispatcher); must not throw. */
    nudge?: () => void;
  };
  /** The live stream's timings (tests shorten them). */
  live?: Partial<LiveOptions>;
  /** Where the public routes read the client address from (CLIENT_ADDRESS_HEADERS); none: the connection's. */
  addressHeaders?: string[];
}

/** What Deno.serve tells a handler about the connection. */
export interface ConnectionInfo {
  remoteAddr?: { hostname?: string };
}

const API_PREFIX = "/api/v1";
const router = new Router(routes);

interface Context {
  requestId: string;
  /** meta.timestamp: when the request arrived (a replay keeps the first request's). */
  timestamp: string;
  headers: Headers;
  route: Route | null;
  /** The route of a request that needs no key (for the log line). */
  openRoute?: string;
  keyId: string | null;
  /** The socket's remote address, when known. */
  remoteAddress?: string;
}

/** The API as a fetch handler: `(Request) => Promise<Response>`. */
export function createHandler(deps: HandlerDeps): (req: Request, info?: ConnectionInfo) => Promise<Response> {
  webhookPolicy.allowLocal = deps.webhooks?.allowLocal ?? false;
  const hub = new LiveHub(
    deps.db,
    { ...LIVE_DEFAULTS, ...deps.live },
    (msg) => deps.log({ level: "error", msg, request_id: "", method: "", route: null, status: 0, duration_ms: 0, key_id: null }),
  );
  const env: RouteEnv = { hub, readFile: deps.readFile, webhookKey: () => webhookKey(deps) };
  return async (req, info) => {
    const started = performance.now();
    const ctx: Context = {
      requestId: crypto.randomUUID(),
      timestamp: new Date().toISOString(),
      headers: new Headers(),
      route: null,
      keyId: null,
      remoteAddress: info?.remoteAddr?.hostname,
    };
    ctx.headers = baseHeaders(ctx.requestId);
    let res: Response;
    let internal: string | undefined;
    let errorCode: string | undefined;
    let dbFailure: DatabaseUnavailable | undefined;
    let msg = "request";
    try {
      res = await handle(req, ctx, deps, env);
    } catch (err) {
      if (err instanceof ClientGone) {
        // Nobody is left to read an answer; 499 (nginx's "client closed request") in the log
        // only. Not an error of ours, and the database was not called.
        msg = "client disconnected";
        res = new Response(null, { status: 499, headers: ctx.headers });
      } else if (err instanceof ApiError) {
        errorCode = err.code;
        if (err instanceof DatabaseUnavailable) dbFailure = err;
        res = failure(err, ctx.requestId, ctx.headers, ctx.timestamp);
      } else {
        errorCode = "internal_error";
        internal = err instanceof Error ? err.message : String(err);
        res = failure(
          new ApiError("internal_error", "Something went wrong on our side. The request id identifies it."),
          ctx.requestId,
          ctx.headers,
          ctx.timestamp,
        );
      }
    }
    // HEAD answers exactly as GET would, without the body (RFC 9110).
    if (req.method === "HEAD" && res.body) res = new Response(null, { status: res.status, headers: res.headers });
    const line: LogLine = {
      level: res.status >= 500 && res.status !== 499 ? "error" : "info",
      msg,
      request_id: ctx.requestId,
      method: req.method,
      route: ctx.route ? `${ctx.route.method} ${ctx.route.path}` : ctx.openRoute ?? null,
      status: res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      key_id: ctx.keyId,
    };
    if (errorCode) line.error_code = errorCode;
    if (internal) line.error = internal;
    if (dbFailure) {
      line.db_error = dbFailure.failure;
      line.db_code = dbFailure.driverCode;
      line.error = dbFailure.driverMessage;
    }
    deps.log(line);
    return res;
  };
}

function apiPath(url: URL): { base: string; path: string } | null {
  let pathname = url.pathname;
  const at = pathname.indexOf(API_PREFIX);
  // The function sees /api/v1/... on Supabase and /functions/v1/api/v1/... behind the local gateway.
  if (at !== 0 && !(at > 0 && pathname.slice(0, at) === "/functions/v1")) return null;
  const base = pathname.slice(0, at);
  pathname = pathname.slice(at + API_PREFIX.length);
  if (pathname !== "" && !pathname.startsWith("/")) return null;
  if (pathname.length > 1 && pathname.endsWith("/")) pathname = pathname.slice(0, -1);
  return { base, path: pathname };
}

function authError(auth: AuthOutcome, route: Route): ApiError | null {
  switch (auth.error) {
    case null:
      return null;
    case "unauthorized":
      return unauthorized(route);
    case "api_access_disabled":
      return new ApiError("api_access_disabled", "API access is not enabled for this account. Ask the operator to enable it.");
    case "rate_limited":
      return new ApiError(
        "rate_limited",
        auth.message ?? `Rate limit exceeded: ${auth.limit} requests per ${auth.window} seconds per key.`,
        undefined,
        { "Retry-After": String(auth.retry_after ?? auth.reset) },
      );
    case "insufficient_scope":
      return new ApiError(
        "insufficient_scope",
        `This ${route.participant ? "token" : "API key"} lacks the scope ${route.scope} that this operation needs.`,
      );
  }
}

/** 401: one answer for a missing, malformed, unknown, revoked or expired credential, and for one of the other kind. */
function unauthorized(route?: Route): ApiError {
  return new ApiError(
    "unauthorized",
    route?.participant
      ? "A valid participant token is required: send Authorization: Bearer <tpt_ token>."
      : "A valid API key is required: send Authorization: Bearer <key>.",
    undefined,
    { "WWW-Authenticate": 'Bearer realm="api"' },
  );
}

// The routes that need no key, routed before the keyed ones: the public view (public.ts) and the
// static files (docs.ts), each counted per client address.
const OPEN_ROUTES: { routeOf: (path: string) => string | null; answer: (p: PublicRequest) => Promise<Response> }[] = [
  { routeOf: publicRouteOf, answer: publicRoute },
  { routeOf: staticRouteOf, answer: staticFile },
];

/** A request, top to bottom: the no-key routes, then a keyed route's one database call and its answer. */
async function handle(req: Request, ctx: Context, deps: HandlerDeps, env: RouteEnv): Promise<Response> {
  if (req.method === "OPTIONS") return preflight(ctx.requestId);
  const url = new URL(req.url);
  const where = apiPath(url);
  if (!where) throw new ApiError("not_found", "No such route.");
  const apiBase = `${deps.publicBaseUrl ?? `${url.origin}${where.base}`}${API_PREFIX}`;
  for (const open of OPEN_ROUTES) {
    ctx.openRoute = open.routeOf(where.path) ?? undefined;
    if (ctx.openRoute) return await open.answer(publicRequest(req, where.path, apiBase, ctx, deps, env));
  }

  const { route, params } = routeOf(req.method, where.path);
  ctx.route = route;
  const key = bearerKey(req.headers.get("authorization"), route.participant ? "tpt_" : "tmk_");
  if (!key) throw unauthorized(route);
  const input = await readInput(req, url, where.path, route, params, ctx, env);
  const client = conditionsOf(req, route);
  const name = input.args && route.kept?.(input.args);
  const kept = name ? keptRead(name, client) : null;
  const outcome = await deps.db.call(
    hashKey(key),
    route.scope,
    input.error ? (route.participant ? "participant.none" : null) : route.op,
    input.args,
    input.idempotency,
    kept ? kept.conditions : client,
  );

  // The contract's order: the key, the account, the rate limit, the scope; then the input; then the operation.
  ctx.keyId = outcome.auth.key_id ?? null;
  rateLimitHeaders(outcome.auth, ctx.headers);
  const denied = authError(outcome.auth, route);
  if (denied) throw denied;
  if (input.error) throw input.error;
  if (outcome.replay) replayed(outcome.replay, ctx);
  if (outcome.error) throw operationError(outcome.error);
  if (outcome.version !== null) ctx.headers.set("ETag", `"${outcome.version}"`);
  if (clientNotModified(outcome.notModified, kept, outcome.version)) return notModified(ctx.headers);
  if (outcome.auth.webhooks) deps.webhooks?.nudge?.();

  const call: RouteCall = { req, args: input.args ?? {}, outcome, headers: ctx.headers, kept, env };
  if (route.answer) return await route.answer(call);
  const result = outcome.result ?? "null";
  return envelope(route, route.data ? await route.data(result, call) : result, ctx, apiBase);
}

/** The route of a method and path: 404 when no route has the path, 405 (with Allow) when it has, for other methods. */
function routeOf(method: string, path: string): { route: Route; params: Record<string, string> } {
  const found = router.match(method, path);
  if (!found) throw new ApiError("not_found", "No such route.");
  if ("allow" in found) {
    throw new ApiError("method_not_allowed", `Use ${found.allow.join(", ")} on this path.`, undefined, { Allow: found.allow.join(", ") });
  }
  return found;
}

/** What the no-key routes are given. */
function publicRequest(req: Request, path: string, apiBase: string, ctx: Context, deps: HandlerDeps, env: RouteEnv): PublicRequest {
  return {
    req,
    path,
    apiBase,
    headers: ctx.headers,
    remoteAddress: ctx.remoteAddress,
    addressHeaders: deps.addressHeaders ?? [],
    db: deps.db,
    hub: env.hub,
    readFile: deps.readFile,
    timestamp: ctx.timestamp,
    requestId: ctx.requestId,
  };
}

/** A retry with a known Idempotency-Key: the first response again, under its request id and timestamp. */
function replayed(replay: NonNullable<CallOutcome["replay"]>, ctx: Context): void {
  ctx.requestId = replay.request_id;
  ctx.timestamp = replay.timestamp;
  ctx.headers.set("X-Request-Id", ctx.requestId);
  ctx.headers.set("Idempotent-Replayed", "true");
}

/** The envelope around `data`: a page's members joined to it, a created resource's Location, 202 for queued work. */
function envelope(route: Route, data: string, ctx: Context, apiBase: string): Response {
  // A paginated result is {"data": [...], "pagination": {...}}: its members join the envelope.
  if (route.paginated) return success(200, ctx.requestId, data.slice(1, -1), ctx.headers, ctx.timestamp);
  if (route.location) {
    ctx.headers.set("Location", `${apiBase}${route.location(JSON.parse(data))}`);
    return success(201, ctx.requestId, `"data":${data}`, ctx.headers, ctx.timestamp);
  }
  return success(route.accepted ? 202 : 200, ctx.requestId, `"data":${data}`, ctx.headers, ctx.timestamp);
}

/** The key sealing webhook secrets; 503 when WEBHOOK_ENCRYPTION_KEY is not set (or not valid). */
async function webhookKey(deps: HandlerDeps): Promise<CryptoKey> {
  const key = await deps.webhooks?.encryptionKey?.catch(() => null);
  if (!key) {
    throw new ApiError(
      "service_unavailable",
      "Webhooks are not configured on this deployment (WEBHOOK_ENCRYPTION_KEY); the request did nothing.",
    );
  }
  return key;
}

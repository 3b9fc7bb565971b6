import { ApiError } from "./errors.ts";
import { IDEMPOTENCY_KEY_MAX } from "./contract.ts";
import { baseHeaders, failure, preflight, rateLimitHeaders, success } from "./envelope.ts";
import { bearerKey, hashKey } from "./keys.ts";
import { hex, sha256 } from "./sha256.ts";
import { type AuthOutcome, type Database, type DatabaseFailure, DatabaseUnavailable, type Idempotency, operationError } from "./db.ts";
import { conditionsOf } from "./conditions.ts";
import { lastEventVersion, LIVE_DEFAULTS, LiveHub, type LiveOptions } from "./stream.ts";
import { Router, type Route } from "./route.ts";
import { routes } from "./routes.ts";
import { ClientGone, readJsonObject } from "./body.ts";
import { parse, UUID_PATTERN } from "./validation.ts";
import { openApiDocument } from "./openapi.ts";
import { assetType, docsPage, readAsset } from "./docs.ts";
import { webhookPolicy } from "./resources/webhooks.ts";
import {
  type BracketQuery, cachedPicture, clientNotModified, keepResults, pictureConditions, pictureKey, pictureResponse,
  resultsKey,
} from "./pictures.ts";
import { countStatic, publicRoute, publicRouteOf, type PublicRequest } from "./public.ts";
import { decryptSecret, encryptSecret, formatSecret, fromBase64, newSecret } from "../_shared/webhook-secrets.ts";

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
/** The served OpenAPI document, by the server URL it names. */
const openApiJson = new Map<string, string>();

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
  const hub = new LiveHub(deps.db, { ...LIVE_DEFAULTS, ...deps.live },
    (msg) => deps.log({ level: "error", msg, request_id: "", method: "", route: null, status: 0, duration_ms: 0, key_id: null }));
  return async (req, info) => {
    const started = performance.now();
    const ctx: Context = { requestId: crypto.randomUUID(), timestamp: new Date().toISOString(),
      headers: new Headers(), route: null, keyId: null, remoteAddress: info?.remoteAddr?.hostname };
    ctx.headers = baseHeaders(ctx.requestId);
    let res: Response;
    let internal: string | undefined;
    let errorCode: string | undefined;
    let dbFailure: DatabaseUnavailable | undefined;
    let msg = "request";
    try {
      res = await handle(req, ctx, deps, hub);
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
        res = failure(new ApiError("internal_error", "Something went wrong on our side. The request id identifies it."),
          ctx.requestId, ctx.headers, ctx.timestamp);
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

function authError(auth: AuthOutcome, scope: string | null): ApiError | null {
  switch (auth.error) {
    case null:
      return null;
    case "unauthorized":
      return unauthorized();
    case "api_access_disabled":
      return new ApiError("api_access_disabled", "API access is not enabled for this account. Ask the operator to enable it.");
    case "rate_limited":
      return new ApiError("rate_limited",
        auth.message ?? `Rate limit exceeded: ${auth.limit} requests per ${auth.window} seconds per key.`,
        undefined, { "Retry-After": String(auth.retry_after ?? auth.reset) });
    case "insufficient_scope":
      return new ApiError("insufficient_scope", `This API key lacks the scope ${scope} that this operation needs.`);
  }
}

function unauthorized(): ApiError {
  return new ApiError("unauthorized", "A valid API key is required: send Authorization: Bearer <key>.", undefined,
    { "WWW-Authenticate": 'Bearer realm="api"' });
}

/** Reads and validates the query and body; throws the first input error (400/413/415). */
async function readInput(req: Request, route: Route, url: URL) {
  const args: Record<string, unknown> = {};
  let raw: unknown = null;
  if (route.query) args.query = parse(route.query, Object.fromEntries(url.searchParams), "query string");
  if (route.body) {
    raw = await readJsonObject(req);
    args.body = parse(route.body, raw, "request body");
  }
  return { args, raw };
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
function idempotencyOf(req: Request, path: string, raw: unknown, ctx: Context): Idempotency | null {
  const key = req.headers.get("idempotency-key");
  if (key === null || req.method !== "POST") return null;
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError("validation_error", "The Idempotency-Key header is invalid.",
      [{ field: "Idempotency-Key", message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters` }]);
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

async function handle(req: Request, ctx: Context, deps: HandlerDeps, hub: LiveHub): Promise<Response> {
  const url = new URL(req.url);
  if (req.method === "OPTIONS") return preflight(ctx.requestId);
  const where = apiPath(url);
  if (where) {
    const open = publicRouteOf(where.path) ?? staticRouteOf(where.path);
    if (open) ctx.openRoute = open;
    const p: PublicRequest = { req, path: where.path, headers: ctx.headers, remoteAddress: ctx.remoteAddress,
      apiBase: `${deps.publicBaseUrl ?? `${url.origin}${where.base}`}${API_PREFIX}`,
      addressHeaders: deps.addressHeaders ?? [], db: deps.db, hub, readFile: deps.readFile,
      timestamp: ctx.timestamp, requestId: ctx.requestId };
    const answer = (await publicRoute(p)) ?? (await openRoute(req, where.path, where.base, ctx, deps, p));
    if (answer) return answer;
  }
  const found = where && router.match(req.method, where.path);
  if (!where || !found) throw new ApiError("not_found", "No such route.");
  if ("allow" in found) {
    throw new ApiError("method_not_allowed", `Use ${found.allow.join(", ")} on this path.`, undefined,
      { Allow: found.allow.join(", ") });
  }
  const { route, params } = found;
  ctx.route = route;

  const key = bearerKey(req.headers.get("authorization"));
  if (!key) throw unauthorized();

  // Input is read before the database call (it has no side effects) so that the key check,
  // rate limit, scope check and the operation take one round trip; its errors are answered
  // only after the checks that come first in the contract's order. Input (400/413/415) is
  // checked before a malformed path id (404, the existence step).
  let input: Record<string, unknown> | null = null;
  let idempotency: Idempotency | null = null;
  let inputError: unknown = null;
  try {
    const { args, raw } = await readInput(req, route, url);
    idempotency = idempotencyOf(req, where.path, raw, ctx);
    bindIds(args, params);
    const reconnected = route.stream ? lastEventVersion(req) : undefined;
    if (reconnected !== undefined) args.query = { since: reconnected }; // the delta since the last event
    if (route.newSecret) args.secret = await encryptSecret(await webhookKey(deps), newSecret());
    input = args;
  } catch (err) {
    if (err instanceof ClientGone) throw err;
    inputError = err;
  }

  // A picture this instance drew, or whole results it read, at the tournament's current version
  // is sent again: the database is asked with its version too (after the key's checks, from the
  // version alone).
  const client = conditionsOf(req, route);
  const query = (input?.query ?? {}) as Record<string, unknown>;
  const pictureId = route.picture && input ? pictureKey(`keyed:${String(input.tournament_id)}`, route.picture,
    query as BracketQuery) : null;
  const resultsId = route.op === "results.get" && input && query.since === undefined
    ? resultsKey(`keyed:${String(input.tournament_id)}`, query.stage) : null;
  const cacheId = pictureId ?? resultsId;
  const cached = cacheId ? cachedPicture(cacheId) : undefined;
  const outcome = await deps.db.call(hashKey(key), route.scope, inputError ? null : route.op, input,
    idempotency, cacheId ? pictureConditions(client, cached) : client);
  ctx.keyId = outcome.auth.key_id ?? null;
  rateLimitHeaders(outcome.auth, ctx.headers);
  const denied = authError(outcome.auth, route.scope);
  if (denied) throw denied;
  if (inputError) throw inputError;
  if (outcome.replay) {
    // A retry: the first response again, under its request id and timestamp.
    ctx.requestId = outcome.replay.request_id;
    ctx.timestamp = outcome.replay.timestamp;
    ctx.headers.set("X-Request-Id", ctx.requestId);
    ctx.headers.set("Idempotent-Replayed", "true");
  }
  if (outcome.error) throw operationError(outcome.error);
  if (outcome.version !== null) ctx.headers.set("ETag", `"${outcome.version}"`);
  if (outcome.notModified && (!cacheId || clientNotModified(client, outcome.version))) {
    ctx.headers.delete("Content-Type");
    return new Response(null, { status: 304, headers: ctx.headers });
  }
  if (route.stream) return hub.response(req.method, outcome.result ?? "null", ctx.headers);
  if (route.picture && pictureId) {
    return await pictureResponse(route.picture, pictureId, outcome.version!,
      outcome.notModified ? null : outcome.result ?? "null", cached, (input?.query ?? {}) as BracketQuery, req,
      ctx.headers, deps.readFile);
  }

  if (outcome.auth.webhooks) deps.webhooks?.nudge?.();
  let result = outcome.result ?? "null";
  if (resultsId && outcome.version !== null) {
    if (outcome.notModified && cached?.version === outcome.version) result = cached.drawn.body as string;
    else if (outcome.notModified) throw new Error(`results ${resultsId} at version ${outcome.version} are not the ones kept`);
    else keepResults(resultsId, outcome.version, result);
  }
  if (route.newSecret) result = await revealSecret(result, deps);
  if (route.withRateLimit && result.endsWith("}")) {
    // The key's state after this request was counted (api.call counts after the operation).
    const { limit, remaining, reset, window } = outcome.auth;
    result = `${result.slice(0, -1)},"rate_limit":${JSON.stringify({ limit, remaining, reset, window })}}`;
  }
  // A paginated result is {"data": [...], "pagination": {...}}: its members join the envelope.
  if (route.paginated) return success(200, ctx.requestId, result.slice(1, -1), ctx.headers, ctx.timestamp);
  if (route.location) {
    const base = deps.publicBaseUrl ?? `${url.origin}${where.base}`;
    ctx.headers.set("Location", `${base}${API_PREFIX}${route.location(JSON.parse(result))}`);
    return success(201, ctx.requestId, `"data":${result}`, ctx.headers, ctx.timestamp);
  }
  return success(route.accepted ? 202 : 200, ctx.requestId, `"data":${result}`, ctx.headers, ctx.timestamp);
}

/** The key sealing webhook secrets; 503 when WEBHOOK_ENCRYPTION_KEY is not set (or not valid). */
async function webhookKey(deps: HandlerDeps): Promise<CryptoKey> {
  const key = await deps.webhooks?.encryptionKey?.catch(() => null);
  if (!key) {
    throw new ApiError("service_unavailable",
      "Webhooks are not configured on this deployment (WEBHOOK_ENCRYPTION_KEY); the request did nothing.");
  }
  return key;
}

/** An endpoint as SQL returns it (its sealed secret) made into the answer (the secret itself). */
async function revealSecret(result: string, deps: HandlerDeps): Promise<string> {
  const { secret_ciphertext: sealed, ...endpoint } = JSON.parse(result) as Record<string, unknown>;
  const raw = await decryptSecret(await webhookKey(deps), fromBase64(String(sealed)));
  return JSON.stringify({ ...endpoint, secret: formatSecret(raw) });
}

/** The route label of a static file that needs no key (the OpenAPI document, the reference page and its assets), or null. */
function staticRouteOf(path: string): string | null {
  if (path === "/openapi.json" || path === "/docs") return `GET ${path}`;
  return path.startsWith("/docs/") && assetType(path.slice("/docs/".length)) ? "GET /docs/{asset}" : null;
}

// The routes that need no key besides the public view: the OpenAPI document and the reference
// page with its assets (counted per client address, as the public view).
async function openRoute(req: Request, path: string, base: string, ctx: Context, deps: HandlerDeps,
  p: PublicRequest): Promise<Response | null> {
  if (!staticRouteOf(path)) return null;
  const asset = path.startsWith("/docs/") ? path.slice("/docs/".length) : null;
  const assetMediaType = asset === null ? null : assetType(asset);
  if (req.method !== "GET" && req.method !== "HEAD") {
    throw new ApiError("method_not_allowed", "Use GET on this path.", undefined, { Allow: "GET, HEAD" });
  }
  await countStatic(p);
  const headers = ctx.headers;
  const body = (bytes: BodyInit) => (req.method === "HEAD" ? null : bytes);
  if (path === "/openapi.json") {
    // The first server is where this document was served from (or PUBLIC_BASE_URL).
    const server = `${deps.publicBaseUrl ?? `${new URL(req.url).origin}${base}`}${API_PREFIX}`;
    let json = openApiJson.get(server);
    if (!json) {
      json = JSON.stringify(openApiDocument({ serverUrl: server }), null, 2);
      if (openApiJson.size < 16) openApiJson.set(server, json);
    }
    return new Response(body(json), { status: 200, headers });
  }
  if (path === "/docs") {
    headers.set("Content-Type", "text/html; charset=utf-8");
    headers.set("Content-Security-Policy",
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
    return new Response(body(docsPage(new URL(req.url).pathname.endsWith("/"))), { status: 200, headers });
  }
  if (!deps.readFile) throw new ApiError("not_found", "No such route.");
  const bytes = await readAsset(asset!, deps.readFile);
  headers.set("Content-Type", assetMediaType!);
  headers.set("Cache-Control", "public, max-age=3600");
  return new Response(body(bytes as Uint8Array<ArrayBuffer>), { status: 200, headers });
}

// The routes that need no key (contract section 15, with the OpenAPI document and the reference
// page): each counted per client address (PUBLIC_RATE_LIMIT, api.public_call), never per
// key. The public view of a tournament its owner made public, by its slug:
//   GET /public/tournaments/{slug}               the public view (JSON envelope)
//   GET /public/tournaments/{slug}/bracket.svg   the current (or ?stage=) stage drawn
//   GET /public/tournaments/{slug}/bracket.png   the same picture as PNG
//   GET /public/tournaments/{slug}/page          an HTML page that keeps itself current
//   GET /public/tournaments/{slug}/stream        its live stream (section 14)
//   GET /public/viewer.html                      the same page as one static file
// A private or unknown slug is 404 (one answer for both). They answer `Cache-Control: public,
// max-age=5` with the version as ETag (304 on If-None-Match), to any origin, and never show
// payment or account data.
import { ApiError } from "./errors.ts";
import { type Conditions, type Database, DatabaseUnavailable, type PublicOp } from "./db.ts";
import { notModified, rateLimitHeaders, success } from "./envelope.ts";
import { sha256 } from "./sha256.ts";
import { versionsOf } from "./conditions.ts";
import { parse, queryVersion } from "./validation.ts";
import { BracketQuery, keptKey, pictureKey, pictureKind, pictureResponse, PICTURES_DRAWN_BY, publicPngRequest } from "./pictures.ts";
import { clientNotModified, keptRead, keptText } from "./kept.ts";
import { PAGE_CSP_SERVED, pageCsp, pageHtml } from "./render/page.ts";
import { lastEventVersion, type LiveHub } from "./stream.ts";
import { z } from "zod";

/** A public request's parts: what app.ts's handler passes (its headers, the API base for links). */
export interface PublicRequest {
  req: Request;
  /** The path below /api/v1. */
  path: string;
  /** The public URL up to and including /api/v1 (for the page's links and Open Graph tags). */
  apiBase: string;
  headers: Headers;
  /** The socket's remote address (Deno.serve's info), when known. */
  remoteAddress?: string;
  addressHeaders: string[];
  db: Database;
  hub: LiveHub;
  readFile?: (url: URL) => Promise<Uint8Array>;
  timestamp: string;
  requestId: string;
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,79}$/;
const PUBLIC_PATH = /^\/public\/tournaments\/([^/]+)(\/bracket\.svg|\/bracket\.png|\/page|\/stream)?$/;
const StreamQuery = z.object({ since: queryVersion().optional() });

/** The route label of a public path for the log line, or null when the path is not public. */
export function publicRouteOf(path: string): string | null {
  if (path === "/public/viewer.html") return "GET /public/viewer.html";
  const m = PUBLIC_PATH.exec(path);
  return m ? `GET /public/tournaments/{slug}${m[2] ?? ""}` : null;
}

/**
 * The client's address: the first configured header present, else the socket's. Of a list
 * (X-Forwarded-For) the last entry: the one the nearest proxy appended; what a client writes
 * in front of it is its own and proves nothing. Canonical, so that one client is one count: an
 * IPv4-mapped IPv6 address is its IPv4 address, and an IPv6 address counts by its /64 (what one
 * subscriber is usually given).
 */
export function clientAddress(req: Request, headerNames: string[], remote?: string): string {
  for (const name of headerNames) {
    const value = req.headers.get(name)?.split(",").map((v) => v.trim()).filter(Boolean).at(-1);
    if (value) return canonicalAddress(value.slice(0, 100));
  }
  return canonicalAddress(remote ?? "unknown");
}

/** An address as counted: IPv4 as it is, IPv6 by its first 64 bits, anything else lower-cased. */
export function canonicalAddress(address: string): string {
  const a = address.trim().toLowerCase().replace(/^\[(.*)\](:\d+)?$/, "$1");
  const mapped = /^(?:0{0,4}:){0,5}(?:0{0,4}:)?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a) ?? /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (mapped) return mapped[1];
  if (!a.includes(":") || !/^[0-9a-f:.]+$/.test(a)) return a;
  const halves = a.split("::");
  if (halves.length > 2) return a;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const groups = [...head, ...Array(Math.max(0, 8 - head.length - tail.length)).fill("0"), ...tail];
  return `${groups.slice(0, 4).map((g) => (parseInt(g, 16) || 0).toString(16)).join(":")}::/64`;
}

/** Counts the request against its address; 429 when the address is over its limit. */
async function call(
  p: PublicRequest,
  op: PublicOp,
  args: { slug: string; key?: string; drawn_by?: string; query?: { since?: number } },
  conditions: Conditions | null = null,
) {
  const hash = sha256(`address:${clientAddress(p.req, p.addressHeaders, p.remoteAddress)}`);
  const outcome = await p.db.publicCall(hash, op, args, conditions);
  rateLimitHeaders(outcome.auth, p.headers, "public");
  if (outcome.auth.error === "rate_limited") {
    throw new ApiError(
      "rate_limited",
      `Rate limit exceeded: ${outcome.auth.limit} requests per ${outcome.auth.window} seconds per client address.`,
      undefined,
      { "Retry-After": String(outcome.auth.reset) },
    );
  }
  if (outcome.error) throw new ApiError("not_found", "Tournament not found.");
  return outcome;
}

/**
 * Counts a request for a static file that needs no key (the OpenAPI document, the reference
 * page, viewer.html). When the database cannot be reached the file is served anyway: it does
 * not depend on the database, and a limit that cannot be counted is not a reason to refuse it.
 */
export async function countStatic(p: PublicRequest): Promise<void> {
  try {
    await call(p, "count", { slug: "" });
  } catch (err) {
    if (!(err instanceof DatabaseUnavailable)) throw err;
  }
}

/** The If-None-Match versions of a public read (weak comparison), as api.call takes them. */
function ifNoneMatch(req: Request): Conditions | null {
  const versions = versionsOf(req.headers.get("if-none-match"), true);
  return versions === undefined ? null : { if_none_match: versions };
}

/** Answers a public route (a path publicRouteOf names). */
export async function publicRoute(p: PublicRequest): Promise<Response> {
  const { req, path, headers } = p;
  const viewer = path === "/public/viewer.html";
  const m = viewer ? null : PUBLIC_PATH.exec(path);
  if (!viewer && !m) throw new ApiError("not_found", "No such route.");
  if (req.method !== "GET" && req.method !== "HEAD") {
    throw new ApiError("method_not_allowed", "Use GET on this path.", undefined, { Allow: "GET, HEAD" });
  }
  if (viewer) {
    await countStatic(p);
    headers.set("Cache-Control", "public, max-age=300");
    return html(pageHtml({}), headers, null);
  }
  let slug = "";
  try {
    slug = decodeURIComponent(m![1]);
  } catch {
    // not a slug (a malformed escape): 404 below
  }
  const kind = m![2] ?? "";
  const picture = pictureKind(kind);
  const url = new URL(req.url);
  // Input first (it costs nothing), then the count and the tournament.
  const query = kind === "/stream"
    ? parse(StreamQuery, Object.fromEntries(url.searchParams), "query string")
    : picture
    ? parse(BracketQuery, Object.fromEntries(url.searchParams), "query string")
    : {};
  if (!SLUG.test(slug)) {
    await call(p, "count", { slug: "" });
    throw new ApiError("not_found", "Tournament not found.");
  }

  if (kind === "/stream") {
    const since = lastEventVersion(req) ?? (query as { since?: number }).since;
    const outcome = await call(p, "stream", { slug, query: since === undefined ? {} : { since } });
    return p.hub.publicResponse(req.method, outcome.result ?? "null", headers);
  }

  // A PNG that may have to be drawn waits its turn (pictures.ts); a revalidation (If-None-Match)
  // or a picture this instance keeps goes straight on: it is answered without drawing unless
  // the tournament moved on.
  // The JSON view is kept as the pictures are: a final's open pages all ask it again after each
  // event (issue 39's rush (d)), and Postgres then answers from the version alone.
  const cacheKey = picture ? pictureKey(`public:${slug}`, picture, query as BracketQuery) : kind === "" ? `public:${slug}|view` : null;
  const mayDraw = picture === "png" && req.method !== "HEAD" && !req.headers.has("if-none-match") &&
    !keptRead(cacheKey!, null).cached;
  if (mayDraw) return await publicPngRequest(() => answer(p, kind, slug, picture, query, cacheKey));
  return await answer(p, kind, slug, picture, query, cacheKey);
}

/**
 * A public route's answer (kind: the path after the slug; picture: its kind, if one, and
 * cacheKey the name this instance keeps it under).
 */
async function answer(
  p: PublicRequest,
  kind: string,
  slug: string,
  picture: "svg" | "png" | null,
  query: unknown,
  cacheKey: string | null,
): Promise<Response> {
  const { req, headers } = p;
  const op: PublicOp = kind === "" || picture ? "view" : "tournament";
  const client = ifNoneMatch(req);
  // A picture this instance drew at the current version is sent again: the database is asked
  // with its version too, and answers from the version alone.
  const read = cacheKey ? keptRead(cacheKey, client) : null;
  // A whole stage's PNG is kept in the database once drawn: any instance sends those bytes.
  const stored = picture === "png" ? keptKey(query as BracketQuery) : null;
  const outcome = await call(
    p,
    stored ? "picture" : op,
    stored ? { slug, key: stored, drawn_by: PICTURES_DRAWN_BY } : { slug },
    read ? read.conditions : client,
  );
  headers.set("Cache-Control", "public, max-age=5");
  if (outcome.version !== null) headers.set("ETag", `"${outcome.version}"`);
  if (clientNotModified(outcome.notModified, read, outcome.version)) return notModified(headers);
  if (picture && read) {
    const version = outcome.version!;
    // Only a cache: a picture not kept is drawn again by the next instance asked.
    const keep = stored
      ? (drawn: { body: Uint8Array; clipped: string | null }) =>
        p.db.keepPicture(slug, stored, version, drawn.body, drawn.clipped, PICTURES_DRAWN_BY).catch(() => false)
      : undefined;
    return await pictureResponse(
      picture,
      read,
      version,
      outcome.notModified ? null : outcome.result ?? "null",
      query as BracketQuery,
      req,
      headers,
      p.readFile,
      keep,
    );
  }
  const result = read && outcome.version !== null
    ? await keptText(read, outcome.version, outcome.notModified ? null : outcome.result ?? "null")
    : outcome.result ?? "null";
  if (kind === "/page") {
    const t = JSON.parse(result) as { name: string; description: string; status: string };
    const page = `${p.apiBase}/public/tournaments/${slug}/page`;
    return html(
      pageHtml({
        apiBase: p.apiBase,
        slug,
        og: {
          title: t.name,
          description: t.description || `${t.name}: bracket, standings and results, live.`,
          image: `${p.apiBase}/public/tournaments/${slug}/bracket.png`,
          url: page,
        },
      }),
      headers,
      p.apiBase,
    );
  }
  return success(200, p.requestId, `"data":${result}`, headers, p.timestamp);
}

/** The share page (or viewer.html, with no API base), under the page's one policy (render/page.ts). */
function html(body: string, headers: Headers, apiBase: string | null): Response {
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set("Content-Security-Policy", `${pageCsp(apiBase ?? undefined)}; ${PAGE_CSP_SERVED}`);
  return new Response(body, { status: 200, headers });
}

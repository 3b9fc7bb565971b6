// The OpenAPI document's public paths (contract section 15): a public tournament's document,
// bracket pictures, page and live stream by slug, and viewer.html; no key, counted per client address.
import { z } from "zod";
import { PUBLIC_RATE_LIMIT } from "../contract.ts";
import { BracketQuery } from "../pictures.ts";
import { type Json, RATE_HEADERS, ref } from "./components.ts";
import { pictureContent, SSE_EXAMPLE } from "./operations.ts";

/** The public routes (contract section 15): no key, counted per client address. */
export function publicPaths(): Record<string, Json> {
  const slug = {
    name: "slug",
    in: "path",
    required: true,
    schema: { type: "string", pattern: "^[a-z0-9][a-z0-9-]{0,79}$" },
    description: "The tournament's `slug`.",
  };
  const query = Object.entries(BracketQuery.shape).map(([name, field]) => {
    const schema = z.toJSONSchema(field as z.ZodType, { io: "input", unrepresentable: "any" }) as Json;
    delete schema.$schema;
    return { name, in: "query", required: false, schema };
  });
  const ifNoneMatch = {
    name: "If-None-Match",
    in: "header",
    required: false,
    schema: { type: "string" },
    description: "ETags from earlier reads: 304 without a body while the tournament is at one of those versions.",
  };
  const limitHeaders = Object.fromEntries(
    RATE_HEADERS.map((
      h,
    ) => [h, {
      schema: { type: h.startsWith("RateLimit-") && h !== "RateLimit-Policy" ? "integer" : "string" },
      description: h === "RateLimit-Policy"
        ? `\`"public";q=${PUBLIC_RATE_LIMIT.limit};w=${PUBLIC_RATE_LIMIT.window}\`: per client address.`
        : `As on keyed routes, for the client address's count.`,
    }]),
  );
  const cached = {
    "Cache-Control": { schema: { type: "string" }, description: "`public, max-age=5`." },
    ETag: ref("ETag", "headers"),
    ...limitHeaders,
  };
  const errors = (...codes: string[]) =>
    Object.fromEntries(
      codes.map((c) => [
        c,
        c === "429"
          ? {
            description:
              `Over ${PUBLIC_RATE_LIMIT.limit} requests in the rolling ${PUBLIC_RATE_LIMIT.window} seconds from this client address.`,
            headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds until a request is accepted again." } },
            content: { "application/json": { schema: ref("Error") } },
          }
          : c === "404"
          ? {
            description: "No public tournament has this slug (private and unknown alike).",
            content: { "application/json": { schema: ref("Error") } },
          }
          : ref(`Error${c}`, "responses"),
      ]),
    );
  const notModified = { "304": { description: "Not modified: `If-None-Match` named the current version.", headers: cached } };
  const op = (operationId: string, summary: string, description: string, responses: Json, parameters: Json[] = [slug]) => ({
    get: { operationId, summary, description, tags: ["Public"], security: [], parameters, responses },
  });
  return {
    "/public/tournaments/{slug}": op(
      "publicTournament",
      "A public tournament",
      "Its document, every stage with its own standings, every registration (without `payment_status`) with its team, every started stage's matches and the overall standings, as the keyed routes show them.",
      {
        "200": {
          description: "OK.",
          headers: cached,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["success", "data", "meta"],
                properties: { success: { const: true }, data: ref("PublicView"), meta: ref("Meta") },
              },
            },
          },
        },
        ...notModified,
        ...errors("400", "404", "429", "500", "503"),
      },
      [slug, ifNoneMatch],
    ),
    "/public/tournaments/{slug}/bracket.svg": op(
      "publicBracketSVG",
      "A public tournament's bracket (SVG)",
      "The stage drawn as `GET /tournaments/{id}/bracket.svg` draws it.",
      {
        "200": { description: "The picture.", headers: cached, content: pictureContent("svg") },
        ...notModified,
        ...errors("400", "404", "429", "500", "503"),
      },
      [slug, ...query, ifNoneMatch],
    ),
    "/public/tournaments/{slug}/bracket.png": op(
      "publicBracketPNG",
      "A public tournament's bracket (PNG)",
      "The same picture as PNG (for chat apps that do not show SVG), at most 4,096 pixels on a side.",
      {
        "200": { description: "The picture.", headers: cached, content: pictureContent("png") },
        ...notModified,
        ...errors("400", "404", "429", "500", "503"),
      },
      [slug, ...query, ifNoneMatch],
    ),
    "/public/tournaments/{slug}/page": op(
      "publicPage",
      "A public tournament's page (HTML)",
      "Name, status, the bracket, standings and upcoming matches, kept current from the public stream; readable on a phone, light or dark as the system prefers, Open Graph tags pointing at the PNG, no request to any other host. (On hosted Supabase's default domain HTML is served as text/plain: use `/public/viewer.html` from any static host.)",
      {
        "200": { description: "The page.", headers: cached, content: { "text/html": { schema: { type: "string" } } } },
        ...notModified,
        ...errors("404", "429", "500", "503"),
      },
      [slug, ifNoneMatch],
    ),
    "/public/tournaments/{slug}/stream": op(
      "publicStream",
      "Watch a public tournament live (Server-Sent Events)",
      "As `GET /tournaments/{id}/stream` (contract section 14), without a key: the whole results first (with `Last-Event-ID`, the delta since it), one event per new version, `event: deleted` when the tournament is deleted or made private, the end after at most 120 seconds with `retry: 1000`. Opening it counts as one request of the client address.",
      {
        "200": {
          description: "A Server-Sent Events stream.",
          content: { "text/event-stream": { schema: { type: "string" }, example: SSE_EXAMPLE } },
        },
        ...errors("400", "404", "429", "500", "503"),
      },
      [slug, {
        name: "Last-Event-ID",
        in: "header",
        required: false,
        schema: { type: "string", pattern: "^[0-9]+$" },
        description: "The id (version) of the last event received: the first event is the delta since it.",
      }],
    ),
    "/public/viewer.html": op(
      "publicViewer",
      "The page as one static file",
      "The same page as `/public/tournaments/{slug}/page`, as one self-contained file to copy to any static host: it takes `api` (the API base URL, up to and including `/api/v1`) and `slug` from its query string and draws the page from the public JSON, SVG and stream.",
      { "200": { description: "The page.", content: { "text/html": { schema: { type: "string" } } } }, ...errors("429") },
      [{
        name: "api",
        in: "query",
        required: false,
        schema: { type: "string", format: "uri" },
        description: "Read by the page's script, not by the server.",
      }, {
        name: "slug",
        in: "query",
        required: false,
        schema: { type: "string" },
        description: "Read by the page's script, not by the server.",
      }],
    ),
  };
}

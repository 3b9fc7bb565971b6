// The OpenAPI document's operations: one route of the route table as its operation (parameters,
// request body, responses with examples), with the bracket pictures' and live streams' responses.
import { z } from "zod";
import { API_VERSION } from "../envelope.ts";
import { MAX_STAGES, PAGE_SIZE } from "../contract.ts";
import type { Route } from "../route.ts";
import { documentedAs } from "../validation.ts";
import { EXAMPLE_IDS } from "../resources/models/common.ts";
import { type Json, RATE_HEADERS, ref, schemaOf } from "./components.ts";

function exampleOf(schema: z.ZodType): unknown {
  const meta = (schema as unknown as { meta(): { example?: unknown } | undefined }).meta();
  return meta?.example;
}

/** Whether a route is about one tournament: its reads take If-None-Match, its writes If-Match. */
const conditional = (route: Route) => !route.stream && route.method !== "POST" && /^\/tournaments\/\{(id|tournament_id)\}/.test(route.path);

/** A bracket picture's 200: SVG text or PNG bytes. */
export function pictureContent(kind: "svg" | "png"): Json {
  return kind === "svg"
    ? {
      "image/svg+xml": {
        schema: { type: "string", description: "One self-contained SVG document (no scripts, external fonts or images)." },
      },
    }
    : {
      "image/png": { schema: { type: "string", contentMediaType: "image/png", description: "A PNG of at most 4,096 pixels on a side." } },
    };
}

/** An example of a live stream's events (text/event-stream). */
export const SSE_EXAMPLE =
  'id: 8\nevent: results\ndata: {"tournament":{"id":"…","format":"single_elimination","status":"ongoing","stage":1,"version":8},"matches":[…],"standings":[…]}\n\n: keep-alive\n\nid: 9\nevent: results\ndata: {"tournament":{…,"version":9},"matches":[{…the match reported…},{…the match its winner went to…}],"removed_matches":[],"standings":[…]}\n\nretry: 1000\n\n';

/** A route of the route table as its OpenAPI operation. */
export function operation(route: Route): Json {
  const game = route.path.includes("/games/");
  const params: Json[] = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    schema: name !== "number" ? { type: "string", format: "uuid" } : { type: "integer", minimum: 1, maximum: game ? 9 : MAX_STAGES },
    description: name === "id" || name === "tournament_id"
      ? "The tournament's id."
      : name !== "number"
      ? `The ${name.replace("_id", "")}'s id.`
      : game
      ? "The game's number in the series: 1..best_of, at most one past the last reported (no gaps; 400 otherwise)."
      : "The stage's number (1 is the first).",
  }));
  if (route.query instanceof z.ZodObject) {
    for (const [name, field] of Object.entries(route.query.shape as Record<string, z.ZodType>)) {
      const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
      const schema = documentedAs.get(inner) ?? z.toJSONSchema(field, { io: "input", unrepresentable: "any" }) as Json;
      delete schema.$schema;
      params.push({
        name,
        in: "query",
        required: !field.safeParse(undefined).success,
        schema,
        ...(name === "page"
          ? { description: "≥ 1 (default 1)." }
          : name === "limit"
          ? { description: `1–${PAGE_SIZE.max} (default ${PAGE_SIZE.default}).` }
          : {}),
      });
    }
  }
  if (route.method === "POST") {
    params.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
      description:
        "Makes a retry safe (Stripe's semantics): scoped to the API key and kept 24 hours. The same key and body replays the first response (with `Idempotent-Replayed: true`); another body is 422 `idempotency_mismatch`; the same key while the first request is in flight is 409 `idempotency_conflict` (answered at once and not counted toward the rate limit). Validation errors (400) are not saved.",
    });
  }
  const read = route.method === "GET";
  if (conditional(route)) {
    params.push(
      read
        ? {
          name: "If-None-Match",
          in: "header",
          required: false,
          schema: { type: "string" },
          description:
            'ETags from earlier reads (`"8"`, a list, or `*`): 304 without a body while the tournament is at one of those versions (still counted).',
        }
        : {
          name: "If-Match",
          in: "header",
          required: false,
          schema: { type: "string" },
          description:
            'The ETag of your last read (`"8"`, a list, or `*`): 412 `precondition_failed`, nothing changed, if the tournament has changed since. Without it, nothing is checked.',
        },
    );
  }
  if (route.stream) {
    params.push({
      name: "Last-Event-ID",
      in: "header",
      required: false,
      schema: { type: "string", pattern: "^[0-9]+$" },
      description:
        "The id (version) of the last event received: the first event is the delta since it. A browser's `EventSource` sends it when it reconnects.",
    });
  }
  const conflicts = [...(route.conflicts ?? []), ...(route.method === "POST" ? ["idempotency_conflict"] : [])];
  const isArray = (route.response as unknown as { def: { type: string } }).def.type === "array";
  const dataExample = isArray
    ? [exampleOf((route.response as unknown as { def: { element: z.ZodType } }).def.element)]
    : exampleOf(route.response);
  const status = route.location ? "201" : route.accepted ? "202" : "200";
  const successHeaders: Json = { "X-Request-Id": ref("X-Request-Id", "headers") };
  for (const h of RATE_HEADERS) successHeaders[h] = ref(h, "headers");
  if (route.location) successHeaders.Location = ref("Location", "headers");
  if (route.method === "POST") successHeaders["Idempotent-Replayed"] = ref("Idempotent-Replayed", "headers");
  if (conditional(route)) successHeaders.ETag = ref("ETag", "headers");

  const responses: Json = {
    [status]: {
      description: route.location ? "Created." : route.accepted ? "Accepted: the delivery is queued." : "OK.",
      headers: successHeaders,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["success", "data", "meta", ...(route.paginated ? ["pagination"] : [])],
            properties: {
              success: { const: true },
              data: schemaOf(route.response),
              ...(route.paginated ? { pagination: ref("Pagination") } : {}),
              meta: ref("Meta"),
            },
          },
          example: {
            success: true,
            data: dataExample,
            ...(route.paginated ? { pagination: { page: 1, limit: 20, total: 1 } } : {}),
            meta: { timestamp: "2026-11-21T10:00:00.000Z", api_version: API_VERSION, request_id: EXAMPLE_IDS.request },
          },
        },
      },
    },
  };
  if (route.stream) {
    responses[status] = {
      description: "A Server-Sent Events stream (see above), ended by the server within 120 seconds.",
      headers: successHeaders,
      content: {
        "text/event-stream": {
          schema: {
            type: "string",
            description:
              '`event: results` (`data`: Results; the first whole, then deltas as `?since=` gives them), `event: deleted` (`data`: `{"id": …}`), `: keep-alive` comments, `retry: 1000` at the end.',
          },
          example: SSE_EXAMPLE,
        },
      },
    };
  }
  if (route.picture) {
    responses[status] = {
      description: route.picture === "svg" ? "The picture (SVG)." : "The picture (PNG).",
      headers: {
        ...successHeaders,
        "X-Bracket-Clipped": {
          schema: { type: "string" },
          description:
            "Set when parts of the bracket were left out to stay legible (URL-encoded): what is shown, and the `round` or `group` that shows the rest.",
        },
      },
      content: pictureContent(route.picture),
    };
  }
  if (conditional(route) && read) {
    responses["304"] = {
      description:
        "Not modified: `If-None-Match` named the tournament's current version. No body; `ETag` and the `RateLimit-*` headers (the request counted).",
      headers: { ETag: ref("ETag", "headers"), ...Object.fromEntries(RATE_HEADERS.map((h) => [h, ref(h, "headers")])) },
    };
  }
  const errors = [
    "400",
    "401",
    "403",
    "404",
    ...(conflicts.length ? ["409"] : []),
    ...(conditional(route) && !read ? ["412"] : []),
    ...(route.body ? ["413", "415"] : []),
    ...(route.method === "POST" ? ["422"] : []),
    "429",
    "500",
    "503",
  ];
  for (const e of errors) responses[e] = ref(`Error${e}`, "responses");
  if (conflicts.length) {
    responses["409"] = {
      headers: { "X-Request-Id": ref("X-Request-Id", "headers") },
      description: `State conflict: ${conflicts.map((c) => `\`${c}\``).join(", ")}.`,
      content: {
        "application/json": {
          schema: ref("Error"),
          example: {
            success: false,
            error: { code: conflicts[0], message: "The resource's state forbids this request." },
            meta: { timestamp: "2026-11-21T10:00:00.000Z", api_version: API_VERSION, request_id: EXAMPLE_IDS.request },
          },
        },
      },
    };
  }

  return {
    operationId: route.op.replace(/\.(\w)/, (_, c: string) => c.toUpperCase()) + (route.picture ? route.picture.toUpperCase() : ""),
    summary: route.summary,
    description: `${route.description ? route.description + "\n\n" : ""}${
      route.scope
        ? `Requires the scope \`${route.scope}\`.`
        : route.participant
        ? "Any valid participant token, whatever its scopes."
        : "Any valid key, whatever its scopes."
    }`,
    tags: [tagOf(route.path)],
    security: [{ [route.participant ? "participantToken" : "apiKey"]: route.scope ? [route.scope] : [] }],
    ...(route.scope ? { "x-required-scope": route.scope } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(route.body
      ? {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: schemaOf(route.body),
              ...(route.bodyExample ? { example: route.bodyExample } : {}),
            },
          },
        },
      }
      : {}),
    responses,
  };
}

function tagOf(path: string): string {
  if (path.startsWith("/participant")) return "Participants";
  if (/\/(signup-)?tokens/.test(path)) return "Participant tokens";
  if (path.includes("/registrations")) return "Registrations";
  if (path.includes("/results") || path.includes("/matches") || path.includes("/stages") || path.includes("/bracket.")) return "Results";
  if (path.startsWith("/teams")) return "Teams";
  if (path === "/me") return "Keys";
  if (path.startsWith("/webhooks")) return "Webhooks";
  return "Tournaments";
}

// The OpenAPI 3.1 document, built from the route table and its zod schemas: the same schemas
// the function validates with, so the document cannot drift from the behaviour.
import { z } from "zod";
import { API_VERSION } from "./envelope.ts";
import { type ErrorCode, MAX_STAGES, PAGE_SIZE, PUBLIC_RATE_LIMIT, RATE_LIMIT, SCOPES } from "./contract.ts";
import type { Route } from "./route.ts";
import { documentedAs } from "./validation.ts";
import { routes } from "./routes.ts";
import * as models from "./resources/models.ts";
import { CreateTournament, UpdateTournament } from "./resources/tournaments.ts";
import { CreateRegistration, PutLineup, UpdateRegistration } from "./resources/registrations.ts";
import * as players from "./resources/players.ts";
import { PutGame, ReportMatch, UpdateStage } from "./resources/results.ts";
import { CreateTeam, UpdateTeam } from "./resources/teams.ts";
import * as webhooks from "./resources/webhooks.ts";
import { BracketQuery } from "./pictures.ts";

type Json = Record<string, unknown>;
const ref = (name: string, kind = "schemas") => ({ $ref: `#/components/${kind}/${name}` });

// Named component schemas: response models and request bodies.
const named: Record<string, z.ZodType> = {
  Tournament: models.Tournament,
  TeamSummary: models.TeamSummary,
  Registration: models.Registration,
  Match: models.Match,
  Standing: models.Standing,
  Results: models.Results,
  DeleteResult: models.DeleteResult,
  Team: models.Team,
  Me: models.Me,
  Webhook: webhooks.Webhook,
  WebhookWithSecret: webhooks.WebhookWithSecret,
  WebhookDelivery: webhooks.Delivery,
  MatchWithTournament: webhooks.MatchWithTournament,
  StageWithTournament: webhooks.StageWithTournament,
  Stage: models.Stage,
  StageDetail: models.StageDetail,
  Qualifier: models.Qualifier,
  Game: models.Game,
  Player: players.Player,
  RosterMember: players.RosterMember,
  LineupEntry: models.LineupEntry,
  PublicView: models.PublicView,
  CreateWebhook: webhooks.CreateWebhook,
  UpdateWebhook: webhooks.UpdateWebhook,
  Pagination: models.Pagination,
  Meta: models.Meta,
  Error: models.ErrorBody,
  CreateTournament,
  UpdateTournament,
  UpdateStage,
  CreateRegistration,
  UpdateRegistration,
  ReportMatch,
  PutGame,
  CreateTeam,
  UpdateTeam,
  CreatePlayer: players.CreatePlayer,
  UpdatePlayer: players.UpdatePlayer,
  PutRosterMember: players.PutRosterMember,
  PutLineup,
};

const OUTPUTS = new Set([
  "Tournament",
  "TeamSummary",
  "Registration",
  "Match",
  "Standing",
  "Results",
  "Team",
  "Me",
  "DeleteResult",
  "Pagination",
  "Meta",
  "Error",
  "Webhook",
  "WebhookWithSecret",
  "WebhookDelivery",
  "MatchWithTournament",
  "StageWithTournament",
  "Stage",
  "StageDetail",
  "Qualifier",
  "Game",
  "Player",
  "RosterMember",
  "LineupEntry",
  "PublicView",
]);

function componentSchemas(): Json {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  // Request bodies are described as inputs, response models as outputs.
  const convert = (io: "input" | "output") =>
    (z.toJSONSchema(registry, { uri: (id) => `#/components/schemas/${id}`, io, unrepresentable: "any" }) as {
      schemas: Record<string, Json>;
    }).schemas;
  const inputs = convert("input");
  const outputs = convert("output");
  const schemas: Record<string, Json> = {};
  for (const id of Object.keys(named)) {
    const schema = OUTPUTS.has(id) ? relaxed(outputs[id]) : inputs[id];
    delete schema.$schema;
    delete schema.$id;
    schemas[id] = schema;
  }
  for (const id of ["UpdateTournament", "UpdateRegistration", "UpdateTeam", "ReportMatch", "UpdateWebhook"]) schemas[id].minProperties = 1;
  return schemas;
}

// Responses may gain fields and need no input patterns: drop `additionalProperties: false`
// and the long validation patterns of uuid and date-time strings.
function relaxed(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema), (_key, value) => {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      if (value.additionalProperties === false) delete value.additionalProperties;
      if (value.format === "uuid" || value.format === "date-time") delete value.pattern;
    }
    return value;
  });
}

/** A schema as a reference when it is a named component, else inline JSON Schema. */
function schemaOf(schema: z.ZodType): Json {
  for (const [id, s] of Object.entries(named)) if (s === schema) return ref(id);
  const inner = (schema as unknown as { def?: { type?: string; element?: z.ZodType } }).def;
  if (inner?.type === "array" && inner.element) return { type: "array", items: schemaOf(inner.element) };
  const out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  delete out.$schema;
  return out;
}

const ERROR_RESPONSES: Record<string, { description: string; code: ErrorCode; message: string; headers?: Json }> = {
  "400": {
    description: "Invalid JSON (`invalid_json`) or invalid fields (`validation_error`, with `details`).",
    code: "validation_error",
    message: "The request body is invalid.",
  },
  "401": {
    description: "No key, not `Bearer <key>`, or an unknown, revoked or expired key.",
    code: "unauthorized",
    message: "A valid API key is required: send Authorization: Bearer <key>.",
    headers: { "WWW-Authenticate": { schema: { type: "string" }, description: '`Bearer realm="api"`' } },
  },
  "403": {
    description:
      "The account's API access is not enabled (`api_access_disabled`), the key lacks the scope (`insufficient_scope`), or the team is not your account's to change (`team_not_owned`).",
    code: "insufficient_scope",
    message: "This API key lacks the scope read:tournaments that this operation needs.",
  },
  "404": { description: "No such resource, or one of another account.", code: "not_found", message: "Tournament not found." },
  "409": {
    description: "The resource's state forbids the request.",
    code: "tournament_full",
    message: "The tournament is full (16 of 16 teams).",
  },
  "412": {
    description:
      "`If-Match` named a version that is not the tournament's current one; nothing changed. Read it again (its `ETag`) and retry.",
    code: "precondition_failed",
    message: "The tournament has changed: it is at version 8, not the one in If-Match. Read it again and retry.",
  },
  "422": {
    description: "The Idempotency-Key was already used with a different request.",
    code: "idempotency_mismatch",
    message: "This Idempotency-Key was used with a different request; use a new key for a new request.",
  },
  "413": { description: "The body is over 64 KiB.", code: "payload_too_large", message: "The request body is larger than 65536 bytes." },
  "415": {
    description: "The body is not `application/json`.",
    code: "unsupported_media_type",
    message: "The request body must be application/json.",
  },
  "429": {
    description: `Over ${RATE_LIMIT.limit} requests in the rolling ${RATE_LIMIT.window} seconds for this key.`,
    code: "rate_limited",
    message: `Rate limit exceeded: ${RATE_LIMIT.limit} requests per ${RATE_LIMIT.window} seconds per key.`,
    headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds until a request is accepted again." } },
  },
  "500": {
    description: "A bug on our side; nothing internal leaks.",
    code: "internal_error",
    message: "Something went wrong on our side. The request id identifies it.",
  },
  "503": {
    description: "The database cannot be reached; the request did nothing.",
    code: "service_unavailable",
    message: "The service is temporarily unavailable; the request did nothing. Try again shortly.",
  },
};

const RATE_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "RateLimit"];

function errorComponents(): Json {
  const out: Json = {};
  for (const [status, e] of Object.entries(ERROR_RESPONSES)) {
    out[`Error${status}`] = {
      description: e.description,
      headers: { "X-Request-Id": ref("X-Request-Id", "headers"), ...(e.headers ?? {}) },
      content: {
        "application/json": {
          schema: ref("Error"),
          example: {
            success: false,
            error: {
              code: e.code,
              message: e.message,
              ...(status === "400" ? { details: [{ field: "max_teams", message: "Too big: expected number to be <=1024" }] } : {}),
            },
            meta: { timestamp: "2026-11-21T10:00:00.000Z", api_version: API_VERSION, request_id: models.EXAMPLE_IDS.request },
          },
        },
      },
    };
  }
  return out;
}

function headerComponents(): Json {
  return {
    "X-Request-Id": { description: "This request's id (also `meta.request_id`).", schema: { type: "string", format: "uuid" } },
    "RateLimit-Limit": { description: `Requests allowed per window (${RATE_LIMIT.limit}).`, schema: { type: "integer" } },
    "RateLimit-Remaining": { description: "Requests left in the rolling window.", schema: { type: "integer" } },
    "RateLimit-Reset": { description: "Seconds until the oldest counted request leaves the window.", schema: { type: "integer" } },
    "RateLimit-Policy": {
      description: `IETF draft: \`"default";q=${RATE_LIMIT.limit};w=${RATE_LIMIT.window}\`.`,
      schema: { type: "string" },
    },
    "RateLimit": { description: 'IETF draft: `"default";r=<remaining>;t=<seconds>`.', schema: { type: "string" } },
    "ETag": {
      description:
        '`"<version>"`: the tournament\'s version (contract section 14). Send it back in `If-None-Match` (reads: 304 while nothing changed) or `If-Match` (writes: 412 if something did).',
      schema: { type: "string", pattern: '^"[0-9]+"$' },
    },
    "Location": { description: "The created resource's URL.", schema: { type: "string", format: "uri" } },
    "Idempotent-Replayed": {
      description: "`true` when this is the saved response to an earlier request with the same Idempotency-Key.",
      schema: { type: "string", enum: ["true"] },
    },
  };
}

function exampleOf(schema: z.ZodType): unknown {
  const meta = (schema as unknown as { meta(): { example?: unknown } | undefined }).meta();
  return meta?.example;
}

/** Whether a route is about one tournament: its reads take If-None-Match, its writes If-Match. */
const conditional = (route: Route) => !route.stream && route.method !== "POST" && /^\/tournaments\/\{(id|tournament_id)\}/.test(route.path);

/** A bracket picture's 200: SVG text or PNG bytes. */
function pictureContent(kind: "svg" | "png"): Json {
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

const SSE_EXAMPLE =
  'id: 8\nevent: results\ndata: {"tournament":{"id":"…","format":"single_elimination","status":"ongoing","stage":1,"version":8},"matches":[…],"standings":[…]}\n\n: keep-alive\n\nid: 9\nevent: results\ndata: {"tournament":{…,"version":9},"matches":[{…the match reported…},{…the match its winner went to…}],"removed_matches":[],"standings":[…]}\n\nretry: 1000\n\n';

function operation(route: Route): Json {
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
            meta: { timestamp: "2026-11-21T10:00:00.000Z", api_version: API_VERSION, request_id: models.EXAMPLE_IDS.request },
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
            meta: { timestamp: "2026-11-21T10:00:00.000Z", api_version: API_VERSION, request_id: models.EXAMPLE_IDS.request },
          },
        },
      },
    };
  }

  return {
    operationId: route.op.replace(/\.(\w)/, (_, c: string) => c.toUpperCase()) + (route.picture ? route.picture.toUpperCase() : ""),
    summary: route.summary,
    description: `${route.description ? route.description + "\n\n" : ""}${
      route.scope ? `Requires the scope \`${route.scope}\`.` : "Any valid key, whatever its scopes."
    }`,
    tags: [tagOf(route.path)],
    security: [{ apiKey: route.scope ? [route.scope] : [] }],
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

const WEBHOOK_HEADERS: Json[] = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    schema: { type: "string", format: "uuid" },
    description: "The event's id: the same on every retry and to every endpoint. Deduplicate on it.",
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
    description: "Unix seconds of this attempt. Reject a timestamp too far from your clock (Standard Webhooks' libraries allow 5 minutes).",
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    schema: { type: "string" },
    description:
      "`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded part of the secret after `whsec_`. During the 24 hours after a rotation: two, space-separated, the new secret's first.",
  },
];

/** The top-level `webhooks` (OpenAPI 3.1): each event's POST to the endpoint's URL. */
function eventDocuments(): Json {
  const out: Json = {};
  for (const { type, data, summary } of webhooks.eventPayloads) {
    const schema = {
      type: "object",
      required: ["type", "timestamp", "data"],
      properties: {
        type: { const: type },
        timestamp: { type: "string", format: "date-time", description: "When the change committed (UTC)." },
        data: schemaOf(data),
      },
    };
    out[type] = {
      post: {
        summary,
        description:
          `${summary}\n\nSent as \`POST\` to each enabled endpoint subscribed to \`${type}\` (or \`*\`), with \`content-type: application/json\` and \`user-agent: TournamentAPI-Webhooks/1.0\`. Answer any 2xx within 10 seconds; anything else (a 3xx included: redirects are not followed) is retried after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h, then given up.`,
        operationId: `event_${type.replace(".", "_")}`,
        tags: ["Webhooks"],
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { "application/json": { schema } } },
        responses: { "2XX": { description: "Received; any 2xx within the timeout is a success." } },
      },
    };
  }
  return out;
}

function tagOf(path: string): string {
  if (path.includes("/registrations")) return "Registrations";
  if (path.includes("/results") || path.includes("/matches") || path.includes("/stages") || path.includes("/bracket.")) return "Results";
  if (path.startsWith("/teams")) return "Teams";
  if (path === "/me") return "Keys";
  if (path.startsWith("/webhooks")) return "Webhooks";
  return "Tournaments";
}

/** The OpenAPI 3.1 document of /api/v1. */
/** The default first server: the local stack of `npm start`. */
export const LOCAL_SERVER_URL = "http://127.0.0.1:54321/functions/v1/api/v1";

/**
 * The OpenAPI 3.1 document. `serverUrl` is the first server listed: where the document is
 * served from (the function passes its public base URL); the committed copy names the local
 * stack's default.
 */
export function openApiDocument({ serverUrl = LOCAL_SERVER_URL }: { serverUrl?: string } = {}): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  Object.assign(paths, publicPaths());
  return {
    openapi: "3.1.0",
    info: {
      title: "Tournament API",
      version: API_VERSION,
      summary: "Tournaments, team registrations, brackets and results for esports organisers.",
      description: [
        "Every request carries `Authorization: Bearer <API key>`; every operation but `GET /me` needs a scope on the key.",
        "Successes are `{success: true, data, pagination?, meta}`; errors are `{success: false, error: {code, message, details?}, meta}`.",
        "Checks run in this order: route (404/405) → key (401) → account enabled (403) → rate limit (429) → scope (403) → input (400/413/415) → existence (404) → state (409).",
        `Rate limit: ${RATE_LIMIT.limit} accepted requests per key in any rolling ${RATE_LIMIT.window} seconds; \`RateLimit-*\` headers on every authenticated response.`,
        "A known path with another method answers 405 with `Allow`. Browsers get CORS (`OPTIONS` preflight).",
        `Public view: a tournament with \`visibility: "public"\` is shown without a key under \`/public/tournaments/{slug}\` (its document, bracket pictures, a page that keeps itself current and its live stream), counted per client address (${PUBLIC_RATE_LIMIT.limit} requests per minute).`,
        'Change tracking: every tournament has a `version`, raised by each committed change to it, its stages, registrations, matches or games. Its reads answer `ETag: "<version>"` (304 with a matching `If-None-Match`), its writes take `If-Match` (412 `precondition_failed`); `GET .../results?since=<version>` gives only what changed; `GET .../stream` pushes each change as Server-Sent Events.',
      ].join("\n\n"),
    },
    servers: [
      { url: serverUrl, description: serverUrl === LOCAL_SERVER_URL ? "Local (npm start)" : "This server" },
      {
        url: "https://{project_ref}.supabase.co/functions/v1/api/v1",
        description: "Supabase",
        variables: { project_ref: { default: "your-project-ref" } },
      },
    ],
    tags: [
      { name: "Tournaments" },
      { name: "Registrations" },
      { name: "Results", description: "Brackets, match reports and standings." },
      { name: "Teams", description: "Platform teams and your account's own." },
      { name: "Keys", description: "The calling key." },
      { name: "Webhooks", description: "Endpoints that receive the account's events, and their deliveries." },
      {
        name: "Public",
        description:
          `Tournaments their owners made public (\`visibility: "public"\`), by slug, without a key: counted per client address (${PUBLIC_RATE_LIMIT.limit} requests per rolling minute), never per key. A private or unknown slug is 404.`,
      },
    ],
    security: [{ apiKey: [] }],
    paths,
    webhooks: eventDocuments(),
    components: {
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "tmk_<43 base62><6 base62 checksum>",
          description: `An API key made by the operator or in the account settings. Scopes: ${SCOPES.join(", ")}.`,
        },
      },
      schemas: componentSchemas(),
      responses: errorComponents(),
      headers: headerComponents(),
    },
  };
}

/** The public routes (contract section 15): no key, counted per client address. */
function publicPaths(): Record<string, Json> {
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

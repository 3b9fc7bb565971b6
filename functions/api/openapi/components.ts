// The OpenAPI document's components: the named schemas (response models as outputs, request
// bodies as inputs), the error responses every operation refers to, and the response headers.
import { z } from "zod";
import { API_VERSION } from "../envelope.ts";
import { type ErrorCode, RATE_LIMIT } from "../contract.ts";
import { DeleteResult, ErrorBody, EXAMPLE_IDS, Meta, Pagination } from "../resources/models/common.ts";
import { Tournament } from "../resources/models/tournaments.ts";
import { Team, TeamSummary } from "../resources/models/teams.ts";
import { LineupEntry, Registration } from "../resources/models/registrations.ts";
import { Me } from "../resources/models/keys.ts";
import { Game, LobbyGame, Match, Opponent, Results, Standing } from "../resources/models/matches.ts";
import { Qualifier, Stage, StageDetail } from "../resources/models/stages.ts";
import { PublicView } from "../resources/models/public.ts";
import { CreateTournament, UpdateTournament } from "../resources/tournaments.ts";
import { CreateRegistration, PutLineup, UpdateRegistration } from "../resources/registrations.ts";
import * as players from "../resources/players.ts";
import { Player, RosterMember } from "../resources/models/players.ts";
import { PutGame, ReportMatch, UpdateStage } from "../resources/results.ts";
import { CreateTeam, UpdateTeam } from "../resources/teams.ts";
import * as webhooks from "../resources/webhooks.ts";
import * as participants from "../resources/participants.ts";
import { ParticipantMe, ParticipantToken, ParticipantTokenItem, SignUpResult } from "../resources/models/participants.ts";

/** A piece of the document, as plain JSON. */
export type Json = Record<string, unknown>;
/** A reference to a component (`#/components/<kind>/<name>`). */
export const ref = (name: string, kind = "schemas") => ({ $ref: `#/components/${kind}/${name}` });

// Named component schemas: response models and request bodies.
const named: Record<string, z.ZodType> = {
  Tournament,
  TeamSummary,
  Registration,
  Match,
  Standing,
  Results,
  DeleteResult,
  Team,
  Me,
  Webhook: webhooks.Webhook,
  WebhookWithSecret: webhooks.WebhookWithSecret,
  WebhookDelivery: webhooks.Delivery,
  MatchWithTournament: webhooks.MatchWithTournament,
  StageWithTournament: webhooks.StageWithTournament,
  Stage,
  StageDetail,
  Qualifier,
  Game,
  LobbyGame,
  Opponent,
  Player,
  RosterMember,
  LineupEntry,
  PublicView,
  CreateWebhook: webhooks.CreateWebhook,
  UpdateWebhook: webhooks.UpdateWebhook,
  Pagination,
  Meta,
  Error: ErrorBody,
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
  ParticipantToken,
  ParticipantTokenItem,
  ParticipantMe,
  SignUpResult,
  CreateRegistrationToken: participants.CreateRegistrationToken,
  CreateSignupToken: participants.CreateSignupToken,
  SignUp: participants.SignUp,
  ParticipantLineup: participants.ParticipantLineup,
  CheckIn: participants.CheckIn,
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
  "ParticipantToken",
  "ParticipantTokenItem",
  "ParticipantMe",
  "SignUpResult",
]);

/** The named schemas as JSON Schema (`components.schemas`). */
export function componentSchemas(): Json {
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
export function schemaOf(schema: z.ZodType): Json {
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

/** The rate limit's response headers, in the order the document lists them. */
export const RATE_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "RateLimit"];

/** `components.responses`: `Error<status>` for each status an operation may answer with an error. */
export function errorComponents(): Json {
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
            meta: { timestamp: "2026-11-21T10:00:00.000Z", api_version: API_VERSION, request_id: EXAMPLE_IDS.request },
          },
        },
      },
    };
  }
  return out;
}

/** `components.headers`: the response headers operations refer to. */
export function headerComponents(): Json {
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

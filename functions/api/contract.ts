// The contract's constants, defined once: the scopes a key can carry, the page size, the rate
// limit and every error code with its HTTP status. zod schemas, the OpenAPI document, the
// admin CLI and the tests read them from here; the SQL side holds the same values (the
// app.scope type, the rate-limit ring) and tests/database/contract-constants.test.ts fails if the two drift.

/** Every permission a key can carry, in the order documentation lists them. */
export const SCOPES = [
  "read:tournaments",
  "write:tournaments",
  "read:registrations",
  "write:registrations",
  "read:results",
  "write:results",
  "read:teams",
  "write:teams",
  "read:webhooks",
  "write:webhooks",
] as const;

/** A permission a key can carry. */
export type Scope = (typeof SCOPES)[number];

/** Every permission a participant token can carry (contract section 17; SQL: app.participant_scopes()). */
export const PARTICIPANT_SCOPES = [
  "participant:register",
  "participant:lineup",
  "participant:check_in",
  "participant:withdraw",
  "participant:report",
] as const;

/** A permission a participant token can carry. */
export type ParticipantScope = (typeof PARTICIPANT_SCOPES)[number];

/** A registration token's scopes when the organiser names none. */
export const REGISTRATION_TOKEN_SCOPES = [
  "participant:lineup",
  "participant:check_in",
  "participant:withdraw",
  "participant:report",
] as const satisfies readonly ParticipantScope[];

/** A sign-up token may be used 1 to this many times (null: unlimited). */
export const SIGNUP_TOKEN_MAX_USES = 10_000;

/** The tournament formats the API offers (SQL: app.formats()). */
export const FORMATS = ["single_elimination", "double_elimination", "round_robin", "swiss", "ffa"] as const;

/** A tournament format. */
export type Format = (typeof FORMATS)[number];

/** The tie-breakers a round robin or swiss may list, in the contract's order (SQL: app.tie_breakers()). */
export const TIE_BREAKERS = [
  "head_to_head",
  "wins",
  "score_difference",
  "score_for",
  "buchholz",
  "median_buchholz",
  "sonneborn_berger",
  "forfeits",
] as const;

/** The tie-breakers a free-for-all stage may list, in the contract's order (SQL: app.ffa_tie_breakers()). */
export const FFA_TIE_BREAKERS = ["first_places", "best_placement", "kills", "last_game"] as const;

/** What a standing entry's `separated_by` may name: points, a tie-breaker, the seed, or disqualification. */
export const SEPARATED_BY = ["points", ...TIE_BREAKERS, ...FFA_TIE_BREAKERS, "seed", "disqualified"] as const;

/** A free-for-all stage's limits (contract section 20; SQL: app.ffa_options). */
export const FFA_LIMITS = {
  lobbySize: { min: 3, max: 100 },
  games: { min: 1, max: 20 },
  rounds: { min: 1, max: 20 },
  placementPoints: { max: 1000 },
  killPoints: { max: 100 },
  kills: { max: 1000 },
} as const;

/** Points per result are integers in this range (contract section 19). */
export const POINTS_RANGE = { min: -10, max: 100 } as const;

/** A tournament has 1 to this many stages (contract section 12). */
export const MAX_STAGES = 4;

/** The event types a webhook endpoint may subscribe to (SQL: app.webhook_event_types()). */
export const EVENT_TYPES = [
  "tournament.created",
  "tournament.updated",
  "tournament.started",
  "tournament.completed",
  "tournament.cancelled",
  "tournament.deleted",
  "registration.created",
  "registration.updated",
  "registration.withdrawn",
  "match.ready",
  "match.completed",
  "match.corrected",
  "match.scheduled",
  "match.game_reported",
  "match.reported",
  "match.disputed",
  "stage.started",
  "stage.completed",
] as const;

/** A webhook event type (webhook.test is sent on request, never subscribed to). */
export type EventType = (typeof EVENT_TYPES)[number];

/** At most this many webhook endpoints per account (409 webhook_limit_reached). */
export const WEBHOOK_LIMIT = 20;

/** List pagination: `limit` is 1..max (default `default`), `page` 1..maxPage. */
export const PAGE_SIZE = { default: 20, max: 100, maxPage: 999_999_999 } as const;

/** At most `limit` accepted requests per key in any rolling `window` seconds (contract 6). */
export const RATE_LIMIT = { limit: 100, window: 60 } as const;

/** The routes that need no key: at most `limit` requests per client address in any rolling `window` seconds (contract 15). */
export const PUBLIC_RATE_LIMIT = { limit: 300, window: 60 } as const;

/** The largest request body accepted, in bytes (413 payload_too_large). */
export const MAX_BODY_BYTES = 64 * 1024;

/** An Idempotency-Key is 1 to this many printable ASCII characters (contract 7). */
export const IDEMPOTENCY_KEY_MAX = 255;

/** The live stream (contract 14): a comment at least every `keepAliveMaxSeconds`, the stream ended after at most `maxSeconds`. */
export const STREAM_LIMITS = { keepAliveMaxSeconds: 15, maxSeconds: 120 } as const;

/** A lineup's caps (contract 16): the tournament's `substitutes_max` is 0 to `substitutesMax`; at most `coaches` coaches. */
export const LINEUP_LIMITS = { substitutesMax: 50, coaches: 2 } as const;

/** Every error code the API can answer with, and its HTTP status (contract section 2). */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_error: 400,
  unauthorized: 401,
  api_access_disabled: 403,
  insufficient_scope: 403,
  team_not_owned: 403,
  not_found: 404,
  method_not_allowed: 405,
  registration_closed: 409,
  tournament_full: 409,
  already_registered: 409,
  invalid_status_transition: 409,
  tournament_locked: 409,
  match_not_ready: 409,
  match_locked: 409,
  idempotency_conflict: 409,
  team_in_use: 409,
  seed_taken: 409,
  check_in_closed: 409,
  webhook_limit_reached: 409,
  stage_tie: 409,
  series_decided: 409,
  external_id_taken: 409,
  player_in_use: 409,
  player_already_registered: 409,
  lineup_incomplete: 409,
  token_exhausted: 409,
  reporting_closed: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  precondition_failed: 412,
  idempotency_mismatch: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

/** An error code of the API. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every error code the API can answer with (contract section 2). */
export type ErrorCode =
  | "invalid_json"
  | "validation_error"
  | "unauthorized"
  | "api_access_disabled"
  | "insufficient_scope"
  | "not_found"
  | "method_not_allowed"
  | "registration_closed"
  | "tournament_full"
  | "already_registered"
  | "invalid_status_transition"
  | "tournament_locked"
  | "match_not_ready"
  | "match_locked"
  | "idempotency_conflict"
  | "idempotency_mismatch"
  | "payload_too_large"
  | "unsupported_media_type"
  | "rate_limited"
  | "internal_error"
  | "service_unavailable";

/** The HTTP status of each error code. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case "invalid_json":
    case "validation_error":
      return 400;
    case "unauthorized":
      return 401;
    case "api_access_disabled":
    case "insufficient_scope":
      return 403;
    case "not_found":
      return 404;
    case "method_not_allowed":
      return 405;
    case "registration_closed":
    case "tournament_full":
    case "already_registered":
    case "invalid_status_transition":
    case "tournament_locked":
    case "match_not_ready":
    case "match_locked":
    case "idempotency_conflict":
      return 409;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "idempotency_mismatch":
      return 422;
    case "rate_limited":
      return 429;
    case "internal_error":
      return 500;
    case "service_unavailable":
      return 503;
    default: {
      const unreachable: never = code;
      throw new Error(`unknown error code ${unreachable}`);
    }
  }
}

const codes = new Set<string>([
  "invalid_json", "validation_error", "unauthorized", "api_access_disabled", "insufficient_scope",
  "not_found", "method_not_allowed", "registration_closed", "tournament_full", "already_registered",
  "invalid_status_transition", "tournament_locked", "match_not_ready", "match_locked",
  "idempotency_conflict", "idempotency_mismatch", "payload_too_large", "unsupported_media_type",
  "rate_limited", "internal_error", "service_unavailable",
]);

/** Whether a string (such as a code raised by SQL) is one of the API's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && codes.has(value);
}

/** A field-level problem, as listed in `error.details`. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** An error answered to the client: the top-level handler turns it into the error envelope. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): number {
    return statusOf(this.code);
  }
}

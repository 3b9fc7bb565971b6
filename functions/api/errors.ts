import { ERROR_STATUS, type ErrorCode } from "./contract.ts";

export type { ErrorCode } from "./contract.ts";

/** The HTTP status of each error code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/** Whether a string (such as a code raised by SQL) is one of the API's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
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

import {
  errorEnvelope,
  type ApiErrorBody,
  type CodeWithStatus,
  type ErrorCode,
  type ErrorExtra,
} from "@/lib/api/schemas/errors";
import { DomainError, domainStatusOf } from "../errors";

/**
 * A domain error with its HTTP status fixed: the router's own refusals (credential, rate budget, body
 * size, outage), which carry headers too. Domain code throws `fail(code, ...)` (lib/service/errors.ts)
 * and leaves the status to the router.
 */
export class HttpError<C extends ErrorCode = ErrorCode> extends DomainError<C> {
  constructor(
    readonly status: number,
    messages: string | string[],
    code: C,
    extra?: ErrorExtra<C>,
    headers: Record<string, string> = {},
  ) {
    super(code, messages, extra);
    this.name = "HttpError";
    Object.assign(this.headers, headers);
  }

  override toBody(status: number = this.status): ApiErrorBody {
    return errorEnvelope(status, this.messages, this.code, this.extra);
  }
}

/**
 * The status an error escaping a handler answers with: its own if the router fixed one, else the one
 * the catalogue gives its code on this route (domainStatusOf).
 */
export function statusOf(error: DomainError, declared?: ReadonlyArray<{ status: number; code: string }>): number {
  return error instanceof HttpError ? error.status : domainStatusOf(error.code, declared);
}

// The helpers below, named after statuses, are the request gate's own refusals (validation, cursors,
// idempotency keys, credentials, scopes): domain code throws fail(code, message, extra) instead, and
// ESLint refuses these there (scripts/codemods/domain-errors.ts rewrites old calls). They take only
// codes the catalogue lists under their status.
export const badRequest = (messages: string | string[], code: CodeWithStatus<400> = "VALIDATION_FAILED") =>
  new HttpError(400, messages, code);
export const unauthorized = (
  message = "a valid API key or session is required",
  code: CodeWithStatus<401> = "UNAUTHENTICATED",
) => new HttpError(401, message, code);
export const forbidden = (message: string, code: CodeWithStatus<403> = "FORBIDDEN") =>
  new HttpError(403, message, code);
export const notFound = (what: string) => new HttpError(404, `${what} not found`, "NOT_FOUND");
export const conflict = <C extends CodeWithStatus<409>>(code: C, message: string, extra?: ErrorExtra<C>) =>
  new HttpError<C>(409, message, code, extra);
export const tooManyRequests = (
  retryAfterSeconds: number,
  message = "rate limit exceeded; retry after the number of seconds in Retry-After",
) =>
  new HttpError(
    429,
    message,
    "RATE_LIMITED",
    { retryAfter: retryAfterSeconds },
    { "retry-after": String(retryAfterSeconds) },
  );

/** Seconds a client is asked to wait when the database did not answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The database did not answer (refused, timed out, failing over): nothing was decided, and the same
 * request may be repeated after Retry-After. The router answers it for any route (errorResponse).
 */
export const serviceUnavailable = (retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS) =>
  new HttpError(
    503,
    "the service's database did not answer; retry after the number of seconds in Retry-After",
    "SERVICE_UNAVAILABLE",
    { retryAfter: retryAfterSeconds },
    { "retry-after": String(retryAfterSeconds) },
  );

/**
 * A body over the limit. `close` (the body was not read to its end: too large or too slow to drop,
 * or never sent after Expect: 100-continue) adds `Connection: close`, so the Node server drops the
 * socket once this answer is out instead of reading the rest.
 */
export const payloadTooLarge = (limitBytes: number, close = false) =>
  new HttpError(
    413,
    `the request body is larger than ${limitBytes / 1024} KiB`,
    "PAYLOAD_TOO_LARGE",
    {},
    close ? { connection: "close" } : {},
  );

/** A JSON body nested deeper than the limit (checked on the raw text, before it is parsed). */
export const bodyTooDeep = (maxDepth: number) =>
  new HttpError(400, `the JSON body nests arrays and objects deeper than ${maxDepth} levels`, "BODY_TOO_DEEP", {
    maxDepth,
  });

export function internalErrorBody(): ApiErrorBody {
  return { statusCode: 500, error: "Internal Server Error", message: "internal server error", code: "INTERNAL_ERROR" };
}

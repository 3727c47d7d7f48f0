import { HTTP_ERROR_NAMES, type ApiErrorBody, type CodeWithStatus, type ErrorCode, type ErrorExtra } from "@/lib/api/schemas/errors";

/**
 * The one error type of the service. Domain code throws it; the router turns it into the
 * envelope of DESIGN.md. Anything else that escapes is a bug and answers 500. Its code is one of
 * ERROR_CATALOGUE (lib/api/schemas/errors.ts), with that code's extra fields: a code outside the
 * catalogue, or extras of the wrong shape, do not compile.
 */
export class HttpError<C extends ErrorCode = ErrorCode> extends Error {
  readonly extra: Record<string, unknown>;

  constructor(
    readonly status: number,
    readonly messages: string | string[],
    readonly code?: C,
    extra?: ErrorExtra<C>,
    readonly headers: Record<string, string> = {},
  ) {
    super(Array.isArray(messages) ? messages.join("; ") : messages);
    this.name = "HttpError";
    this.extra = extra ?? {};
  }

  toBody(): ApiErrorBody {
    return {
      statusCode: this.status,
      error: HTTP_ERROR_NAMES[this.status] ?? "Error",
      message: this.messages,
      ...(this.code ? { code: this.code } : {}),
      ...this.extra,
    };
  }
}

// The helpers take only codes the catalogue lists under their status.
export const badRequest = (messages: string | string[], code: CodeWithStatus<400> = "VALIDATION_FAILED") => new HttpError(400, messages, code);
export const unauthorized = (message = "a valid API key or session is required", code: CodeWithStatus<401> = "UNAUTHENTICATED") => new HttpError(401, message, code);
export const forbidden = (message: string, code: CodeWithStatus<403> = "FORBIDDEN") => new HttpError(403, message, code);
export const notFound = (what: string) => new HttpError(404, `${what} not found`, "NOT_FOUND");
export const conflict = <C extends CodeWithStatus<409>>(code: C, message: string, extra?: ErrorExtra<C>) => new HttpError<C>(409, message, code, extra);
export const tooManyRequests = (retryAfterSeconds: number, message = "rate limit exceeded; retry after the number of seconds in Retry-After") =>
  new HttpError(429, message, "RATE_LIMITED", { retryAfter: retryAfterSeconds }, { "retry-after": String(retryAfterSeconds) });

/**
 * A body over the limit. `Connection: close` makes the Node server drop the socket once this answer
 * is out, instead of reading (and discarding) the rest of a body we already refused.
 */
export const payloadTooLarge = (limitBytes: number) =>
  new HttpError(413, `the request body is larger than ${limitBytes / 1024} KiB`, "PAYLOAD_TOO_LARGE", {}, { connection: "close" });

export function internalErrorBody(): ApiErrorBody {
  return { statusCode: 500, error: "Internal Server Error", message: "internal server error", code: "INTERNAL_ERROR" };
}

import type { ApiErrorBody, ErrorCode, ErrorExtra } from "./schemas/errors";

const ENVELOPE_FIELDS = new Set(["statusCode", "error", "message", "messages", "code"]);

/** A non-2xx answer from the service, with its envelope. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly body: ApiErrorBody;
  readonly retryAfterSeconds: number | null;
  /** The route that answered, as its definition names it ("GET /v1/jobs/:id"), for logs; null when unknown. */
  readonly route: string | null;

  constructor(
    status: number,
    body: ApiErrorBody,
    retryAfterSeconds: number | null = null,
    route: string | null = null,
  ) {
    super(body.message);
    this.name = "ApiError";
    this.status = status;
    this.code = body.code;
    this.body = body;
    this.retryAfterSeconds = retryAfterSeconds;
    this.route = route;
  }

  /**
   * The fields the envelope adds beside statusCode, error, message, messages and code (their schema per code
   * is in ERROR_CATALOGUE). Narrow with `is` to read them typed.
   */
  get extra(): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.body).filter(([key]) => !ENVELOPE_FIELDS.has(key)));
  }

  /** True when the service answered this code; narrows `extra` to that code's fields: `if (e.is("BID_ALREADY_PLACED")) e.extra.existingBidId`. */
  is<C extends ErrorCode>(code: C): this is ApiError & { readonly code: C; readonly extra: ErrorExtra<C> } {
    return this.code === code;
  }

  /** The messages as a list, for forms that show each one. */
  get messages(): string[] {
    return this.body.messages ?? [this.body.message];
  }
}

/** The service answered something that does not match the contract: a bug on one side. */
export class ApiContractError extends Error {
  constructor(
    message: string,
    readonly details: unknown,
  ) {
    super(message);
    this.name = "ApiContractError";
  }
}

/** The service could not be reached (after retries, for reads). */
export class ApiNetworkError extends Error {
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = "ApiNetworkError";
  }
}

/** For pages that show a service refusal instead of failing: the result, or the ApiError. */
export async function settle<T>(
  call: Promise<T>,
): Promise<{ result: T; error: null } | { result: null; error: ApiError }> {
  try {
    return { result: await call, error: null };
  } catch (error) {
    if (error instanceof ApiError) return { result: null, error };
    throw error;
  }
}

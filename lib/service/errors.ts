import {
  errorEnvelope,
  statusesOf,
  type ApiErrorBody,
  type ErrorCode,
  type ErrorExtra,
} from "@/lib/api/schemas/errors";

/**
 * The error a domain verb throws: a rule of ERROR_CATALOGUE (lib/api/schemas/errors.ts) by its code,
 * a sentence (or a list of problems) and that code's extra fields; never an HTTP status, which is the
 * router's business (statusOf). A code outside the catalogue, or extras of the wrong shape, do not
 * compile.
 */
export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  readonly extra: Record<string, unknown>;
  /** What a payment protocol carries beside the body (x402's PAYMENT-REQUIRED, PAYMENT-RESPONSE). */
  readonly headers: Record<string, string> = {};
  constructor(
    readonly code: C,
    readonly messages: string | string[],
    extra?: ErrorExtra<C>,
  ) {
    super(Array.isArray(messages) ? messages.join("; ") : messages);
    this.name = "DomainError";
    this.extra = extra ?? {};
  }

  /** The envelope the router answers with, under the status it chose. */
  toBody(status: number): ApiErrorBody {
    return errorEnvelope(status, this.messages, this.code, this.extra);
  }
}

/** `throw fail("JOB_NOT_OPEN", "the job is closed")`: the one way a verb refuses. */
export function fail<C extends ErrorCode>(code: C, messages: string | string[], extra?: ErrorExtra<C>): DomainError<C> {
  return new DomainError(code, messages, extra);
}

/**
 * The status a domain error answers with. Most codes have one. A code the catalogue lists under several
 * statuses (CLAIM_EXPIRED, NOT_CLAIMED, PROOF_CHECK_FAILED, PACK_NOT_APPROVED, KEY_REVOKED, KEY_EXPIRED)
 * names one rule met on routes that answer it differently: it answers with the status the route declares
 * for it in its `errors`, and with its first status on a route that declares none.
 */
export function domainStatusOf(code: ErrorCode, declared?: ReadonlyArray<{ status: number; code: string }>): number {
  const statuses = statusesOf(code);
  if (statuses.length === 1) return statuses[0]!;
  return declared?.find((e) => e.code === code && statuses.includes(e.status))?.status ?? statuses[0]!;
}

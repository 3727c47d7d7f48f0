import { z } from "zod";

/**
 * The one error envelope of the service (DESIGN.md), in the shape of a NestJS service because
 * clients of the real service expect it: validation errors carry a list of messages; others a
 * sentence; `code` names the rule, and some errors add fields (a forum duplicate adds existingId
 * and existingSlug).
 */
export const ApiErrorBody = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.union([z.string(), z.array(z.string())]),
    code: z.string().optional(),
  })
  .catchall(z.unknown());
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

/** Every machine-readable `code` the service answers with. */
export const ErrorCode = z.enum([
  "VALIDATION_FAILED",
  "UNAUTHENTICATED",
  "INVALID_CREDENTIALS",
  // Agent keys: a revoked or expired key is told apart from an unknown one
  "KEY_REVOKED",
  "KEY_EXPIRED",
  "SCOPE_NOT_GRANTABLE",
  "KEY_LIMIT_REACHED",
  "FORBIDDEN",
  "MISSING_SCOPE",
  "NOT_FOUND",
  "RATE_LIMITED",
  "PAYLOAD_TOO_LARGE",
  "BID_ALREADY_PLACED",
  "JOB_NOT_OPEN",
  "JOB_NOT_BIDDABLE",
  "AGENT_NOT_ACTIVE",
  "AGENT_AT_CAPACITY",
  "BID_NOT_PENDING",
  "BID_AMOUNT_MISMATCH",
  "OWN_JOB",
  "INVALID_STATE",
  "JOB_NOT_FUNDED",
  "ALREADY_FUNDED",
  "IDEMPOTENCY_KEY_REUSED",
  "IDEMPOTENCY_IN_PROGRESS",
  "INTERNAL_ERROR",
  // Job modes
  "JOB_NOT_CLAIMABLE",
  "ALREADY_CLAIMED",
  "NOT_CLAIMED",
  "SUBCONTRACTING_NOT_ALLOWED",
  "SUBCONTRACT_TOO_DEEP",
  "JOB_NOT_SHAREABLE",
  "CRITERION_NOT_MANUAL",
  "CRITERIA_NOT_MET",
  // The prober never fetches this marketplace itself
  "DELIVERABLE_URL_NOT_ALLOWED",
  "CRITERION_URL_NOT_ALLOWED",
]);

export const HTTP_ERROR_NAMES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

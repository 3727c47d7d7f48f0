// @agent-work-marketplace/sdk: the typed client of this repository's lib/api, packaged so that a
// program outside the app uses the very same route definitions, schemas and error codes (built by
// packages/sdk/build.mjs; the app and the SDK cannot drift apart).
export { createAwmClient, type AwmClientOptions } from "./client";
export {
  createApiClient,
  backoffDelay,
  parseRetryAfter,
  type ApiClient,
  type ApiClientOptions,
} from "../../../lib/api/client";
export { ApiError, ApiContractError, ApiNetworkError, settle } from "../../../lib/api/errors";
export { routes, type Routes, type RouteName } from "../../../lib/api/routes";
export type { RouteDef, RouteInput, RouteOutput, HttpMethod } from "../../../lib/api/contract";
export { ERROR_CATALOGUE, type ErrorCode, type ErrorExtra, type ApiErrorBody } from "../../../lib/api/schemas/errors";
export { EVENT_TYPES, type EventType } from "../../../lib/api/schemas/events";
export {
  verifyWebhookSignature,
  signWebhookPayload,
  webhookHeaders,
  standardWebhookSecret,
  WEBHOOK_ID_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_SECRET_PREFIX,
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type WebhookVerification,
} from "../../../lib/api/webhooks";
export { parseWebhook, WebhookEvent, WebhookVerificationError } from "./webhooks";
export * as schemas from "./schemas";
export { SDK_VERSION } from "./version";

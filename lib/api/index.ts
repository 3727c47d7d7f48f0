export { createApiClient, type ApiClient, type ApiClientOptions, backoffDelay, parseRetryAfter } from "./client";
export { ApiError, ApiContractError, ApiNetworkError } from "./errors";
export { routes } from "./routes";
export type { RouteDef, RouteInput, RouteOutput } from "./contract";

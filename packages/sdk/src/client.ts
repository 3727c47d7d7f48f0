import { createApiClient, type ApiClient, type ApiClientOptions } from "../../../lib/api/client";
import { SDK_VERSION } from "./version";

export interface AwmClientOptions extends Omit<ApiClientOptions, "baseUrl" | "token"> {
  /** Origin of the marketplace, e.g. https://market.example; default: the AWM_BASE_URL environment variable. */
  baseUrl?: string;
  /** The agent's API key (awm_sk_…); default: AWM_API_KEY. A human session token works too. */
  apiKey?: string;
}

function environment(): Record<string, string | undefined> {
  return typeof process === "undefined" ? {} : process.env;
}

/**
 * The typed client of the app itself (lib/api/client.ts: one method per route of /v1, responses
 * parsed with the route's schema, ApiError with the service's code), with the defaults of a
 * program running on its own: credentials from the environment, a User-Agent naming the SDK, and
 * an Idempotency-Key on every write to a route that honours one, so that those writes are retried
 * too (reads always are: 429 with its Retry-After, 5xx and network failures, exponential backoff
 * with full jitter).
 */
export function createAwmClient(options: AwmClientOptions = {}): ApiClient {
  const env = environment();
  const baseUrl = options.baseUrl ?? env.AWM_BASE_URL;
  if (!baseUrl) throw new TypeError("createAwmClient: baseUrl is required (or set AWM_BASE_URL)");
  const { apiKey, headers, ...rest } = options;
  return createApiClient({
    idempotencyKeys: "auto",
    ...rest,
    baseUrl,
    token: apiKey ?? (env.AWM_API_KEY || undefined),
    headers: { "user-agent": `awm-sdk/${SDK_VERSION}`, ...headers },
  });
}

import "server-only";
import { headers } from "next/headers";
import { apiBaseUrl, getEnv } from "@/lib/env";
import {
  CLIENT_IP_HEADER,
  DASHBOARD_CLIENT_HEADER,
  FORWARDED_HEADER,
  dashboardClientKey,
  signDashboardClient,
} from "@/lib/net/client-address.mjs";
import { sessionSecret } from "@/lib/server-secrets.mjs";
import { createApiClient, type ApiClient } from "./client";

let dashboardKey: Buffer | undefined;

/**
 * Headers with which this app's server, calling the built-in service for a visitor, speaks for them:
 * their address and whether they came through a proxy (both stamped on the visitor's request by
 * scripts/server.mjs) in x-awm-dashboard-client, signed with a key only this app holds
 * (lib/net/client-address.mjs), so that per-IP budgets count each visitor rather than this server,
 * and nobody else can choose an address that way. A remote service (API_BASE_URL) could not verify
 * it: nothing is sent then.
 */
export function speakForVisitor(incoming: Headers): Record<string, string> {
  const env = getEnv();
  const clientIp = incoming.get(CLIENT_IP_HEADER);
  if (!clientIp || env.API_BASE_URL) return {};
  dashboardKey ??= dashboardClientKey(sessionSecret(env));
  // Without server.mjs's verdict (e.g. `next dev`) the visitor counts as proxied: fail closed.
  return {
    [DASHBOARD_CLIENT_HEADER]: signDashboardClient(dashboardKey, clientIp, incoming.get(FORWARDED_HEADER) !== "0"),
  };
}

/** A client for a dashboard request, on the server, speaking for the browser (speakForVisitor). */
export async function apiWithToken(token?: string): Promise<ApiClient> {
  return createApiClient({
    baseUrl: apiBaseUrl(),
    token,
    headers: speakForVisitor(await headers()),
    // A person is waiting for this page: a rate limit is shown at once with its Retry-After
    // (pages say so), not waited out inside the render; a brief upstream hiccup is retried once.
    maxAttempts: 2,
    maxRetryAfterMs: 2_000,
    maxDelayMs: 1_000,
  });
}

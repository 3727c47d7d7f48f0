import "server-only";
import { headers } from "next/headers";
import { apiBaseUrl, getEnv } from "@/lib/env";
import { CLIENT_IP_HEADER, DASHBOARD_CLIENT_HEADER, FORWARDED_HEADER, dashboardClientKey, signDashboardClient } from "@/lib/net/client-address.mjs";
import { sessionSecret } from "@/lib/server-secrets.mjs";
import { createApiClient, type ApiClient } from "./client";

let dashboardKey: Buffer | undefined;

/**
 * A client for a dashboard request, on the server. Toward the built-in service it speaks for the
 * browser: its address and whether it came through a proxy (both stamped by scripts/server.mjs) in
 * x-awm-dashboard-client, signed with a key only this app holds (lib/net/client-address.mjs), so
 * that per-IP budgets count each visitor rather than the dashboard's own server, and nobody else
 * can choose an address that way. A remote service (API_BASE_URL) could not verify it: not sent.
 */
export async function apiForRequest(token?: string): Promise<ApiClient> {
  const env = getEnv();
  const incoming = await headers();
  const clientIp = incoming.get(CLIENT_IP_HEADER);
  const extra: Record<string, string> = {};
  if (clientIp && !env.API_BASE_URL) {
    dashboardKey ??= dashboardClientKey(sessionSecret(env));
    // Without server.mjs's verdict (e.g. `next dev`) the browser counts as proxied: fail closed.
    extra[DASHBOARD_CLIENT_HEADER] = signDashboardClient(dashboardKey, clientIp, incoming.get(FORWARDED_HEADER) !== "0");
  }
  return createApiClient({
    baseUrl: apiBaseUrl(),
    token,
    headers: extra,
    // A person is waiting for this page: a rate limit is shown at once with its Retry-After
    // (pages say so), not waited out inside the render; a brief upstream hiccup is retried once.
    maxAttempts: 2,
    maxRetryAfterMs: 2_000,
    maxDelayMs: 1_000,
  });
}

import "server-only";
import { headers } from "next/headers";
import { apiBaseUrl } from "@/lib/env";
import { createApiClient, type ApiClient } from "./client";

/**
 * A client for a dashboard request, on the server. It forwards the browser's address (stamped by
 * scripts/server.mjs) so that the service's per-IP read budget counts each visitor, not the
 * dashboard's own server; the service believes it from loopback peers only.
 */
export async function apiForRequest(token?: string): Promise<ApiClient> {
  const incoming = await headers();
  const clientIp = incoming.get("x-awm-client-ip");
  return createApiClient({
    baseUrl: apiBaseUrl(),
    token,
    headers: clientIp ? { "x-forwarded-for": clientIp } : {},
    // A person is waiting for this page: a rate limit is shown at once with its Retry-After
    // (pages say so), not waited out inside the render; a brief upstream hiccup is retried once.
    maxAttempts: 2,
    maxRetryAfterMs: 2_000,
    maxDelayMs: 1_000,
  });
}

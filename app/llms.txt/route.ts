import { buildLlmsTxt } from "@/lib/discovery/llms-txt";
import { discoveryResponse, discoverySiteUrl } from "@/lib/discovery/site";
import { getEnv } from "@/lib/env";

// Generated from the route definitions on each request (cheap), for this deployment's URL.
export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  const siteUrl = discoverySiteUrl(request, getEnv().SITE_URL);
  return discoveryResponse(buildLlmsTxt(siteUrl), "text/plain; charset=utf-8");
}

import { buildSkillMd } from "@/lib/discovery/skill-md";
import { discoveryResponse, discoverySiteUrl } from "@/lib/discovery/site";
import { getEnv } from "@/lib/env";

// Generated from the route definitions on each request (cheap), for this deployment's URL.
export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  const siteUrl = discoverySiteUrl(request, getEnv().SITE_URL);
  return discoveryResponse(buildSkillMd(siteUrl), "text/markdown; charset=utf-8");
}

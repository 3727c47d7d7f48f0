import { DISCOVERY_HANDLERS } from "@/lib/discovery/handlers";
import { DISCOVERY_PATHS } from "@/lib/discovery/site";
import { getEnv } from "@/lib/env";

export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  return DISCOVERY_HANDLERS[DISCOVERY_PATHS.skill]!(request, getEnv().SITE_URL);
}

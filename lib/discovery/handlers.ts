import { agentCardJson } from "./agent-card";
import { buildLlmsTxt } from "./llms-txt";
import { buildMcpCard } from "./mcp-card";
import { DISCOVERY_PATHS, discoveryResponse, discoverySiteUrl } from "./site";
import { buildSkillMd } from "./skill-md";

type Handler = (request: Request, configuredSiteUrl: string | undefined) => Response;

/**
 * The discovery files' GET handlers, by path: app/ mounts each at its path, tests serve them the
 * same way. Generated on each request (cheap) for this deployment's URL.
 */
export const DISCOVERY_HANDLERS: Record<string, Handler> = {
  [DISCOVERY_PATHS.agentCard]: (request, configured) =>
    discoveryResponse(
      JSON.stringify(agentCardJson(discoverySiteUrl(request, configured)), null, 2),
      "application/json",
    ),
  [DISCOVERY_PATHS.mcpCard]: (request, configured) =>
    discoveryResponse(JSON.stringify(buildMcpCard(discoverySiteUrl(request, configured)), null, 2), "application/json"),
  [DISCOVERY_PATHS.skill]: (request, configured) =>
    discoveryResponse(buildSkillMd(discoverySiteUrl(request, configured)), "text/markdown; charset=utf-8"),
  [DISCOVERY_PATHS.llms]: (request, configured) =>
    discoveryResponse(buildLlmsTxt(discoverySiteUrl(request, configured)), "text/plain; charset=utf-8"),
};

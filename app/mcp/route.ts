import { apiBaseUrl } from "@/lib/env";
import { speakForVisitor } from "@/lib/api/for-request";
import { handleMcpRequest } from "@/lib/mcp/server";
import { DISCOVERY_PATHS, absolute, discoverySiteUrl } from "@/lib/discovery/site";

// The MCP endpoint (Streamable HTTP, stateless). The tools call this site's own /v1 service over
// HTTP with the caller's agent key, so every rule of the API applies to them unchanged.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

async function handle(request: Request): Promise<Response> {
  // The agent's address (stamped by scripts/server.mjs), passed on signed, so the per-IP budgets
  // count the agent, not this server.
  const docsUrl = absolute(discoverySiteUrl(request, process.env.SITE_URL), DISCOVERY_PATHS.skill);
  return handleMcpRequest(request, {
    apiBaseUrl: apiBaseUrl(),
    forwardHeaders: speakForVisitor(request.headers),
    docsUrl,
  });
}

export { handle as GET, handle as POST, handle as DELETE };

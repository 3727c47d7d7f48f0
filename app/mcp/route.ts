import { apiBaseUrl } from "@/lib/env";
import { handleMcpRequest } from "@/lib/mcp/server";

// The MCP endpoint (Streamable HTTP, stateless). The tools call this site's own /v1 service over
// HTTP with the caller's agent key, so every rule of the API applies to them unchanged.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

async function handle(request: Request): Promise<Response> {
  // scripts/server.mjs stamps the visitor's address; passed on, the per-IP budgets count the
  // agent, not this server (the service believes it from loopback peers only).
  const clientIp = request.headers.get("x-awm-client-ip");
  return handleMcpRequest(request, { apiBaseUrl: apiBaseUrl(), forwardHeaders: clientIp ? { "x-forwarded-for": clientIp } : {} });
}

export { handle as GET, handle as POST, handle as DELETE };

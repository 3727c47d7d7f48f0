import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { routes } from "@/lib/api/routes";
import { MCP_SERVER_INFO } from "@/lib/mcp/server";
import { agentTools, toolsetNames } from "@/lib/mcp/tools";
import { DISCOVERY_PATHS, SITE_DESCRIPTION, SITE_NAME, absolute } from "./site";

/**
 * /.well-known/mcp.json: an MCP server card (the shape proposed for MCP discovery: server info,
 * transport, authentication, tools) so a host can configure the server without connecting first.
 * The tools are the same generated list the server answers tools/list with.
 */
export function buildMcpCard(siteUrl: string) {
  return {
    name: MCP_SERVER_INFO.name,
    title: SITE_NAME,
    description: SITE_DESCRIPTION,
    version: MCP_SERVER_INFO.version,
    serverInfo: { ...MCP_SERVER_INFO, title: SITE_NAME },
    protocolVersions: SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v >= "2025-06-18"),
    transport: { type: "streamable-http", url: absolute(siteUrl, DISCOVERY_PATHS.mcp), stateless: true },
    remotes: [{ type: "streamable-http", url: absolute(siteUrl, DISCOVERY_PATHS.mcp) }],
    authentication: {
      required: true,
      schemes: ["bearer"],
      description: `Authorization: Bearer <agent API key>. Get a key with POST ${absolute(siteUrl, routes.signUpAgent.path)} (see ${absolute(siteUrl, DISCOVERY_PATHS.skill)}).`,
    },
    stdio: {
      command: "npm",
      args: ["run", "mcp", "--", "--base-url", siteUrl.replace(/\/+$/, "")],
      env: { AWM_API_KEY: "<agent API key>" },
      note: "from a checkout of this repository",
    },
    capabilities: { tools: { listChanged: false } },
    // The core toolset is served by default; the others are added with ?toolsets=<names> (or all).
    toolsets: toolsetNames(),
    defaultToolsets: ["core"],
    tools: agentTools().map(({ name, title, toolset, annotations }) => ({ name, title, toolset, annotations })),
    documentation: absolute(siteUrl, DISCOVERY_PATHS.skill),
    openapi: absolute(siteUrl, DISCOVERY_PATHS.openapi),
  };
}

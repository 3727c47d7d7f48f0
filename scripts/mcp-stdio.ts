// The marketplace's MCP tools over stdio, for hosts that start MCP servers as processes:
//   AWM_API_KEY=<agent key> npm run mcp -- --base-url https://marketplace.example [--toolsets forum,evals|all]
// The same tools as /mcp (lib/mcp), calling the /v1 API at --base-url with the agent's key.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createApiClient } from "@/lib/api/client";
import { createMcpServer } from "@/lib/mcp/server";
import { toolsFor } from "@/lib/mcp/tools";

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  if (index !== -1) return process.argv[index + 1];
  return process.argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

const baseUrl = argument("--base-url") ?? process.env.AWM_BASE_URL ?? "http://localhost:3000";
const apiKey = process.env.AWM_API_KEY;
if (!apiKey) {
  // stdout belongs to the protocol: messages go to stderr.
  console.error("AWM_API_KEY is not set: export the agent's API key (from POST /v1/agent-signups) first.");
  process.exit(2);
}

// --toolsets forum,evals (or all) adds toolsets to the core one, as ?toolsets= does on /mcp.
const client = createApiClient({ baseUrl, token: apiKey });
const server = createMcpServer(client, {
  tools: toolsFor((argument("--toolsets") ?? process.env.AWM_TOOLSETS ?? "").split(",")),
  selfAgentId: async () => (await client.getMyAgent({})).data.id,
});
await server.connect(new StdioServerTransport());
console.error(`agent-work-marketplace MCP server on stdio, calling ${baseUrl}`);

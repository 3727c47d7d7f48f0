import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { createApiClient, type ApiClient } from "@/lib/api/client";
import { ApiError } from "@/lib/api/errors";
import { agentTools, callTool } from "./tools";

export const MCP_SERVER_INFO = { name: "agent-work-marketplace", version: "1.0.0" };

const INSTRUCTIONS =
  "Tools of the Agent Work Marketplace /v1 API, acting as the agent whose API key authenticates this connection. " +
  "Call heartbeat once to become ACTIVE, list_jobs to find OPEN work, place_bid (or claim_job for a bounty), " +
  "then submit_deliverable with a public URL of the work. Errors are the API's error envelope.";

/**
 * An MCP server over one API client (the agent's key). The low-level Server is used rather than
 * McpServer.registerTool because the tools' input schemas are JSON Schema generated from the
 * route definitions (z.toJSONSchema), and the service validates the arguments itself.
 */
export function createMcpServer(client: ApiClient): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const tools = agentTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
    return callTool(client, tool, request.params.arguments ?? {});
  });
  return server;
}

export interface McpHttpOptions {
  /** Origin of the /v1 service the tools call (the site's own, or a test service). */
  apiBaseUrl: string;
  /** Headers passed on to every API call, e.g. the visitor's address for per-IP budgets. */
  forwardHeaders?: Record<string, string>;
  fetch?: typeof fetch;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

function unauthorized(message: string): Response {
  return json(401, { statusCode: 401, error: "Unauthorized", message: [message] }, { "www-authenticate": 'Bearer realm="mcp", error="invalid_token"' });
}

/**
 * The largest MCP message taken: the API's own body limit (256 KiB) plus room for the JSON-RPC
 * envelope. Read with a cap, so a huge or endless body is cut off rather than buffered.
 */
export const MAX_MCP_BODY_BYTES = 320 * 1024;

async function readLimited(request: Request, limit: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Streamable HTTP, stateless: every POST carries the agent key and gets a fresh server and
 * transport (no session to keep, so any instance of the app can answer). There is no server-sent
 * stream to resume, so GET and DELETE answer 405 as the transport specification allows.
 */
export async function handleMcpRequest(request: Request, options: McpHttpOptions): Promise<Response> {
  if (request.method !== "POST") {
    return json(405, { statusCode: 405, error: "Method Not Allowed", message: ["POST JSON-RPC messages to this endpoint (stateless Streamable HTTP)"] }, { allow: "POST" });
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!match) return unauthorized("send the agent's API key as Authorization: Bearer <key>");
  const client = createApiClient({ baseUrl: options.apiBaseUrl, token: match[1], headers: options.forwardHeaders, fetch: options.fetch, maxAttempts: 2 });

  const text = await readLimited(request, MAX_MCP_BODY_BYTES);
  if (text === null) {
    return json(413, { statusCode: 413, error: "Payload Too Large", message: [`an MCP message is at most ${MAX_MCP_BODY_BYTES} bytes`], code: "PAYLOAD_TOO_LARGE" });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json(400, { jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError, message: "Parse error: the body is not JSON" } });
  }
  // The key is checked when a client connects (initialize), so a wrong key is a 401 at once rather
  // than a failure on its first tool call; every later call is checked by the service itself.
  const messages = Array.isArray(body) ? body : [body];
  if (messages.some((m) => (m as { method?: unknown })?.method === "initialize")) {
    try {
      await client.getMyAgent({});
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 429) return json(429, error.body, error.retryAfterSeconds === null ? {} : { "retry-after": String(Math.ceil(error.retryAfterSeconds)) });
      // A key the service refuses, or a credential that is no agent's (a person's session): 401.
      if (error.status < 500) return unauthorized(`an agent API key is required: ${error.messages.join("; ")}`);
      throw error;
    }
  }

  const server = createMcpServer(client);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    // The JSON answer is complete once handleRequest resolves; nothing of this request lives on.
    void server.close();
  }
}

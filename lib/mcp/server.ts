import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { createApiClient, type ApiClient } from "@/lib/api/client";
import { ApiError } from "@/lib/api/errors";
import { errorEnvelope } from "@/lib/api/schemas/errors";
import { PROOF_HOLD_RULE } from "@/lib/discovery/site";
import { agentTools, callTool, toolsFor, UnknownToolsetError, type ToolDef } from "./tools";

export const MCP_SERVER_INFO = { name: "agent-work-marketplace", version: "1.0.0" };

const INSTRUCTIONS =
  "Tools of the Agent Work Marketplace, acting as the agent whose API key authenticates this connection (the agent is implied: no tool asks for your own id). " +
  "The loop: heartbeat once to become ACTIVE; set_payout_wallet so approved work can pay you; list_jobs (status OPEN, funded true) to find work; " +
  "send_job_message to ask the poster before you bid (a bid is final); place_bid (or claim_job for a bounty); submit_deliverable with a public URL of the work; " +
  "list_my_events to follow what happened (bids accepted, payments, messages), oldest first from your last cursor. " +
  "More tools (forum, evals, disputes, rewards, profiles, webhooks, ...) are opted into with /mcp?toolsets=<names> or toolsets=all. " +
  "A failed call is a tool error carrying the API's error envelope (statusCode, code, message). " +
  `Getting paid: ${PROOF_HOLD_RULE} (list_jobs takes maxProofHoldHours; every job shows its proofHoldHours.)`;

export interface McpServerOptions {
  /** The tools this connection serves (the core toolset by default). */
  tools?: ToolDef[];
  /** The calling agent's id, for arguments the key implies; asked at most once per server. */
  selfAgentId: () => Promise<string>;
}

/**
 * An MCP server over one API client (the agent's key). The low-level Server is used rather than
 * McpServer.registerTool because the tools' schemas are JSON Schema generated from the route
 * definitions (z.toJSONSchema), and the service validates the arguments itself.
 */
export function createMcpServer(client: ApiClient, options: McpServerOptions): Server {
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  const tools = options.tools ?? toolsFor();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  let self: Promise<string> | undefined;
  const selfAgentId = () => (self ??= options.selfAgentId());

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${request.params.name}${agentTools().some((t) => t.name === request.params.name) ? " (in a toolset this connection did not ask for: see ?toolsets=)" : ""}`,
      );
    return callTool(client, tool, request.params.arguments ?? {}, selfAgentId);
  });
  return server;
}

export interface McpHttpOptions {
  /** Origin of the /v1 service the tools call (the site's own, or a test service). */
  apiBaseUrl: string;
  /** Headers passed on to every API call, e.g. the visitor's address for per-IP budgets. */
  forwardHeaders?: Record<string, string>;
  fetch?: typeof fetch;
  /** Where an agent learns how to get a key (the 401's error_uri). */
  docsUrl?: string;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/**
 * The 401 of every refused request. The key is a bearer token this service issues itself (POST
 * /v1/agent-signups); there is no OAuth authorization server, so the challenge names no
 * resource_metadata (RFC 9728): pointing a client at protected-resource metadata would start a
 * discovery that cannot end in a token. It says what RFC 6750 says: the scheme and realm, and for
 * a key that was sent, error="invalid_token" with a description; error_uri is where keys come from.
 */
export function mcpChallenge(sent: boolean, description: string, docsUrl?: string): string {
  const quoted = (value: string) => `"${value.replace(/["\\]/g, "'")}"`;
  const parts = [`realm=${quoted(MCP_SERVER_INFO.name)}`];
  if (sent) parts.push('error="invalid_token"', `error_description=${quoted(description)}`);
  if (docsUrl) parts.push(`error_uri=${quoted(docsUrl)}`);
  return `Bearer ${parts.join(", ")}`;
}

function unauthorized(sent: boolean, message: string, docsUrl?: string): Response {
  return json(401, errorEnvelope(401, message, "UNAUTHENTICATED"), {
    "www-authenticate": mcpChallenge(sent, message, docsUrl),
  });
}

/**
 * A credential the service refused, answered as the service answered it (its status, and its
 * envelope: KEY_REVOKED, KEY_EXPIRED, INVALID_CREDENTIALS, or FORBIDDEN for a person's session,
 * which is no agent's), so an agent's error handling is the same over MCP and REST; with the
 * Bearer challenge.
 */
function refusedCredential(error: ApiError, docsUrl?: string): Response {
  const message = `an agent API key is required: ${error.messages.join("; ")}`;
  const status = error.status === 403 ? 403 : 401;
  return json(status, error.body, { "www-authenticate": mcpChallenge(true, message, docsUrl) });
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

/** The toolsets a request asks for: `?toolsets=forum,evals` (repeatable), or `all`. */
export function requestedToolsets(url: URL): string[] {
  return url.searchParams.getAll("toolsets").flatMap((v) => v.split(","));
}

/**
 * Streamable HTTP, stateless: every POST carries the agent key and gets a fresh server and
 * transport (no session to keep, so any instance of the app can answer). There is no server-sent
 * stream to resume, so GET and DELETE answer 405 as the transport specification allows.
 *
 * Every request is authenticated before it is answered, tools/list included: the key is checked
 * with the service (GET /v1/agents/me), so a missing, unknown, revoked or expired key is an HTTP 401
 * (a person's session, a credential that is no agent's, a 403) with a Bearer challenge and REST's own
 * error code, never a 200 whose error hides inside a tool result. The same answer names the agent
 * the key implies.
 */
export async function handleMcpRequest(request: Request, options: McpHttpOptions): Promise<Response> {
  if (request.method !== "POST") {
    return json(405, errorEnvelope(405, "POST JSON-RPC messages to this endpoint (stateless Streamable HTTP)"), {
      allow: "POST",
    });
  }
  let tools: ToolDef[];
  try {
    tools = toolsFor(requestedToolsets(new URL(request.url)));
  } catch (error) {
    if (!(error instanceof UnknownToolsetError)) throw error;
    return json(400, errorEnvelope(400, [error.message], "VALIDATION_FAILED"));
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!match) return unauthorized(false, "send the agent's API key as Authorization: Bearer <key>", options.docsUrl);
  const client = createApiClient({
    baseUrl: options.apiBaseUrl,
    token: match[1],
    headers: options.forwardHeaders,
    fetch: options.fetch,
    maxAttempts: 2,
  });

  const text = await readLimited(request, MAX_MCP_BODY_BYTES);
  if (text === null) {
    return json(413, errorEnvelope(413, `an MCP message is at most ${MAX_MCP_BODY_BYTES} bytes`, "PAYLOAD_TOO_LARGE"));
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json(400, {
      jsonrpc: "2.0",
      id: null,
      error: { code: ErrorCode.ParseError, message: "Parse error: the body is not JSON" },
    });
  }

  let agentId: string;
  try {
    agentId = (await client.getMyAgent({})).data.id;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 429)
      return json(
        429,
        error.body,
        error.retryAfterSeconds === null ? {} : { "retry-after": String(Math.ceil(error.retryAfterSeconds)) },
      );
    // A key the service refuses (401), or a credential that is no agent's (a person's session, 403).
    if (error.status < 500) return refusedCredential(error, options.docsUrl);
    throw error;
  }

  const server = createMcpServer(client, { tools, selfAgentId: async () => agentId });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    // The JSON answer is complete once handleRequest resolves; nothing of this request lives on.
    void server.close();
  }
}

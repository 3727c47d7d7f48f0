import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@/lib/api/routes";
import type { RouteDef } from "@/lib/api/contract";
import { GENEROUS_BUDGETS, jobInput, newAgent, newClientIp, newUser, startTestService, type TestService } from "@/lib/service/testing/harness";
import { MAX_MCP_BODY_BYTES, handleMcpRequest } from "./server";
import { AGENT_TOOL_ROUTES, agentToolRouteNames, agentTools, toolFromRoute, toolNameOf } from "./tools";

// The real Streamable HTTP transport: the same handler app/mcp/route.ts mounts, on a loopback
// server in front of the test service, driven by the official MCP TypeScript SDK client.
let service: TestService;
let front: ServerType;
let mcpUrl: URL;

beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
  front = await new Promise<ServerType>((resolve) => {
    const s = serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => handleMcpRequest(request, { apiBaseUrl: service.baseUrl, forwardHeaders: { "x-forwarded-for": newClientIp() } }) }, () => resolve(s));
  });
  mcpUrl = new URL(`http://127.0.0.1:${(front.address() as AddressInfo).port}/mcp`);
});
afterAll(async () => {
  await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
  await service?.stop();
});

async function connect(apiKey: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "awm-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } });
  await client.connect(transport);
  return { client, transport };
}

const resultJson = (result: unknown) => JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text);

describe("the tool list", () => {
  it("is generated from the routes: every tool is a chosen route, and every chosen route that exists is a tool", () => {
    const tools = agentTools();
    const all = routes as Record<string, RouteDef>;
    for (const tool of tools) {
      expect(all[tool.routeName], tool.name).toBe(tool.route);
      expect(tool.name).toBe(toolNameOf(tool.routeName));
    }
    const expected = [...AGENT_TOOL_ROUTES.filter((name) => name in all), ...Object.keys(all).filter((n) => ["Webhooks", "Progress"].includes(all[n]!.tag) && !(AGENT_TOOL_ROUTES as readonly string[]).includes(n))];
    expect(tools.map((t) => t.routeName).sort()).toEqual([...new Set(expected)].sort());
    // The brief's operations are all there (progress and webhooks join once their routes exist).
    for (const name of ["list_jobs", "get_job", "place_bid", "withdraw_bid", "claim_job", "submit_deliverable", "list_proof_checks", "list_threads", "get_thread", "create_thread", "create_reply", "list_my_rewards", "list_eval_packs", "start_eval_attempt"]) {
      expect(tools.map((t) => t.name)).toContain(name);
    }
  });

  it("adapts when a route is added under an agent tag, and takes a route's path, query and body as arguments", () => {
    const placeBid = routes.placeBid as RouteDef;
    const withWebhook = { ...routes, createWebhook: { ...placeBid, tag: "Webhooks", path: "/v1/webhooks" } } as Record<string, RouteDef>;
    expect(agentToolRouteNames(withWebhook)).toContain("createWebhook");
    const tool = toolFromRoute("placeBid", placeBid);
    expect(tool.inputSchema.required).toEqual(["id", "body"]);
    expect(Object.keys(tool.inputSchema.properties)).toEqual(["id", "body"]);
    expect(toolFromRoute("listJobs", routes.listJobs as RouteDef).annotations.readOnlyHint).toBe(true);
  });
});

describe("POST /mcp (Streamable HTTP)", () => {
  it("answers 401 without an agent key or with a wrong one, 405 to GET, 413 past the body limit, 400 to a body that is not JSON", async () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(initialize) });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await post({ authorization: "Bearer awm_not_a_real_key" })).status).toBe(401);
    // A person's session token is no agent key.
    const person = await newUser(service);
    expect((await post({ authorization: `Bearer ${person.token}` })).status).toBe(401);
    await expect(connect("awm_not_a_real_key")).rejects.toThrow();
    expect((await fetch(mcpUrl)).status).toBe(405);

    const agent = await newAgent(service);
    // A body past the limit is refused before it is buffered or parsed.
    const huge = await fetch(mcpUrl, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${agent.apiKey}` }, body: `"${"x".repeat(MAX_MCP_BODY_BYTES)}"` });
    expect(huge.status).toBe(413);
    const notJson = await fetch(mcpUrl, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${agent.apiKey}` }, body: "{nope" });
    expect(notJson.status).toBe(400);
    const ok = await post({ authorization: `Bearer ${agent.apiKey}` });
    expect(ok.status).toBe(200);
    expect((await ok.json()).result.protocolVersion).toBe("2025-06-18");
  });

  it("the SDK client connects with an agent key, lists the tools, finds an open job and bids; the poster sees the bid", async () => {
    const poster = await newUser(service);
    const job = (await poster.client.createJob({ body: jobInput({ title: "Summarise 20 papers on MCP security" }) })).data;
    const agent = await newAgent(service);
    const { client, transport } = await connect(agent.apiKey);
    try {
      expect(client.getServerVersion()?.name).toBe("agent-work-marketplace");
      expect(["2025-06-18", "2025-11-25"]).toContain(transport.protocolVersion);

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(agentTools().map((t) => t.name).sort());
      expect(tools.find((t) => t.name === "place_bid")?.inputSchema.required).toEqual(["id", "body"]);

      const me = resultJson(await client.callTool({ name: "get_my_agent", arguments: {} }));
      expect(me.data.id).toBe(agent.id);

      const open = resultJson(await client.callTool({ name: "list_jobs", arguments: { status: "OPEN", participationMode: "BID", excludeBidBy: agent.id, limit: 100 } }));
      const found = open.data.find((j: { id: string }) => j.id === job.id);
      expect(found).toBeDefined();

      const bid = await client.callTool({ name: "place_bid", arguments: { id: found.id, body: { agentId: agent.id, proposedUsdc: "35", coverLetter: "Via MCP." } } });
      expect(bid.isError).toBeFalsy();
      expect(bid.structuredContent).toMatchObject({ data: { jobId: job.id, agentId: agent.id, proposedUsdc: "35" } });

      // The poster's own bid list (over HTTP, as the poster) shows it.
      const bids = await service.http("GET", `/v1/jobs/${job.id}/bids`, { token: poster.token });
      expect(bids.status).toBe(200);
      expect(bids.json.data).toEqual([expect.objectContaining({ agentId: agent.id, proposedUsdc: "35", coverLetter: "Via MCP." })]);

      // The service's own rules answer through the tool as a readable tool error.
      const again = await client.callTool({ name: "place_bid", arguments: { id: job.id, body: { agentId: agent.id, proposedUsdc: "35" } } });
      expect(again.isError).toBe(true);
      expect(resultJson(again)).toMatchObject({ statusCode: 409, code: "BID_ALREADY_PLACED" });
      const bad = await client.callTool({ name: "place_bid", arguments: { id: job.id, body: { agentId: agent.id, proposedUsdc: "lots" } } });
      expect(bad.isError).toBe(true);
      expect(resultJson(bad).statusCode).toBe(400);
      const stray = await client.callTool({ name: "list_jobs", arguments: { colour: "blue" } });
      expect(resultJson(stray).message).toEqual(["property colour should not exist"]);
    } finally {
      await client.close();
    }
  });
});

describe("npm run mcp (stdio)", () => {
  it("serves the same tools over stdio, calling the API with AWM_API_KEY", async () => {
    const agent = await newAgent(service);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", "scripts/mcp-stdio.ts", "--base-url", service.baseUrl],
      env: { ...(process.env as Record<string, string>), AWM_API_KEY: agent.apiKey },
      stderr: "pipe",
    });
    const client = new Client({ name: "awm-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(agentTools().map((t) => t.name).sort());
      expect(resultJson(await client.callTool({ name: "get_my_agent", arguments: {} })).data.id).toBe(agent.id);
    } finally {
      await client.close();
    }
  });
});

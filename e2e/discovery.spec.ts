import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { toolsFor } from "@/lib/mcp/tools";
import { apiClient, signedInHuman } from "./api-actors";

// The built app serves the discovery files and /mcp (vitest covers the same handlers in depth:
// lib/discovery/discovery.test.ts, lib/mcp/mcp.test.ts); here: they are mounted, typed and working.
const base = () => process.env.E2E_BASE_URL!;

test("the discovery files are served with their types, naming the deployment's URL", async ({ request }) => {
  for (const [path, type] of [
    ["/.well-known/agent-card.json", "application/json"],
    ["/.well-known/mcp.json", "application/json"],
    ["/skill.md", "text/markdown; charset=utf-8"],
    ["/llms.txt", "text/plain; charset=utf-8"],
  ] as const) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(200);
    expect(res.headers()["content-type"]).toBe(type);
    expect(res.headers()["cache-control"]).toMatch(/public, max-age=\d+/);
    expect(await res.text()).toContain(base());
  }
  const card = await (await request.get("/.well-known/agent-card.json")).json();
  // It serves no A2A binding, so its A2A 1.0 card declares no interface; its skills name the MCP tools and REST routes.
  expect(card.supportedInterfaces).toEqual([]);
  expect(card.description).toContain(`${base()}/mcp`);
  expect(await (await request.get("/llms.txt")).text()).toContain(`${base()}/v1/openapi.json`);
});

test("/mcp: 401 without an agent key; the MCP SDK client connects with one, lists the tools and bids on an open job the poster then sees", async ({
  request,
}) => {
  const unauthenticated = await request.post("/mcp", {
    data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    headers: { accept: "application/json, text/event-stream" },
  });
  expect(unauthenticated.status()).toBe(401);

  const poster = await signedInHuman();
  const job = (
    await poster.client.createJob({
      body: {
        templateId: "custom-v1",
        title: "Tag 200 support tickets by topic",
        description: "Label each ticket with one of ten topics and a confidence.",
        acceptanceCriteria: ["A CSV with 200 rows"],
        inputData: { budgetType: "bid" },
        budget: "30",
      },
    })
  ).data;
  const signup = await apiClient().signUpAgent({
    body: { ownerEmail: `mcp-${Date.now()}@example.test`, name: "MCP Agent", vertical: "RESEARCH" },
  });
  const key = signup.data.apiKey;
  const agentId = signup.data.agent.id;

  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", base()), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    // The core toolset by default (?toolsets= adds others).
    expect(tools.map((t) => t.name)).toEqual(toolsFor().map((t) => t.name));
    expect((await client.callTool({ name: "heartbeat", arguments: {} })).isError).toBeFalsy();
    const listed = await client.callTool({
      name: "list_jobs",
      arguments: { status: "OPEN", excludeBidBy: agentId, limit: 100 },
    });
    const open = JSON.parse((listed.content as Array<{ text: string }>)[0]!.text);
    expect(open.data.map((j: { id: string }) => j.id)).toContain(job.id);
    const bid = await client.callTool({ name: "place_bid", arguments: { jobId: job.id, proposedUsdc: "30" } });
    expect(bid.isError, JSON.stringify(bid.content)).toBeFalsy();
  } finally {
    await client.close();
  }
  const bids = await request.get(`/v1/jobs/${job.id}/bids`, { headers: { authorization: `Bearer ${poster.token}` } });
  expect((await bids.json()).data).toEqual([
    expect.objectContaining({ agentId, proposedUsdc: "30", status: "PENDING" }),
  ]);
});

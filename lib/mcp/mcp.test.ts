import http from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { routes } from "@/lib/api/routes";
import type { RouteDef } from "@/lib/api/contract";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newClientIp,
  newUser,
  startTestService,
  type TestService,
} from "@/lib/service/testing/harness";
import { MAX_MCP_BODY_BYTES, handleMcpRequest } from "./server";
import {
  AGENT_TOOL_ROUTES,
  CORE_TOOL_ROUTES,
  agentToolRouteNames,
  agentTools,
  toolFromRoute,
  toolNameOf,
  toolsFor,
  toolsetNames,
} from "./tools";

// The real Streamable HTTP transport: the same handler app/mcp/route.ts mounts, on a loopback
// server in front of the test service, driven by the official MCP TypeScript SDK client.
let chain: TestChain;
let service: TestService;
let front: ServerType;
let site: http.Server;
let siteUrl: string;
let mcpUrl: URL;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  front = await new Promise<ServerType>((resolve) => {
    const s = serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        fetch: (request) =>
          handleMcpRequest(request, {
            apiBaseUrl: service.baseUrl,
            forwardHeaders: { "x-forwarded-for": newClientIp() },
            docsUrl: "https://marketplace.test/skill.md",
          }),
      },
      () => resolve(s),
    );
  });
  mcpUrl = new URL(`http://127.0.0.1:${(front.address() as AddressInfo).port}/mcp`);
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<html><head><title>Report</title></head><body><h1>20 papers summarised</h1><p>Done.</p></body></html>");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (front ? front.close(() => resolve()) : resolve()));
  site?.close();
  await service?.stop();
  await chain?.stop();
});

async function connect(
  apiKey: string,
  url: URL = mcpUrl,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "awm-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

const resultJson = (result: unknown) => JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text);
const listedBytes = (tools: ReturnType<typeof agentTools>) =>
  Buffer.byteLength(
    JSON.stringify({
      tools: tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
        annotations,
      })),
    }),
  );
const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;

describe("the tool list", () => {
  it("is generated from the routes: every tool is a chosen route, and every chosen route that exists is a tool", () => {
    const tools = agentTools();
    const all = routes as Record<string, RouteDef>;
    for (const tool of tools) expect(all[tool.routeName], tool.name).toBe(tool.route);
    expect(tools.map((t) => t.name)).toEqual(agentToolRouteNames().map(toolNameOf));
    const expected = [
      ...AGENT_TOOL_ROUTES.filter((name) => name in all || name === "setPayoutWallet"),
      ...Object.keys(all).filter(
        (n) => ["Webhooks", "Progress"].includes(all[n]!.tag) && !(AGENT_TOOL_ROUTES as readonly string[]).includes(n),
      ),
    ];
    expect(agentToolRouteNames().sort()).toEqual([...new Set(expected)].sort());
    const withWebhook = {
      ...routes,
      createWebhook: { ...(routes.placeBid as RouteDef), tag: "Webhooks", path: "/v1/webhooks" },
    } as Record<string, RouteDef>;
    expect(agentToolRouteNames(withWebhook)).toContain("createWebhook");
  });

  it("serves the agent's loop by default, small enough for a model's context; the rest in opt-in toolsets", () => {
    const core = toolsFor();
    expect(core.map((t) => t.name)).toEqual(CORE_TOOL_ROUTES.map(toolNameOf));
    expect(core.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "list_jobs",
        "send_job_message",
        "place_bid",
        "claim_job",
        "submit_deliverable",
        "set_payout_wallet",
        "list_my_events",
      ]),
    );
    // 65 tools were 97.5 kB; the core toolset is about half, with output schemas and every parameter described
    // (a job's revision fields, which every job-returning tool lists, added about 0.9 kB; its parts in
    // flight and change requests about 0.5 kB more; the EscrowV2 fields, escrowVersion, escrowExpiresAt,
    // escrowExpiryNeededAt and escrowExtensionNeeded, about 1.3 kB more over the job-returning tools;
    // escrowSettledOutside and the kept Approve, escrowApproval, brought it to 60.0 kB).
    expect(listedBytes(core)).toBeLessThan(61_000);
    expect(toolsetNames()).toEqual(expect.arrayContaining(["core", "forum", "evals", "disputes", "rewards"]));
    expect(
      toolsFor(["forum"])
        .map((t) => t.toolset)
        .filter((s, i, a) => a.indexOf(s) === i)
        .sort(),
    ).toEqual(["core", "forum"]);
    expect(toolsFor(["all"])).toHaveLength(agentTools().length);
    expect(() => toolsFor(["forums"])).toThrow(/unknown toolset forums/);
  });

  it("is shaped for a model: flat arguments named for what they are, every one described, an output schema, and no agentId where the key is the agent", () => {
    for (const tool of agentTools()) {
      for (const [name, schema] of Object.entries(tool.inputSchema.properties)) {
        expect((schema as { description?: string }).description, `${tool.name}.${name}`).toEqual(expect.any(String));
        expect(name, tool.name).not.toBe("id");
        expect(name, tool.name).not.toBe("body");
      }
      expect(tool.outputSchema?.type, tool.name).toBe("object");
    }
    const placeBid = toolFromRoute("placeBid");
    expect(Object.keys(placeBid.inputSchema.properties)).toEqual(["jobId", "proposedUsdc", "coverLetter"]);
    expect(placeBid.inputSchema.required).toEqual(["jobId", "proposedUsdc"]);
    for (const name of [
      "claimJob",
      "listAgentBids",
      "withdrawBid",
      "listAgentJobs",
      "setPayoutWallet",
      "listAgentEvents",
    ]) {
      expect(Object.keys(toolFromRoute(name).inputSchema.properties), name).not.toContain("agentId");
    }
    // agentId is an argument only where the agent may name another one (public reads, a filter).
    expect(
      agentTools()
        .filter((t) => "agentId" in t.inputSchema.properties)
        .map((t) => t.name)
        .sort(),
    ).toEqual(["get_agent_profile", "list_agent_certifications", "list_eval_attempts"]);
    expect(Object.keys(toolFromRoute("setPayoutWallet").inputSchema.properties)).toEqual(["walletAddress"]);
    expect(Object.keys(toolFromRoute("postJobMessage").inputSchema.properties)).toEqual(["jobId", "text"]);
    expect(toolFromRoute("listJobs").annotations.readOnlyHint).toBe(true);
  });
});

describe("POST /mcp (Streamable HTTP)", () => {
  const rpc = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 1, method, params });
  const initialize = rpc("initialize", {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  });
  const post = (message: unknown, headers: Record<string, string> = {}, url: URL = mcpUrl) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
        ...headers,
      },
      body: JSON.stringify(message),
    });

  it("authenticates every JSON-RPC request: tools/list and tools/call without a key or with a wrong one are an HTTP 401 with a Bearer challenge, with a person's session a 403", async () => {
    const person = await newUser(service);
    for (const message of [initialize, rpc("tools/list"), rpc("tools/call", { name: "get_my_agent", arguments: {} })]) {
      const none = await post(message);
      expect(none.status, message.method).toBe(401);
      // No key sent: the scheme and realm only (RFC 6750 3.1); no resource_metadata, as no OAuth server issues these keys.
      expect(none.headers.get("www-authenticate")).toBe(
        'Bearer realm="agent-work-marketplace", error_uri="https://marketplace.test/skill.md"',
      );
      const bogus = await post(message, { authorization: "Bearer awm_not_a_real_key" });
      expect(bogus.status, message.method).toBe(401);
      expect(bogus.headers.get("www-authenticate")).toMatch(
        /^Bearer realm="agent-work-marketplace", error="invalid_token", error_description="[^"]+", error_uri=/,
      );
      expect(bogus.headers.get("www-authenticate")).not.toMatch(/resource_metadata/);
      // A person's session is no agent's key: 403 FORBIDDEN, as GET /v1/agents/me answers it.
      expect((await post(message, { authorization: `Bearer ${person.token}` })).status).toBe(403);
    }
    await expect(connect("awm_not_a_real_key")).rejects.toThrow();
  });

  it("a key revoked while the SDK client is connected is a 401 on its next tools/list and tools/call", async () => {
    const agent = await newAgent(service);
    const { client } = await connect(agent.apiKey);
    try {
      expect((await client.listTools()).tools.length).toBe(CORE_TOOL_ROUTES.length);
      const keys = await service.http("GET", `/v1/agents/${agent.id}/keys`, { token: agent.apiKey });
      const revoked = await service.http("DELETE", `/v1/agents/${agent.id}/keys/${keys.json.data[0].id}`, {
        token: agent.apiKey,
      });
      expect(revoked.status).toBe(200);
      const list = await client.listTools().catch((error: unknown) => error);
      expect(list).toBeInstanceOf(StreamableHTTPError);
      expect((list as StreamableHTTPError).code).toBe(401);
      const call = await client.callTool({ name: "get_my_agent", arguments: {} }).catch((error: unknown) => error);
      expect((call as StreamableHTTPError).code).toBe(401);
      const raw = await post(rpc("tools/list"), { authorization: `Bearer ${agent.apiKey}` });
      expect(raw.status).toBe(401);
      expect(raw.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect((await raw.json()).message).toMatch(/KEY_REVOKED|revoked/i);
    } finally {
      await client.close();
    }
  });

  it("refuses a credential with REST's own status and error code (UNAUTHENTICATED, INVALID_CREDENTIALS, KEY_REVOKED, FORBIDDEN), through the official SDK client too", async () => {
    const person = await newUser(service);
    const revokedAgent = await newAgent(service);
    const keys = await service.http("GET", `/v1/agents/${revokedAgent.id}/keys`, { token: revokedAgent.apiKey });
    expect(
      (
        await service.http("DELETE", `/v1/agents/${revokedAgent.id}/keys/${keys.json.data[0].id}`, {
          token: revokedAgent.apiKey,
        })
      ).status,
    ).toBe(200);
    const cases = [
      { name: "no key", authorization: undefined, status: 401, code: "UNAUTHENTICATED" },
      { name: "unknown key", authorization: "Bearer awm_not_a_real_key", status: 401, code: "INVALID_CREDENTIALS" },
      { name: "revoked key", authorization: `Bearer ${revokedAgent.apiKey}`, status: 401, code: "KEY_REVOKED" },
      { name: "a person's session", authorization: `Bearer ${person.token}`, status: 403, code: "FORBIDDEN" },
    ];
    for (const c of cases) {
      const rest = await service.http("GET", "/v1/agents/me", {
        headers: c.authorization ? { authorization: c.authorization } : {},
      });
      expect([rest.status, rest.json.code], c.name).toEqual([c.status, c.code]);
      const mcp = await post(rpc("tools/list"), c.authorization ? { authorization: c.authorization } : {});
      expect(mcp.status, c.name).toBe(c.status);
      expect((await mcp.json()).code, c.name).toBe(c.code);
    }
    // The SDK client sees the same: its error carries the HTTP status and the envelope with REST's code.
    for (const c of cases.slice(1)) {
      const failed = await connect(c.authorization!.slice("Bearer ".length)).catch((error: unknown) => error);
      expect(failed, c.name).toBeInstanceOf(StreamableHTTPError);
      expect((failed as StreamableHTTPError).code, c.name).toBe(c.status);
      expect((failed as Error).message, c.name).toContain(`"code":"${c.code}"`);
    }
  });

  it("answers 405 to GET, 413 past the body limit, 400 to a body that is not JSON or an unknown toolset; negotiates the newest protocol revision", async () => {
    expect((await fetch(mcpUrl)).status).toBe(405);
    const agent = await newAgent(service);
    const auth = { authorization: `Bearer ${agent.apiKey}` };
    const huge = await fetch(mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: `"${"x".repeat(MAX_MCP_BODY_BYTES)}"`,
    });
    expect(huge.status).toBe(413);
    const notJson = await fetch(mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
      body: "{nope",
    });
    expect(notJson.status).toBe(400);
    const typo = await post(initialize, auth, new URL("?toolsets=forums", mcpUrl));
    expect(typo.status).toBe(400);
    expect((await typo.json()).messages[0]).toMatch(/unknown toolset forums.*core/);
    for (const version of [LATEST_PROTOCOL_VERSION, "2025-06-18"]) {
      const ok = await post({ ...initialize, params: { ...initialize.params, protocolVersion: version } }, auth);
      expect(ok.status).toBe(200);
      expect((await ok.json()).result.protocolVersion).toBe(version);
    }
  });

  it("toolsets: ?toolsets=forum,evals adds those tools to the core ones; all serves every tool; a tool outside the connection's toolsets says where it is", async () => {
    const agent = await newAgent(service);
    const { client } = await connect(agent.apiKey, new URL("?toolsets=forum,evals", mcpUrl));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(toolsFor(["forum", "evals"]).map((t) => t.name));
      expect(names).toContain("create_thread");
      expect(names).toContain("list_eval_packs");
      expect(names).not.toContain("get_dispute");
    } finally {
      await client.close();
    }
    const { client: all } = await connect(agent.apiKey, new URL("?toolsets=all", mcpUrl));
    try {
      expect((await all.listTools()).tools).toHaveLength(agentTools().length);
    } finally {
      await all.close();
    }
    const { client: core, transport } = await connect(agent.apiKey);
    try {
      expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
      await expect(core.callTool({ name: "get_dispute", arguments: { jobId: "x" } })).rejects.toThrow(/toolsets/);
    } finally {
      await core.close();
    }
  });

  it("the whole loop with the SDK client: set the payout wallet, find funded work, ask the poster, bid, get accepted, deliver, get paid, and read it all in the agent's events", async () => {
    const poster = await newUser(service, chain.accounts[1]!.privateKey);
    const job = (
      await poster.client.createJob({
        body: jobInput({
          title: "Summarise 20 papers on MCP security",
          budget: "40",
          inputData: { budgetType: "bid", proofHoldHours: 0 },
        }),
      })
    ).data;
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[1]!.privateKey,
      escrowJobId: hexOf(job.escrowJobId),
      amount: parseUsdc("40"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });

    const agent = await newAgent(service);
    const { client } = await connect(agent.apiKey);
    try {
      expect(client.getServerVersion()?.name).toBe("agent-work-marketplace");
      expect(client.getInstructions()).toMatch(/toolsets/);
      // When the agent is paid, and how to find work that pays soon.
      expect(client.getInstructions()).toMatch(/proof hold: once the poster approves your delivery/);
      expect(client.getInstructions()).toMatch(/maxProofHoldHours/);
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        // The SDK client checked structuredContent against the tool's outputSchema.
        return result.structuredContent as { data: any; meta?: any };
      };

      const wallet = chain.accounts[6]!.address;
      expect((await call("set_payout_wallet", { walletAddress: wallet })).data.walletAddress).toBe(wallet);
      expect((await call("get_my_agent")).data.id).toBe(agent.id);

      const open = await call("list_jobs", {
        status: "OPEN",
        funded: true,
        participationMode: "BID",
        excludeBidBy: "me",
        maxProofHoldHours: 1,
        limit: 100,
      });
      expect(open.data.map((j: { id: string }) => j.id)).toContain(job.id);

      // A question before the bid opens the agent's conversation with the poster.
      await call("send_job_message", { jobId: job.id, text: "Which citation style do you want?" });
      const conversations = await service.http("GET", `/v1/jobs/${job.id}/conversations`, { token: poster.token });
      expect(conversations.json.data).toEqual([expect.objectContaining({ agentId: agent.id })]);
      const answer = await service.http("POST", `/v1/jobs/${job.id}/messages`, {
        token: poster.token,
        body: { with: agent.id, body: "APA, please." },
      });
      expect(answer.status).toBe(201);
      const messages = await call("list_job_messages", { jobId: job.id });
      expect(messages.data.map((m: { body: string }) => m.body)).toEqual([
        "Which citation style do you want?",
        "APA, please.",
      ]);

      const bid = await call("place_bid", { jobId: job.id, proposedUsdc: "40", coverLetter: "APA it is." });
      expect(bid.data).toMatchObject({ jobId: job.id, agentId: agent.id, proposedUsdc: "40" });
      const mine = await call("list_my_bids", {});
      expect(mine.data.map((b: { id: string }) => b.id)).toContain(bid.data.id);
      // The service's own rules answer through the tool as a readable tool error.
      const again = await client.callTool({ name: "place_bid", arguments: { jobId: job.id, proposedUsdc: "40" } });
      expect(again.isError).toBe(true);
      expect(resultJson(again)).toMatchObject({ statusCode: 409, code: "BID_ALREADY_PLACED" });
      const stray = await client.callTool({ name: "list_jobs", arguments: { colour: "blue" } });
      expect(resultJson(stray)).toMatchObject({
        message: "property colour should not exist",
        messages: ["property colour should not exist"],
      });

      await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
      const submitted = await call("submit_deliverable", { jobId: job.id, outputData: { url: `${siteUrl}/report` } });
      expect(submitted.data.status).toBe("REVIEW");
      const done = (await poster.client.approveJob({ params: { id: job.id } })).data;
      expect(done.status).toBe("COMPLETED");

      const events = await call("list_my_events", { limit: 200 });
      const types = events.data
        .filter((e: { data: { jobId?: string } }) => e.data.jobId === job.id)
        .map((e: { type: string }) => e.type);
      expect(types).toEqual(expect.arrayContaining(["message.created", "bid.accepted", "job.paid"]));
      expect(types.indexOf("bid.accepted")).toBeLessThan(types.indexOf("job.paid"));
      const after = await call("list_my_events", { cursor: events.meta.nextCursor });
      expect(after.data).toEqual([]);
      expect(after.meta.nextCursor).toBe(events.meta.nextCursor);
    } finally {
      await client.close();
    }
  });
});

describe("a revision through MCP", () => {
  it("the agent reads the poster's request for changes on the job and in its events, submits again, and the job is in review", async () => {
    const poster = await newUser(service, chain.accounts[1]!.privateKey);
    const job = (
      await poster.client.createJob({
        body: jobInput({ title: "Translate the FAQ into Spanish", budget: "10", maxRevisions: 2 }),
      })
    ).data;
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[1]!.privateKey,
      escrowJobId: hexOf(job.escrowJobId),
      amount: parseUsdc("10"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const agent = await newAgent(service);
    const { client } = await connect(agent.apiKey);
    try {
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        return result.structuredContent as { data: any; meta?: any };
      };
      const bid = await call("place_bid", { jobId: job.id, proposedUsdc: "10" });
      await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
      await call("submit_deliverable", { jobId: job.id, outputData: { url: `${siteUrl}/faq-es` } });
      await poster.client.requestChanges({
        params: { id: job.id },
        body: { message: "Question 12 is still in English." },
      });

      const back = (await call("get_job", { jobId: job.id })).data;
      expect(back).toMatchObject({
        status: "IN_PROGRESS",
        revisionCount: 1,
        maxRevisions: 2,
        changeRequest: { round: 1, message: "Question 12 is still in English." },
      });
      const events = (await call("list_my_events", { limit: 200 })).data as Array<{ type: string; data: any }>;
      expect(events.find((e) => e.type === "job.changes_requested" && e.data.jobId === job.id)?.data).toMatchObject({
        round: 1,
        maxRevisions: 2,
        message: "Question 12 is still in English.",
      });

      const again = await call("submit_deliverable", { jobId: job.id, outputData: { url: `${siteUrl}/faq-es-v2` } });
      expect(again.data).toMatchObject({ status: "REVIEW", revisionCount: 1 });
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
      args: ["--import", "tsx", "scripts/mcp-stdio.ts", "--base-url", service.baseUrl, "--toolsets", "forum"],
      env: { ...(process.env as Record<string, string>), AWM_API_KEY: agent.apiKey },
      stderr: "pipe",
    });
    const client = new Client({ name: "awm-stdio-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(toolsFor(["forum"]).map((t) => t.name));
      expect((await client.callTool({ name: "get_my_agent", arguments: {} })).structuredContent).toMatchObject({
        data: { id: agent.id },
      });
      expect((await client.callTool({ name: "list_my_bids", arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

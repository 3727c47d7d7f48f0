import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@/lib/api/routes";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { agentTools } from "@/lib/mcp/tools";
import { DISCOVERY_HANDLERS } from "./handlers";
import { GENEROUS_BUDGETS, jobInput, newUser, startTestService, type TestService } from "@/lib/service/testing/harness";

const run = promisify(execFile);

// The discovery files over HTTP: a loopback "site" answers them with the handlers app/ mounts
// (no SITE_URL, so the request's origin) and passes every other path to the test service, as the
// deployed app does with /v1. So the URLs in the files are the site's, and they work.
// e2e/discovery.spec.ts checks the built app serves them at these paths.

let chain: TestChain;
let service: TestService;
let site: ServerType;
let siteUrl: string;
let deliverables: http.Server;
let deliverablesUrl: string;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = await new Promise<ServerType>((resolve) => {
    const s = serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        fetch: async (request) => {
          const url = new URL(request.url);
          const handler = DISCOVERY_HANDLERS[url.pathname];
          if (handler) return handler(request, undefined);
          const headers = new Headers(request.headers);
          headers.delete("host");
          const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
          const answer = await fetch(`${service.baseUrl}${url.pathname}${url.search}`, { method: request.method, headers, body });
          const out = new Headers(answer.headers);
          out.delete("content-length");
          out.delete("content-encoding");
          return new Response(await answer.arrayBuffer(), { status: answer.status, headers: out });
        },
      },
      () => resolve(s),
    );
  });
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // Somewhere else on loopback: the agent's published work (the prober may reach it on the local chain).
  deliverables = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<html><head><title>Report</title></head><body><h1>Summary of 20 papers</h1><p>Paper one argues that tool schemas should be generated.</p></body></html>");
  });
  await new Promise<void>((r) => deliverables.listen(0, "127.0.0.1", r));
  deliverablesUrl = `http://127.0.0.1:${(deliverables.address() as AddressInfo).port}/report`;
});
afterAll(async () => {
  deliverables?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  await service?.stop();
  await chain?.stop();
});

const get = (path: string) => fetch(`${siteUrl}${path}`);

/** The route a URL of the files names, by method and path pattern; undefined: none. */
function routeOf(method: string, url: string) {
  const { pathname } = new URL(url.replace(/<[A-Z_]+>/g, "x"));
  return Object.entries(routes).find(([, r]) => r.method === method && new RegExp(`^${r.path.replace(/:[A-Za-z]+/g, "[^/]+")}$`).test(pathname))?.[0];
}

describe("discovery files", () => {
  it("each is served with its content type, cacheable, naming this site's URLs", async () => {
    for (const [path, type] of [
      ["/.well-known/agent-card.json", "application/json"],
      ["/.well-known/mcp.json", "application/json"],
      ["/skill.md", "text/markdown; charset=utf-8"],
      ["/llms.txt", "text/plain; charset=utf-8"],
    ]) {
      const res = await get(path!);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("cache-control")).toMatch(/public, max-age=\d+/);
      expect(await res.text()).toContain(siteUrl);
    }
  });

  it("the agent card has a name, description, skills, supported interfaces and the agent key's security scheme", async () => {
    const card = await (await get("/.well-known/agent-card.json")).json();
    expect(card).toMatchObject({ name: "Agent Work Marketplace", version: expect.any(String), description: expect.stringContaining("agents") });
    expect(card.supportedInterfaces).toEqual([
      { url: `${siteUrl}/v1`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: `${siteUrl}/mcp`, protocolBinding: "MCP", protocolVersion: "2025-06-18" },
    ]);
    expect(card.securitySchemes.agentKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(card.security).toEqual([{ agentKey: [] }]);
    const skillIds = card.skills.map((s: { id: string }) => s.id);
    expect(skillIds).toEqual(expect.arrayContaining(["find-work", "bid", "claim-bounty", "deliver", "forum", "rewards", "certification", "account"]));
    // Every tool an agent has is named by some skill.
    const described = card.skills.map((s: { description: string }) => s.description).join(" ");
    for (const tool of agentTools()) expect(described, tool.name).toContain(tool.name);
  });

  it("mcp.json names the endpoint, the bearer key and exactly the server's tools; llms.txt points at every file and the OpenAPI document", async () => {
    const card = await (await get("/.well-known/mcp.json")).json();
    expect(card.transport).toEqual({ type: "streamable-http", url: `${siteUrl}/mcp`, stateless: true });
    expect(card.authentication).toMatchObject({ required: true, schemes: ["bearer"] });
    expect(card.protocolVersions).toContain("2025-06-18");
    expect(card.tools.map((t: { name: string }) => t.name)).toEqual(agentTools().map((t) => t.name));
    const llms = await (await get("/llms.txt")).text();
    expect(llms).toMatch(/^# Agent Work Marketplace\n\n> /);
    for (const path of ["/skill.md", "/.well-known/agent-card.json", "/.well-known/mcp.json", "/v1/openapi.json", "/mcp"]) {
      expect(llms).toContain(`](${siteUrl}${path})`);
    }
    expect((await get("/v1/openapi.json")).status).toBe(200);
  });

  it("every command of skill.md calls a real route of this site", async () => {
    const skill = await (await get("/skill.md")).text();
    const commands = [...skill.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) {
      const method = /-X (\w+)/.exec(command)?.[1] ?? "GET";
      const url = /'(https?:\/\/[^']+)'/.exec(command)![1]!;
      expect(url.startsWith(`${siteUrl}/v1/`), url).toBe(true);
      expect(routeOf(method, url), `${method} ${url}`).toBeDefined();
    }
  });
});

describe("skill.md, followed literally with curl", () => {
  it("takes a new agent from sign-up to a submitted deliverable, the poster accepting the bid in between", async () => {
    const skill = await (await get("/skill.md")).text();
    // The placeholders the page documents, from its own table; each command is one bash block.
    const documented = [...skill.matchAll(/^\| `<([A-Z_]+)>` \|/gm)].map((m) => m[1]!);
    expect(documented).toEqual(expect.arrayContaining(["OWNER_EMAIL", "API_KEY", "AGENT_ID", "JOB_ID", "AMOUNT", "DELIVERABLE_URL"]));
    const blocks = [...skill.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const block = (name: keyof typeof routes) => {
      const found = blocks.find((b) => {
        const method = /-X (\w+)/.exec(b)?.[1] ?? "GET";
        return routeOf(method, /'(https?:\/\/[^']+)'/.exec(b)![1]!) === name;
      });
      if (!found) throw new Error(`skill.md has no command for ${name}`);
      return found;
    };
    const values: Record<string, string> = {
      OWNER_EMAIL: `skill-${process.pid}-${Date.now()}@example.test`,
      AGENT_NAME: "Skill Walker",
      AMOUNT: "40",
      DELIVERABLE_URL: deliverablesUrl,
    };
    const curl = async (name: keyof typeof routes) => {
      const command = block(name).replace(/<([A-Z_]+)>/g, (whole, key: string) => {
        expect(documented, `placeholder ${whole} is documented`).toContain(key);
        if (values[key] === undefined) throw new Error(`no value yet for ${whole} in ${name}`);
        return values[key];
      });
      const { stdout } = await run("bash", ["-c", command]).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`${name} failed: ${error.message}\n${error.stdout}\n${error.stderr}`);
      });
      return JSON.parse(stdout);
    };

    // A poster with a funded job taking bids.
    const poster = await newUser(service, chain.accounts[1]!.privateKey);
    const job = (await poster.client.createJob({ body: jobInput({ title: "Summarise 20 papers", budget: "40" }) })).data;
    const escrowJobId = `0x${Array.from({ length: 32 }, (_, i) => (job.escrowJobId as unknown as Record<string, number>)[String(i)]!.toString(16).padStart(2, "0")).join("")}`;
    const { txHash } = await depositToEscrow({ config: chain.config, privateKey: chain.accounts[1]!.privateKey, escrowJobId, amount: parseUsdc("40") });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });

    // 1. Sign up.
    const signup = await curl("signUpAgent");
    values.API_KEY = signup.data.apiKey;
    values.AGENT_ID = signup.data.agent.id;
    expect(signup.data.agent.status).toBe("PENDING_PROOF");
    // 2. Heartbeat.
    expect((await curl("heartbeat")).data.status).toBe("ACTIVE");
    // 3. Find work.
    const board = await curl("listJobs");
    expect(board.data.map((j: { id: string }) => j.id)).toContain(job.id);
    values.JOB_ID = job.id;
    expect((await curl("getJob")).data.id).toBe(job.id);
    // 4. Bid; the poster accepts it through the API; the job is the agent's.
    const bid = await curl("placeBid");
    expect(bid.data).toMatchObject({ jobId: job.id, agentId: values.AGENT_ID, proposedUsdc: "40", status: "PENDING" });
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.data.id } });
    expect((await curl("listAgentJobs")).data).toEqual([expect.objectContaining({ id: job.id, status: "IN_PROGRESS" })]);
    // 5. Deliver.
    const submitted = await curl("submitDeliverable");
    expect(submitted.data).toMatchObject({ id: job.id, status: "REVIEW", proofCheckStatus: "LIVE", outputData: { url: deliverablesUrl } });
    expect((await curl("listProofChecks")).data[0]).toMatchObject({ status: "LIVE" });
    // The poster sees the work waiting for review.
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({ status: "REVIEW", submittedAt: expect.any(String) });
  });
});

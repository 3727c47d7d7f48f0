import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "@/lib/api/routes";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { AgentCard } from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver } from "@a2a-js/sdk/client";
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
/** What the agent's published work page shows (the literal walk puts the job's proof marker on it). */
let page =
  "<html><head><title>Report</title></head><body><h1>Summary of 20 papers</h1><p>Paper one argues that tool schemas should be generated.</p></body></html>";

/** escrowJobId as the wire sends it (an object of 32 bytes) to the 0x hex the contract takes. */
const hexOf = (id: unknown) =>
  `0x${Array.from({ length: 32 }, (_, i) => (id as Record<string, number>)[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;

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
          const answer = await fetch(`${service.baseUrl}${url.pathname}${url.search}`, {
            method: request.method,
            headers,
            body,
          });
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
    res.end(page);
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
  return Object.entries(routes).find(
    ([, r]) => r.method === method && new RegExp(`^${r.path.replace(/:[A-Za-z]+/g, "[^/]+")}$`).test(pathname),
  )?.[0];
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

  it("the agent card is an A2A 1.0 card the SDK reads: skills naming the MCP tools and REST routes that answer, the bearer key, and no A2A interface it does not serve", async () => {
    const raw = await (await get("/.well-known/agent-card.json")).json();
    // The official client's resolver fetches and reads it.
    const card = await new DefaultAgentCardResolver().resolve(siteUrl);
    expect(card).toMatchObject({
      name: "Agent Work Marketplace",
      version: expect.any(String),
      description: expect.stringContaining("agents"),
    });
    // An A2A 1.0 card and nothing else: the SDK's 1.0 reader and writer give it back unchanged (no 0.3 fields such as url, preferredTransport, protocolVersion or security).
    const { supportedInterfaces, ...rest } = raw;
    expect(AgentCard.toJSON(AgentCard.fromJSON(raw))).toEqual(rest);
    for (const field of ["url", "preferredTransport", "protocolVersion", "security", "additionalInterfaces"])
      expect(raw, field).not.toHaveProperty(field);
    // It serves no A2A binding, so it declares none (the MCP endpoint is no A2A binding), and the SDK's client factory finds nothing to call.
    expect(supportedInterfaces).toEqual([]);
    await expect(new ClientFactory().createFromAgentCard(card)).rejects.toThrow();
    expect(raw.securitySchemes.agentKey).toEqual({
      httpAuthSecurityScheme: { scheme: "Bearer", description: expect.stringContaining("Authorization: Bearer") },
    });
    expect(raw.securityRequirements).toEqual([{ schemes: { agentKey: {} } }]);
    const skillIds = card.skills.map((s) => s.id);
    expect(skillIds).toEqual(
      expect.arrayContaining([
        "find-work",
        "bid",
        "claim-bounty",
        "deliver",
        "forum",
        "rewards",
        "certification",
        "account",
      ]),
    );
    // Every tool an agent has is named by some skill, with the route it calls.
    const described = card.skills.map((s) => s.description).join(" ");
    for (const tool of agentTools()) {
      expect(described, tool.name).toContain(tool.name);
      expect(described, tool.name).toContain(`${tool.route.method} ${tool.route.path}`);
    }
  });

  it("mcp.json names the endpoint, the bearer key and exactly the server's tools; llms.txt points at every file and the OpenAPI document", async () => {
    const card = await (await get("/.well-known/mcp.json")).json();
    expect(card.transport).toEqual({ type: "streamable-http", url: `${siteUrl}/mcp`, stateless: true });
    expect(card.authentication).toMatchObject({ required: true, schemes: ["bearer"] });
    expect(card.protocolVersions).toContain("2025-06-18");
    expect(card.tools.map((t: { name: string }) => t.name)).toEqual(agentTools().map((t) => t.name));
    const llms = await (await get("/llms.txt")).text();
    expect(llms).toMatch(/^# Agent Work Marketplace\n\n> /);
    for (const path of [
      "/skill.md",
      "/.well-known/agent-card.json",
      "/.well-known/mcp.json",
      "/v1/openapi.json",
      "/mcp",
    ]) {
      expect(llms).toContain(`](${siteUrl}${path})`);
    }
    expect((await get("/v1/openapi.json")).status).toBe(200);
  });

  it("skill.md, llms.txt and the agent card all say what gets an agent paid: the payout wallet, funded work, the exact budget, the proof marker", async () => {
    const skill = await (await get("/skill.md")).text();
    const llms = await (await get("/llms.txt")).text();
    const card = await (await get("/.well-known/agent-card.json")).json();
    const cardText = [card.description, ...card.skills.map((s: { description: string }) => s.description)].join(" ");
    for (const [name, text] of [
      ["skill.md", skill],
      ["llms.txt", llms],
      ["agent card", cardText],
    ] as const) {
      expect(text, name).toMatch(/walletAddress/);
      expect(text, name).toMatch(/waits in escrow/);
      expect(text, name).toMatch(/funded=true/);
      expect(text, name).toMatch(/excludeBidBy=/);
      expect(text, name).toMatch(/exactly (its|the) budget/);
      expect(text, name).toMatch(/BID_AMOUNT_MISMATCH/);
      expect(text, name).toMatch(/proofContentMarker/);
      // When the money comes: approval, then the proof hold, then the release; and how to find work that pays soon.
      expect(text, name).toMatch(/proofHoldHours/);
      expect(text, name).toMatch(/approves your delivery and the job's .?proofHoldHours.? .* have passed/);
      expect(text, name).toMatch(/maxProofHoldHours=1/);
    }
    // The wallet comes before the first job in skill.md's steps.
    expect(skill.indexOf("## 3. Set your payout wallet")).toBeGreaterThan(0);
    expect(skill.indexOf("## 3. Set your payout wallet")).toBeLessThan(skill.indexOf("## 4. Find funded work"));
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
  it("takes a new agent from nothing to a first paid job: every command in the page's order, the poster accepting and approving in between; the release is on chain", async () => {
    const skill = await (await get("/skill.md")).text();
    // The placeholders the page documents, from its own table; each command is one bash block, run in the page's order.
    const documented = [...skill.matchAll(/^\| `<([A-Z_]+)>` \|/gm)].map((m) => m[1]!);
    expect(documented).toEqual(
      expect.arrayContaining([
        "OWNER_EMAIL",
        "API_KEY",
        "AGENT_ID",
        "WALLET_ADDRESS",
        "JOB_ID",
        "AMOUNT",
        "DELIVERABLE_URL",
      ]),
    );
    const steps = [...skill.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => {
      const command = m[1]!;
      const route = routeOf(/-X (\w+)/.exec(command)?.[1] ?? "GET", /'(https?:\/\/[^']+)'/.exec(command)![1]!)!;
      return { command, route };
    });
    // The money path, in this order: the wallet before any work, funded work, the bid, the delivery, the payment.
    expect(steps.map((s) => s.route)).toEqual([
      "signUpAgent",
      "heartbeat",
      "updateAgent",
      "listJobs",
      "getJob",
      "placeBid",
      "listAgentJobs",
      "getJob",
      "submitDeliverable",
      "listProofChecks",
      "listAgentEvents",
    ]);
    expect(steps.find((s) => s.route === "listJobs")!.command).toMatch(/funded=true/);
    expect(steps.find((s) => s.route === "listJobs")!.command).toMatch(/excludeBidBy=me/);

    // The world around the agent: a poster with a funded job whose page must show a proof marker, and an unfunded one beside it.
    const poster = await newUser(service, chain.accounts[1]!.privateKey);
    const marker = `awm-proof-${Date.now().toString(36)}`;
    const job = (
      await poster.client.createJob({
        body: jobInput({
          title: "Summarise 20 papers",
          budget: "40",
          inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: marker },
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
    const unfunded = (
      await poster.client.createJob({ body: jobInput({ title: "Unfunded: summarise 10 papers", budget: "30" }) })
    ).data;
    const wallet = chain.accounts[7]!.address;
    const before = await erc20BalanceOf({ config: chain.config, address: wallet });

    const values: Record<string, string> = {
      OWNER_EMAIL: `skill-${process.pid}-${Date.now()}@example.test`,
      AGENT_NAME: "Skill Walker",
      WALLET_ADDRESS: wallet,
    };
    const curl = async (command: string, route: string) => {
      const literal = command.replace(/<([A-Z_]+)>/g, (whole, key: string) => {
        expect(documented, `placeholder ${whole} is documented`).toContain(key);
        if (values[key] === undefined) throw new Error(`no value yet for ${whole} in ${route}`);
        return values[key];
      });
      const { stdout } = await run("bash", ["-c", literal]).catch(
        (error: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`${route} failed: ${error.message}\n${error.stdout}\n${error.stderr}`);
        },
      );
      return JSON.parse(stdout);
    };

    const started = performance.now();
    let paidAt: number | null = null;
    let bidId: string | null = null;
    let timesRead = 0;
    for (const { command, route } of steps) {
      const answer = await curl(command, route);
      switch (route) {
        case "signUpAgent":
          expect(answer.data.agent.status).toBe("PENDING_PROOF");
          values.API_KEY = answer.data.apiKey;
          values.AGENT_ID = answer.data.agent.id;
          break;
        case "heartbeat":
          expect(answer.data.status).toBe("ACTIVE");
          break;
        case "updateAgent":
          expect(answer.data.walletAddress).toBe(wallet);
          break;
        case "listJobs": {
          // Funded work only: the unfunded job is not offered.
          const ids = answer.data.map((j: { id: string }) => j.id);
          expect(ids).toContain(job.id);
          expect(ids).not.toContain(unfunded.id);
          const row = answer.data.find((j: { id: string }) => j.id === job.id);
          expect(row.funded).toBe(true);
          values.JOB_ID = row.id;
          values.AMOUNT = row.budgetUsdc;
          break;
        }
        case "getJob":
          timesRead += 1;
          expect(answer.data.id).toBe(job.id);
          if (timesRead === 1) {
            // Before the job is the agent's, its proof marker is private to the parties.
            expect(answer.data.inputData.proofContentMarker).toBeUndefined();
          } else {
            expect(answer.data.status).toBe("IN_PROGRESS");
            expect(answer.data.inputData.proofContentMarker).toBe(marker);
            // The agent publishes its work with the marker on the page, as step 6 says.
            page = `<html><head><title>Report</title></head><body><h1>Summary of 20 papers</h1><p>${answer.data.inputData.proofContentMarker}</p></body></html>`;
            values.DELIVERABLE_URL = deliverablesUrl;
          }
          break;
        case "placeBid":
          expect(answer.data).toMatchObject({
            jobId: job.id,
            agentId: values.AGENT_ID,
            proposedUsdc: "40",
            status: "PENDING",
          });
          bidId = answer.data.id;
          // The poster accepts it.
          await poster.client.acceptBid({ params: { jobId: job.id, bidId: bidId! } });
          break;
        case "listAgentJobs":
          expect(answer.data).toEqual([expect.objectContaining({ id: job.id, status: "IN_PROGRESS" })]);
          break;
        case "submitDeliverable": {
          expect(answer.data).toMatchObject({
            id: job.id,
            status: "REVIEW",
            proofCheckStatus: "LIVE",
            outputData: { url: deliverablesUrl },
          });
          // The poster approves; the escrow releases on chain to the agent's wallet.
          const approved = (await poster.client.approveJob({ params: { id: job.id } })).data;
          expect(approved).toMatchObject({
            status: "COMPLETED",
            releaseTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
          });
          break;
        }
        case "listProofChecks":
          expect(answer.data[0]).toMatchObject({ status: "LIVE" });
          break;
        case "listAgentEvents": {
          const paid = answer.data.find(
            (e: { type: string; data: { jobId?: string } }) => e.type === "job.paid" && e.data.jobId === job.id,
          );
          expect(paid, JSON.stringify(answer.data.map((e: { type: string }) => e.type))).toBeDefined();
          expect(paid.data.txHash).toMatch(/^0x[0-9a-f]{64}$/);
          const receipt = await chain.publicClient.getTransactionReceipt({ hash: paid.data.txHash });
          expect(receipt.status).toBe("success");
          paidAt = performance.now();
          const after = await erc20BalanceOf({ config: chain.config, address: wallet });
          expect(after - before).toBe(parseUsdc(paid.data.net));
          expect(after - before).toBeGreaterThan(0n);
          break;
        }
      }
    }
    expect(paidAt).not.toBeNull();
    const seconds = (paidAt! - started) / 1000;
    console.info(
      `skill.md followed literally: from nothing to a first paid job (released on chain) in ${seconds.toFixed(2)} s, ${steps.length} commands`,
    );
    expect(seconds).toBeLessThan(120);
  });
});

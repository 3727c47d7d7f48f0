import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, keccak256, stringToBytes, type Hex } from "viem";
import { abi as identityAbi } from "@/contracts/artifacts/identity-registry";
import { abi as reputationAbi } from "@/contracts/artifacts/reputation-registry";
import { escrowAbi } from "@/lib/chain/abi";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { finishPendingSettlements } from "../escrow/settle-job";
import { checkAgentEndpoints } from "./liveness";

const POSTER = 1;
const OWNER = 2;
const STRANGER = 3;
const REVIEWER = 4;
const FORGER = 5;
const AGENT_WALLET = 6;

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = http.createServer((req, res) => {
    if (req.url === "/api") {
      res.writeHead(503).end("down");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1></body></html>");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  site?.close();
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;

let counter = 0;
async function ownedAgent(owner: TestUser): Promise<TestAgent> {
  counter += 1;
  const ownerEmail = `erc8004-${process.pid}-${Date.now()}-${counter}@example.test`;
  const agent = await newAgent(service, { ownerEmail, walletAddress: chain.accounts[AGENT_WALLET]!.address });
  await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
  return agent;
}

async function send(index: number, call: { to: string; data: string }): Promise<Hex> {
  const hash = await chain.wallet(index).sendTransaction({ to: call.to as Hex, data: call.data as Hex });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return hash;
}

/** Declares the agent's services and registers it from the owner's wallet (one signature). */
async function registered(owner: TestUser, agent: TestAgent) {
  const declared = await service.http("PUT", `/v1/agents/${agent.id}/identity`, {
    token: owner.token,
    body: { services: { MCP: `${siteUrl}/mcp`, API: `${siteUrl}/api` }, x402Support: true },
  });
  expect(declared.status, JSON.stringify(declared.json)).toBe(200);
  const txHash = await send(OWNER, declared.json.data.registerCall);
  const confirmed = await service.http("POST", `/v1/agents/${agent.id}/identity/registration`, {
    token: owner.token,
    body: { txHash },
  });
  expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200);
  return confirmed.json.data;
}

/** A job of `agent`, funded, delivered, approved and released on chain: its confirmed settlement. */
async function settledJob(poster: TestUser, agent: TestAgent) {
  const job = (
    await poster.client.createJob({
      body: jobInput({ budget: "20", inputData: { budgetType: "bid", proofHoldHours: 0 } }),
    })
  ).data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[POSTER]!.privateKey,
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc("20"),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "20" } }))
    .data;
  await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
  const early = await service.http("POST", `/v1/jobs/${job.id}/feedback`, { token: poster.token, body: { value: 90 } });
  expect(early.status).toBe(409);
  expect(early.json.code).toBe("FEEDBACK_NOT_SETTLED");
  const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
    token: agent.apiKey,
    body: { outputData: { url: `${siteUrl}/leads` } },
  });
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  expect((await poster.client.approveJob({ params: { id: job.id } })).data.status).toBe("COMPLETED");
  for (let i = 0; i < 50; i++) {
    const s = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", job.id)
      .executeTakeFirst();
    if (s?.status === "CONFIRMED" && s.tx_hash) return { job, settlement: s };
    await finishPendingSettlements(service.ctx).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the release was not confirmed");
}

describe("ERC-8004 identity", () => {
  it("GET /v1/chain names both registries, which the local stack deployed", async () => {
    const res = await service.http("GET", "/v1/chain");
    expect(res.json.data.identityRegistryAddress).toBe(chain.deployment.identityRegistry);
    expect(res.json.data.reputationRegistryAddress).toBe(chain.deployment.reputationRegistry);
    const bound = await chain.publicClient.readContract({
      address: chain.config.reputationRegistryAddress!,
      abi: reputationAbi,
      functionName: "getIdentityRegistry",
    });
    expect(bound).toBe(chain.config.identityRegistryAddress);
  });

  it("the owner registers the agent in one signature; the registration file follows the specification; others are refused", async () => {
    const owner = await newUser(service, chain.accounts[OWNER]!.privateKey);
    const agent = await ownedAgent(owner);
    expect((await service.http("GET", `/v1/agents/${agent.id}/identity`)).status).toBe(404);

    const stranger = await newUser(service, chain.accounts[STRANGER]!.privateKey);
    const body = { services: { MCP: `${siteUrl}/mcp` }, x402Support: true };
    const refused = await service.http("PUT", `/v1/agents/${agent.id}/identity`, { token: stranger.token, body });
    expect(refused.status).toBe(403);
    const byKey = await service.http("PUT", `/v1/agents/${agent.id}/identity`, { token: agent.apiKey, body });
    expect(byKey.status).toBe(403);
    const own = await service.http("PUT", `/v1/agents/${agent.id}/identity`, {
      token: owner.token,
      body: { services: { MCP: `${service.ctx.config.siteUrl ?? service.baseUrl}/mcp` }, x402Support: true },
    });
    expect(own.status).toBe(400);
    expect(own.json.code).toBe("AGENT_ENDPOINT_URL_NOT_ALLOWED");

    const declared = await service.http("PUT", `/v1/agents/${agent.id}/identity`, {
      token: owner.token,
      body: { services: { MCP: `${siteUrl}/mcp`, A2A: `${siteUrl}/.well-known/agent-card.json` }, x402Support: true },
    });
    expect(declared.status, JSON.stringify(declared.json)).toBe(200);
    const identity = declared.json.data;
    expect(identity).toMatchObject({ registered: false, onchainAgentId: null, x402Support: true });
    expect(identity.registerCall.to).toBe(chain.config.identityRegistryAddress);
    expect(identity.registerCall.data).toBe(
      encodeFunctionData({ abi: identityAbi, functionName: "register", args: [identity.agentURI] }),
    );

    const file = await service.http("GET", new URL(identity.agentURI).pathname);
    expect(file.status).toBe(200);
    expect(file.json).toMatchObject({
      type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
      x402Support: true,
      registrations: [],
      supportedTrust: ["reputation"],
    });
    expect(file.json.services.map((s: { name: string }) => s.name)).toEqual(["web", "MCP", "A2A"]);

    // Someone else's wallet registering the same URI is not the owner's registration.
    const foreign = await send(STRANGER, identity.registerCall);
    const wrongOwner = await service.http("POST", `/v1/agents/${agent.id}/identity/registration`, {
      token: owner.token,
      body: { txHash: foreign },
    });
    expect(wrongOwner.status).toBe(422);
    expect(wrongOwner.json.code).toBe("IDENTITY_TX_INVALID");

    const txHash = await send(OWNER, identity.registerCall);
    const confirmed = await service.http("POST", `/v1/agents/${agent.id}/identity/registration`, {
      token: owner.token,
      body: { txHash },
    });
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200);
    const agentRegistry = `eip155:${chain.config.chainId}:${chain.config.identityRegistryAddress}`;
    expect(confirmed.json.data).toMatchObject({
      registered: true,
      agentRegistry,
      ownerAddress: owner.address,
      registerTxHash: txHash,
      registerCall: null,
    });
    const onchainId = BigInt(confirmed.json.data.onchainAgentId);
    const tokenOwner = await chain.publicClient.readContract({
      address: chain.config.identityRegistryAddress!,
      abi: identityAbi,
      functionName: "ownerOf",
      args: [onchainId],
    });
    expect(tokenOwner).toBe(owner.address);
    const uri = await chain.publicClient.readContract({
      address: chain.config.identityRegistryAddress!,
      abi: identityAbi,
      functionName: "tokenURI",
      args: [onchainId],
    });
    expect(uri).toBe(identity.agentURI);

    const again = await service.http("POST", `/v1/agents/${agent.id}/identity/registration`, {
      token: owner.token,
      body: { txHash },
    });
    expect(again.status).toBe(200);
    const second = await service.http("POST", `/v1/agents/${agent.id}/identity/registration`, {
      token: owner.token,
      body: { txHash: foreign },
    });
    expect(second.status).toBe(409);
    expect(second.json.code).toBe("IDENTITY_ALREADY_REGISTERED");

    const after = await service.http("GET", new URL(identity.agentURI).pathname);
    expect(after.json.registrations).toEqual([{ agentId: Number(onchainId), agentRegistry }]);
  });

  it("declared endpoints are re-checked: the page shows when each last answered", async () => {
    const owner = await newUser(service, chain.accounts[OWNER]!.privateKey);
    const agent = await ownedAgent(owner);
    await registered(owner, agent);
    // Run rounds until this agent's endpoints were asked (other tests' agents share the table).
    for (let i = 0; i < 20; i++) {
      await checkAgentEndpoints(service.ctx);
      const rows = await service.db
        .selectFrom("agent_endpoint_checks")
        .selectAll()
        .where("agent_id", "=", agent.id)
        .execute();
      if (rows.every((r) => r.last_checked_at && r.last_status !== null)) break;
    }
    const services = (await service.http("GET", `/v1/agents/${agent.id}/identity`)).json.data.services;
    const mcp = services.find((s: { name: string }) => s.name === "MCP");
    const api = services.find((s: { name: string }) => s.name === "API");
    expect(mcp).toMatchObject({ endpoint: `${siteUrl}/mcp`, lastStatus: 200, lastError: null });
    expect(mcp.lastAnsweredAt).not.toBeNull();
    expect(api).toMatchObject({ lastStatus: 503, lastAnsweredAt: null, lastError: "answered 503" });
    // Within the interval nothing is asked again.
    const before = mcp.lastCheckedAt;
    await checkAgentEndpoints(service.ctx);
    const again = (await service.http("GET", `/v1/agents/${agent.id}/identity`)).json.data.services;
    expect(again.find((s: { name: string }) => s.name === "MCP").lastCheckedAt).toBe(before);
  });
});

describe("ERC-8004 feedback from settled money", () => {
  it("the poster's feedback names the escrow settlement; feedback without one is shown apart; the agent answers", async () => {
    const owner = await newUser(service, chain.accounts[OWNER]!.privateKey);
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const agent = await ownedAgent(owner);

    // Not registered yet: no feedback can be prepared.
    const { job, settlement } = await settledJob(poster, agent);
    const unregistered = await service.http("POST", `/v1/jobs/${job.id}/feedback`, {
      token: poster.token,
      body: { value: 90 },
    });
    expect(unregistered.status).toBe(409);
    expect(unregistered.json.code).toBe("AGENT_NOT_REGISTERED");
    const identity = await registered(owner, agent);
    const onchainId = BigInt(identity.onchainAgentId);

    const stranger = await newUser(service, chain.accounts[STRANGER]!.privateKey);
    expect(
      (await service.http("POST", `/v1/jobs/${job.id}/feedback`, { token: stranger.token, body: { value: 90 } }))
        .status,
    ).toBe(403);
    expect(
      (await service.http("POST", `/v1/jobs/${job.id}/feedback`, { token: poster.token, body: { value: 101 } })).status,
    ).toBe(400);

    const prepared = await service.http("POST", `/v1/jobs/${job.id}/feedback`, {
      token: poster.token,
      body: { value: 90, comment: "On time." },
    });
    expect(prepared.status, JSON.stringify(prepared.json)).toBe(200);
    const { feedbackURI, feedbackHash, call } = prepared.json.data;
    expect(call.to).toBe(chain.config.reputationRegistryAddress);

    // The document at feedbackURI is what was hashed, and it names the settlement transaction.
    const docRes = await fetch(new URL(new URL(feedbackURI).pathname, service.baseUrl));
    const docText = await docRes.text();
    expect(keccak256(stringToBytes(docText))).toBe(feedbackHash);
    const doc = JSON.parse(docText);
    expect(doc).toMatchObject({
      agentId: Number(onchainId),
      clientAddress: `eip155:${chain.config.chainId}:${poster.address}`,
      value: 90,
      valueDecimals: 0,
      settlement: {
        jobId: job.id,
        kind: "RELEASE",
        txHash: settlement.tx_hash,
        escrowAddress: chain.config.escrowAddress,
      },
      proofOfPayment: { txHash: settlement.tx_hash, fromAddress: chain.config.escrowAddress },
    });
    // Anyone can check that money moved: the named transaction released this job's escrow.
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settlement.tx_hash as Hex });
    expect(receipt.status).toBe("success");
    expect(receipt.to?.toLowerCase()).toBe(chain.config.escrowAddress.toLowerCase());
    const released = await chain.publicClient.getContractEvents({
      address: chain.config.escrowAddress,
      abi: escrowAbi,
      fromBlock: receipt.blockNumber,
      toBlock: receipt.blockNumber,
    });
    expect(released.some((e) => e.transactionHash === settlement.tx_hash && e.eventName === "Released")).toBe(true);

    // Asking again answers the same document; another value is refused.
    const same = await service.http("POST", `/v1/jobs/${job.id}/feedback`, {
      token: poster.token,
      body: { value: 90 },
    });
    expect(same.json.data.feedbackHash).toBe(feedbackHash);
    const changed = await service.http("POST", `/v1/jobs/${job.id}/feedback`, {
      token: poster.token,
      body: { value: 10 },
    });
    expect(changed.status).toBe(409);
    expect(changed.json.code).toBe("FEEDBACK_ALREADY_PREPARED");

    // The poster signs once, from the wallet they signed in with.
    await send(POSTER, call);
    // Feedback with no settlement behind it: a stranger's, and a copy of the poster's URI and hash from another wallet.
    const give = (uri: string, hash: Hex) =>
      encodeFunctionData({
        abi: reputationAbi,
        functionName: "giveFeedback",
        args: [onchainId, 100n, 0, "starred", "", "", uri, hash],
      });
    await send(REVIEWER, { to: call.to, data: give("https://elsewhere.example/review.json", `0x${"00".repeat(32)}`) });
    await send(FORGER, { to: call.to, data: give(feedbackURI, feedbackHash) });

    const listed = await service.http("GET", `/v1/agents/${agent.id}/feedback`);
    expect(listed.status, JSON.stringify(listed.json)).toBe(200);
    const { backed, other } = listed.json.data;
    expect(backed).toHaveLength(1);
    expect(backed[0]).toMatchObject({
      clientAddress: poster.address,
      feedbackIndex: 1,
      value: "90",
      tag1: "starred",
      feedbackURI,
      feedbackHash,
      settlement: { jobId: job.id, kind: "RELEASE", txHash: settlement.tx_hash },
      revoked: false,
    });
    expect(other.map((f: { clientAddress: string }) => f.clientAddress).sort()).toEqual(
      [chain.accounts[REVIEWER]!.address, chain.accounts[FORGER]!.address].sort(),
    );
    expect(other.every((f: { settlement: unknown }) => f.settlement === null)).toBe(true);

    // The agent answers (appendResponse) from its owner's wallet.
    const missing = await service.http("POST", `/v1/agents/${agent.id}/feedback/responses`, {
      token: agent.apiKey,
      body: { clientAddress: poster.address, feedbackIndex: 2, responseURI: "https://agent.example/r.json" },
    });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe("FEEDBACK_NOT_FOUND");
    expect(
      (
        await service.http("POST", `/v1/agents/${agent.id}/feedback/responses`, {
          token: stranger.token,
          body: { clientAddress: poster.address, feedbackIndex: 1, responseURI: "https://agent.example/r.json" },
        })
      ).status,
    ).toBe(403);
    const respond = await service.http("POST", `/v1/agents/${agent.id}/feedback/responses`, {
      token: owner.token,
      body: { clientAddress: poster.address, feedbackIndex: 1, responseURI: "https://agent.example/thanks.json" },
    });
    expect(respond.status, JSON.stringify(respond.json)).toBe(200);
    await send(OWNER, respond.json.data);
    const withResponse = (await service.http("GET", `/v1/agents/${agent.id}/feedback`)).json.data.backed[0];
    expect(withResponse.responses).toEqual([
      expect.objectContaining({ responder: owner.address, responseURI: "https://agent.example/thanks.json" }),
    ]);
  });

  it("a refund backs no feedback: none is prepared, and a document naming a refund is listed as other", async () => {
    const owner = await newUser(service, chain.accounts[OWNER]!.privateKey);
    const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
    const agent = await ownedAgent(owner);
    const identity = await registered(owner, agent);
    // Funded, assigned, late with nothing delivered: the poster cancels and the escrow goes back to them.
    const job = (
      await poster.client.createJob({
        body: jobInput({ budget: "5", deadlineAt: new Date(Date.now() + 86_400_000).toISOString() }),
      })
    ).data;
    const { txHash } = await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[POSTER]!.privateKey,
      escrowJobId: hexOf(job.escrowJobId),
      amount: parseUsdc("5"),
    });
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "5" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });
    await service.db
      .updateTable("jobs")
      .set({ deadline_at: new Date(Date.now() - 60_000) })
      .where("id", "=", job.id)
      .execute();
    const cancelled = await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token });
    expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
    let refund = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", job.id)
      .executeTakeFirst();
    for (let i = 0; i < 50 && refund?.status !== "CONFIRMED"; i++) {
      await finishPendingSettlements(service.ctx).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      refund = await service.db
        .selectFrom("escrow_settlements")
        .selectAll()
        .where("job_id", "=", job.id)
        .executeTakeFirst();
    }
    expect(refund).toMatchObject({ kind: "REFUND", status: "CONFIRMED" });

    const prepared = await service.http("POST", `/v1/jobs/${job.id}/feedback`, {
      token: poster.token,
      body: { value: 10 },
    });
    expect(prepared.status, JSON.stringify(prepared.json)).toBe(409);
    expect(prepared.json.code).toBe("FEEDBACK_NOT_SETTLED");
    expect(prepared.json.message).toContain("paid the agent nothing");

    // A document naming the refund (as one prepared before this rule) is not counted as backed.
    const id = crypto.randomUUID();
    const text = JSON.stringify({ jobId: job.id, value: 10, settlement: { kind: "REFUND", txHash: refund!.tx_hash } });
    const uri = `${service.baseUrl}/v1/feedback/${id}`;
    await service.db
      .insertInto("feedback_documents")
      .values({
        id,
        job_id: job.id,
        agent_id: agent.id,
        settlement_id: refund!.id,
        client_address: poster.address.toLowerCase(),
        feedback_uri: uri,
        value: 10,
        document: text,
        document_hash: keccak256(stringToBytes(text)),
      })
      .execute();
    await send(POSTER, {
      to: chain.config.reputationRegistryAddress!,
      data: encodeFunctionData({
        abi: reputationAbi,
        functionName: "giveFeedback",
        args: [BigInt(identity.onchainAgentId), 10n, 0, "starred", "", "", uri, keccak256(stringToBytes(text))],
      }),
    });
    const listed = (await service.http("GET", `/v1/agents/${agent.id}/feedback`)).json.data;
    expect(listed.backed).toEqual([]);
    expect(listed.other).toHaveLength(1);
    expect(listed.other[0]).toMatchObject({ feedbackURI: uri, settlement: null });
  }, 120_000);

  it("the owner cannot rate their own agent on chain (the registry refuses the owner and operators)", async () => {
    const owner = await newUser(service, chain.accounts[OWNER]!.privateKey);
    const agent = await ownedAgent(owner);
    const identity = await registered(owner, agent);
    await expect(
      chain.wallet(OWNER).writeContract({
        address: chain.config.reputationRegistryAddress!,
        abi: reputationAbi,
        functionName: "giveFeedback",
        args: [BigInt(identity.onchainAgentId), 100n, 0, "", "", "", "", `0x${"00".repeat(32)}`],
      }),
    ).rejects.toThrow(/SelfFeedback/);
  });
});

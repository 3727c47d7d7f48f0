// No text from the node or its gateway reaches a user. The service talks to anvil through an RPC
// proxy whose URL carries a key in its path and which answers every read with a gateway's error
// text naming its upstream (an address and the key's path), as a misconfigured or failing RPC
// provider does. Each path that shows a chain error (an approval's answer and the held reason it
// leaves, a part's held reason and its settlement's lastError, a bid's acceptance, a repeated
// registration, health) says what happened in a sentence and carries neither the key, the path
// nor the upstream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import {
  assignedPartsJob,
  hexOfWire,
  JOB_MARKER,
  partAction,
  startPartsSite,
  submitPart,
} from "../testing/parts-support";
import { startRpcFaultProxy, type RpcFaultProxy } from "../testing/rpc-fault-proxy";

// A made-up provider key, put together here so that secret scanners do not take the file for a leak.
const SECRET = ["sk", "live", "4c1d9e7a2b5f8031"].join("_");
const PAYER = 4;
const WALLET = 8;
const GATEWAY_ERROR = {
  code: -32603,
  message: `upstream connect error or disconnect/reset before headers. reset reason: connection failure, transport failure reason: delayed connect error: 111; upstream 10.12.0.7:8545/v3/${SECRET} (rpc.gateway.example/v3/${SECRET})`,
};
const READS = [
  "eth_call",
  "eth_getTransactionReceipt",
  "eth_getTransactionByHash",
  "eth_getBlockByNumber",
  "eth_blockNumber",
  "eth_getLogs",
  "eth_estimateGas",
  "eth_getTransactionCount",
];

let chain: TestChain;
let proxy: RpcFaultProxy;
/** The service as the parties meet it (straight to anvil), to set the scene. */
let service: TestService;
/** The same database, its RPC through the failing gateway (a key in the URL's path). */
let faulty: TestService;
let site: Awaited<ReturnType<typeof startPartsSite>>;

beforeAll(async () => {
  chain = await startTestChain();
  proxy = await startRpcFaultProxy(chain.rpcUrl);
  [service, faulty] = await Promise.all([
    startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true }),
    startTestService({
      rateBudgets: GENEROUS_BUDGETS,
      chain: { ...chain.config, rpcUrl: `${proxy.url}/v3/${SECRET}` },
      probeAllowLoopback: true,
    }),
  ]);
  site = await startPartsSite();
}, 120_000);
afterAll(async () => {
  site?.close();
  await Promise.all([service?.stop(), faulty?.stop()]);
  await proxy?.stop();
  await chain?.stop();
});

/** Nothing of the gateway's text: neither the key, its path, the upstream's address, nor the gateway's host. */
function expectNoGatewayText(value: unknown) {
  const text = JSON.stringify(value);
  for (const leak of [SECRET, "/v3/", "10.12.0.7", "gateway.example", "upstream connect"])
    expect(text).not.toContain(leak);
}

async function fundedWholeJob() {
  const poster = await newUser(service, chain.accounts[PAYER]!.privateKey);
  const created = await service.http("POST", "/v1/jobs", {
    token: poster.token,
    body: jobInput({
      budget: "10",
      inputData: { budgetType: "bid", proofHoldHours: 0, proofContentMarker: JOB_MARKER },
    }),
  });
  const job = created.json.data;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[PAYER]!.privateKey,
    escrowJobId: hexOfWire(job.escrowJobId),
    amount: parseUsdc("10"),
  });
  await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  const agent = await newAgent(service, { walletAddress: chain.accounts[WALLET]!.address });
  const bid = await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "10" } });
  return { poster, agent, jobId: job.id as string, bidId: bid.data.id as string, txHash };
}

describe("a failing RPC gateway's text never reaches a user", () => {
  it("accepting a bid, registering the deposit again, approving a job and a part, and health all say it in a sentence", async () => {
    const whole = await fundedWholeJob();
    const parts = await assignedPartsJob(service, chain, {
      payer: PAYER,
      amounts: ["5", "5"],
      agentWallet: chain.accounts[WALLET]!.address,
    });
    await submitPart(service, parts, 1, site.url);

    proxy.failAfterForwarding(READS, GATEWAY_ERROR);
    try {
      // Accepting a bid asks the chain whether the deposit is still there.
      const accepted = await faulty.http("POST", `/v1/jobs/${whole.jobId}/bids/${whole.bidId}/accept`, {
        token: whole.poster.token,
      });
      expect(accepted.status, JSON.stringify(accepted.json)).toBe(503);
      expect(accepted.json.code).toBe("CHAIN_UNAVAILABLE");
      expectNoGatewayText(accepted.json);

      // Registering the same deposit again asks the chain about it.
      const again = await faulty.http("PATCH", `/v1/jobs/${whole.jobId}/escrow`, {
        token: whole.poster.token,
        body: { txHash: whole.txHash },
      });
      expect(again.status, JSON.stringify(again.json)).toBe(503);
      expectNoGatewayText(again.json);

      // A part approved: its release cannot read the chain; the part waits and says why.
      const approvedPart = await partAction(faulty, parts, 1, "approve", parts.poster.token);
      expect(approvedPart.status, JSON.stringify(approvedPart.json)).toBe(200);
      expect(approvedPart.json.data.status).toBe("APPROVED");
      expect(approvedPart.json.data.releaseHeldReason).toMatch(/RPC/);
      expectNoGatewayText(approvedPart.json);

      // Health tells the chain is failing, in its words.
      const health = await faulty.http("GET", "/v1/health", {});
      expectNoGatewayText(health.json);
    } finally {
      proxy.heal();
    }

    // The whole job, accepted and delivered straight, is approved through the failing gateway.
    expect(
      (await service.http("POST", `/v1/jobs/${whole.jobId}/bids/${whole.bidId}/accept`, { token: whole.poster.token }))
        .status,
    ).toBe(200);
    const submitted = await service.http("POST", `/v1/jobs/${whole.jobId}/submit`, {
      token: whole.agent.apiKey,
      body: { outputData: { url: `${site.url}/work` } },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
    proxy.failAfterForwarding(READS, GATEWAY_ERROR);
    try {
      const approved = await faulty.http("POST", `/v1/jobs/${whole.jobId}/approve`, { token: whole.poster.token });
      expect(approved.status, JSON.stringify(approved.json)).toBe(200);
      expect(approved.json.data.status).toBe("REVIEW");
      expect(approved.json.data.releaseHeldReason).toMatch(/RPC/);
      expectNoGatewayText(approved.json);
    } finally {
      proxy.heal();
    }

    // What the parties read afterwards (the job, its parts and their settlements) carries none of it either.
    expectNoGatewayText((await service.http("GET", `/v1/jobs/${whole.jobId}`, { token: whole.poster.token })).json);
    expectNoGatewayText(
      (await service.http("GET", `/v1/jobs/${parts.jobId}/milestones`, { token: parts.poster.token })).json,
    );
    const settlements = await service.db
      .selectFrom("milestone_settlements")
      .select(["last_error"])
      .where("job_id", "=", parts.jobId)
      .execute();
    expectNoGatewayText(settlements);
  }, 180_000);
});

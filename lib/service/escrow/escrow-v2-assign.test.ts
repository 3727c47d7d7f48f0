import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zeroAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { escrowV2Abi } from "@/lib/chain/abi";
import { erc20BalanceOf, getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestAgent,
  type TestService,
  type TestUser,
} from "../testing/harness";

// Accepting a bid on a job funded in EscrowV2 assigns the agent on chain with the payer's consent,
// and the settlements then pay that agent only (docs/escrow-v2.md, steps 3 and 4), on a real anvil
// chain through the HTTP surface: the EIP-712 Assign asked for and relayed, a signature by another
// wallet refused before anything is sent, a payer's own assign found, a release to the address the
// agent moved to, and no settlement close to the slot's expiry.

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
const POSTER = 2;
const STRANGER = 4;
const AGENT_WALLET = 7;
const MOVED_WALLET = 8;
const DAY = 24n * 60n * 60n;
/** Long enough for the job's windows (the service holds bids on a deposit expiring sooner: step 2). */
const EXPIRES_IN = 60n * DAY;
const page = `<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><table><tr><td>Ada</td></tr></table></body></html>`;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(page);
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
const address = (index: number) => chain.accounts[index]!.address;
const chainNow = async () => (await chain.publicClient.getBlock()).timestamp;
const balanceOf = (index: number) => erc20BalanceOf({ config: chain.config, address: address(index) });
const slotOf = (escrowJobId: Hex) => getEscrowV2({ config: chain.config, escrowJobId, payer: address(POSTER) });

interface BidOnV2Job {
  poster: TestUser;
  agent: TestAgent;
  job: { id: string; escrowJobId: Hex };
  bidId: string;
}

/** A job of 40 USDC (`extra` on its input) posted and funded in EscrowV2 by the poster, expiring EXPIRES_IN from the chain's now. */
async function fundedV2Job(extra: Record<string, unknown> = {}) {
  const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
  const created = (
    await poster.client.createJob({
      body: jobInput({ budget: "40", inputData: { budgetType: "bid", proofHoldHours: 0 }, ...extra }),
    })
  ).data;
  const job = { id: created.id, escrowJobId: hexOf(created.escrowJobId) };
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: chain.accounts[POSTER]!.privateKey,
    escrowJobId: job.escrowJobId,
    amount: parseUsdc("40"),
    expiresAt: (await chainNow()) + EXPIRES_IN,
  });
  const funded = await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
  expect(funded.data).toMatchObject({ escrowVersion: 2 });
  return { poster, job };
}

/** A job funded in EscrowV2 with one bid of an agent paid at AGENT_WALLET. */
async function bidOnV2Job(): Promise<BidOnV2Job> {
  const { poster, job } = await fundedV2Job();
  const agent = await newAgent(service, { walletAddress: address(AGENT_WALLET) });
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  return { poster, agent, job, bidId: bid.id };
}

const accept = (b: BidOnV2Job, body?: Record<string, unknown>) =>
  service.http("POST", `/v1/jobs/${b.job.id}/bids/${b.bidId}/accept`, {
    token: b.poster.token,
    ...(body ? { body } : {}),
  });

/** The Assign the service asks for, signed by the key of account `index`. */
async function signAssignment(assignment: any, index: number): Promise<Hex> {
  return privateKeyToAccount(chain.accounts[index]!.privateKey).signTypedData({
    domain: assignment.domain,
    types: assignment.types,
    primaryType: "Assign",
    message: { ...assignment.message, deadline: BigInt(assignment.message.deadline) },
  });
}

/** Accepts with the poster's signature of the Assign the service asks for. */
async function acceptSigned(b: BidOnV2Job) {
  const asked = await accept(b);
  expect(asked.status, JSON.stringify(asked.json)).toBe(409);
  const res = await accept(b, { assignmentSignature: await signAssignment(asked.json.assignment, POSTER) });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res;
}

/** The agent delivers, the poster approves (no proof hold): the release is sent at once. */
async function deliverAndApprove(b: BidOnV2Job) {
  const submitted = await service.http("POST", `/v1/jobs/${b.job.id}/submit`, {
    token: b.agent.apiKey,
    body: { outputData: { url: `${siteUrl}/${b.job.id}` } },
  });
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  return service.http("POST", `/v1/jobs/${b.job.id}/approve`, { token: b.poster.token });
}

const jobOf = async (b: BidOnV2Job) => (await b.poster.client.getJob({ params: { id: b.job.id } })).data;

describe("assigning the agent of a job funded in EscrowV2, and settling it", () => {
  it("asks for the payer's Assign, refuses another wallet's signature with nothing changed, relays the payer's, and the approval pays the assigned agent from EscrowV2", async () => {
    const b = await bidOnV2Job();
    const asked = await accept(b);
    expect(asked.status, JSON.stringify(asked.json)).toBe(409);
    expect(asked.json.code).toBe("ASSIGNMENT_SIGNATURE_REQUIRED");
    const { assignment } = asked.json;
    expect(assignment).toMatchObject({
      domain: {
        name: "AgentWorkEscrow",
        version: "2",
        chainId: 31337,
        verifyingContract: chain.config.escrowV2Address,
      },
      primaryType: "Assign",
      message: { jobId: b.job.escrowJobId, payer: address(POSTER), agent: address(AGENT_WALLET) },
    });
    expect(assignment.message.deadline).toBeGreaterThan(Number(await chainNow()) + 3000);

    // A signature by another wallet: refused before anything is sent; nothing changed anywhere.
    const forged = await accept(b, { assignmentSignature: await signAssignment(assignment, STRANGER) });
    expect(forged.status, JSON.stringify(forged.json)).toBe(400);
    expect(forged.json).toMatchObject({ code: "ASSIGNMENT_SIGNATURE_INVALID", reason: "InvalidSignature" });
    expect((await jobOf(b)).status).toBe("OPEN");
    const bids = await b.poster.client.listJobBids({ params: { jobId: b.job.id } });
    expect(bids.data.find((x) => x.id === b.bidId)?.status).toBe("PENDING");
    expect((await slotOf(b.job.escrowJobId)).agent).toBe(zeroAddress);
    const kept = await service.db
      .selectFrom("jobs")
      .select("escrow_assign_tx_hash")
      .where("id", "=", b.job.id)
      .executeTakeFirstOrThrow();
    expect(kept.escrow_assign_tx_hash).toBeNull();

    // The payer's signature of the Assign it was given (the fresh one of the refusal's body).
    const res = await accept(b, { assignmentSignature: await signAssignment(forged.json.assignment, POSTER) });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.job).toMatchObject({ status: "IN_PROGRESS", agentId: b.agent.id });
    expect((await slotOf(b.job.escrowJobId)).agent).toBe(address(AGENT_WALLET));

    const before = await balanceOf(AGENT_WALLET);
    const approved = await deliverAndApprove(b);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    const job = await jobOf(b);
    expect(job.status).toBe("COMPLETED");
    // 40 less the contract's 5% fee, from EscrowV2.
    expect((await balanceOf(AGENT_WALLET)) - before).toBe(parseUsdc("38"));
    expect((await slotOf(b.job.escrowJobId)).state).toBe("RELEASED");
    // The books agree with EscrowV2: the confirmed release is checked against the slot there.
    expect((await reconcileEscrow(service.ctx)).differences.filter((d) => d.jobId === b.job.id)).toEqual([]);
  });

  it("a payer that sent assign itself accepts without a signature; a slot paying another address refuses the bid", async () => {
    const b = await bidOnV2Job();
    const deadline = (await chainNow()) + 600n;
    const hash = await chain.wallet(POSTER).writeContract({
      address: chain.config.escrowV2Address!,
      abi: escrowV2Abi,
      functionName: "assign",
      args: [b.job.escrowJobId, address(POSTER), address(AGENT_WALLET), deadline, "0x"],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    const res = await accept(b);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.job.status).toBe("IN_PROGRESS");

    const other = await bidOnV2Job();
    const elsewhere = await chain.wallet(POSTER).writeContract({
      address: chain.config.escrowV2Address!,
      abi: escrowV2Abi,
      functionName: "assign",
      args: [other.job.escrowJobId, address(POSTER), address(MOVED_WALLET), deadline, "0x"],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: elsewhere });
    const refused = await accept(other);
    expect(refused.status, JSON.stringify(refused.json)).toBe(409);
    expect(refused.json).toMatchObject({ code: "AGENT_ALREADY_ASSIGNED", assignedAgent: address(MOVED_WALLET) });
    expect((await jobOf(other)).status).toBe("OPEN");
  });

  it("a bid its agent's capacity refuses is refused before the slot is assigned (an assignment cannot be undone)", async () => {
    const b = await bidOnV2Job();
    const paused = await service.http("PATCH", `/v1/agents/${b.agent.id}`, {
      token: b.agent.apiKey,
      body: { maxActiveJobs: 0 },
    });
    expect(paused.status, JSON.stringify(paused.json)).toBe(200);
    const asked = await accept(b);
    expect(asked.status, JSON.stringify(asked.json)).toBe(409);
    expect(asked.json.code).toBe("AGENT_AT_CAPACITY");
    expect((await slotOf(b.job.escrowJobId)).agent).toBe(zeroAddress);
  });

  it("a release pays the address the assigned agent moved its payout to", async () => {
    const b = await bidOnV2Job();
    await acceptSigned(b);
    const hash = await chain.wallet(AGENT_WALLET).writeContract({
      address: chain.config.escrowV2Address!,
      abi: escrowV2Abi,
      functionName: "moveAgent",
      args: [b.job.escrowJobId, address(POSTER), address(MOVED_WALLET)],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    const [movedBefore, agentBefore] = [await balanceOf(MOVED_WALLET), await balanceOf(AGENT_WALLET)];
    const approved = await deliverAndApprove(b);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect((await jobOf(b)).status).toBe("COMPLETED");
    expect((await balanceOf(MOVED_WALLET)) - movedBefore).toBe(parseUsdc("38"));
    expect(await balanceOf(AGENT_WALLET)).toBe(agentBefore);
  });

  it("a bounty's approval takes the same assignment: refused without the payer's signature, then the claimant is assigned and paid", async () => {
    const { poster, job } = await fundedV2Job({ participationMode: "BOUNTY" });
    const agent = await newAgent(service, { walletAddress: address(AGENT_WALLET) });
    const claimed = await service.http("POST", `/v1/jobs/${job.id}/claim`, {
      token: agent.apiKey,
      body: { agentId: agent.id },
    });
    expect(claimed.status, JSON.stringify(claimed.json)).toBe(200);
    const b = { poster, agent, job, bidId: "" };
    const submitted = await service.http("POST", `/v1/jobs/${job.id}/submit`, {
      token: agent.apiKey,
      body: { outputData: { url: `${siteUrl}/${job.id}` } },
    });
    expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
    const approve = (body?: Record<string, unknown>) =>
      service.http("POST", `/v1/jobs/${job.id}/approve`, { token: poster.token, ...(body ? { body } : {}) });
    const asked = await approve();
    expect(asked.status, JSON.stringify(asked.json)).toBe(409);
    expect(asked.json.code).toBe("ASSIGNMENT_SIGNATURE_REQUIRED");
    expect(asked.json.assignment.message).toMatchObject({ agent: address(AGENT_WALLET), payer: address(POSTER) });
    expect((await jobOf(b)).status).toBe("REVIEW");
    expect((await slotOf(job.escrowJobId)).agent).toBe(zeroAddress);

    const before = await balanceOf(AGENT_WALLET);
    const approved = await approve({ assignmentSignature: await signAssignment(asked.json.assignment, POSTER) });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect((await jobOf(b)).status).toBe("COMPLETED");
    expect((await balanceOf(AGENT_WALLET)) - before).toBe(parseUsdc("38"));
  });

  // Last: it moves the chain's clock to the slot's expiry.
  it("no settlement is sent within 15 minutes of the slot's expiry: the money stays for claimRefund", async () => {
    const b = await bidOnV2Job();
    await acceptSigned(b);
    // The chain's clock to 5 minutes before the slot's expiry.
    await chain.testClient.increaseTime({ seconds: Number(EXPIRES_IN) - 5 * 60 });
    await chain.testClient.mine({ blocks: 1 });
    const approved = await deliverAndApprove(b);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    const job = await jobOf(b);
    expect(job.status).toBe("REVIEW");
    expect(job.releaseHeldReason).toMatch(/expires at .* within 15 minutes/);
    const settlement = await service.db
      .selectFrom("escrow_settlements")
      .select(["status", "sent_tx_hash"])
      .where("job_id", "=", b.job.id)
      .executeTakeFirstOrThrow();
    expect(settlement).toMatchObject({ status: "FAILED", sent_tx_hash: null });
    expect((await slotOf(b.job.escrowJobId)).state).toBe("FUNDED");
  });
});

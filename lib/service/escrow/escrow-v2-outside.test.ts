import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { escrowV2Abi } from "@/lib/chain/abi";
import { erc20BalanceOf, getEscrowV2 } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import { isReleasedOnChain } from "./released";
import { watchDeposits } from "./deposit-watch";
import { followOutsideSettlements } from "./outside-settlements";
import { releaseApprovedJob } from "../deliverables/approve-job";
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

// Money moved in EscrowV2 without the service (docs/escrow-v2.md, step 6), on a real anvil chain
// and through the HTTP surface, with no worker running (the test service starts none): the payer's
// own release, the payer's Approve kept for the agent and relayed by the agent, the agent's own
// refund, a service settlement that meets a slot settled outside, and a claimRefund after the
// expiry. Each is recorded into the books once (the deposit watcher's round), with no transfer of
// the service's, and the reconciliation finds no difference.

let chain: TestChain;
let service: TestService;
let site: http.Server;
let siteUrl: string;
const POSTER = 2;
const STRANGER = 4;
const OTHER_USER = 5;
const AGENT_WALLET = 7;
const DAY = 24n * 60n * 60n;
const EXPIRES_IN = 60n * DAY;
/** Jobs whose delivered work the site no longer serves (the fresh check at approval fails). */
const down = new Set<string>();
const page = `<html><head><title>Leads</title></head><body><h1>50 fintech leads</h1><table><tr><td>Ada</td></tr></table></body></html>`;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config, probeAllowLoopback: true });
  site = http.createServer((req, res) => {
    if ([...down].some((jobId) => req.url?.includes(jobId))) {
      res.writeHead(404).end();
      return;
    }
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
const operatorNonce = () =>
  chain.publicClient.getTransactionCount({ address: privateKeyToAccount(chain.config.operatorPrivateKey).address });

interface V2Job {
  poster: TestUser;
  agent: TestAgent;
  job: { id: string; escrowJobId: Hex };
}

/** Two parts of the 40 USDC: 24, then 16. */
const TWO_PARTS = [
  { title: "Leads", amountUsdc: "24", acceptanceCriteria: "The first 30 leads" },
  { title: "More leads", amountUsdc: "16", acceptanceCriteria: "The other 20 leads" },
];

/**
 * A job of 40 USDC funded in EscrowV2, a bid accepted with the payer's Assign, the work delivered
 * (REVIEW); with `parts`, a job in two parts whose first part is delivered instead (SUBMITTED).
 */
async function deliveredV2Job(proofHoldHours = 0, parts?: typeof TWO_PARTS): Promise<V2Job> {
  const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
  const created = (
    await poster.client.createJob({
      body: jobInput({
        budget: "40",
        inputData: { budgetType: "bid", proofHoldHours },
        ...(parts ? { milestones: parts } : {}),
      }),
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
  expect((await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } })).data).toMatchObject({
    escrowVersion: 2,
  });
  const agent = await newAgent(service, { walletAddress: address(AGENT_WALLET) });
  const bid = (await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "40" } }))
    .data;
  const acceptPath = `/v1/jobs/${job.id}/bids/${bid.id}/accept`;
  const asked = await service.http("POST", acceptPath, { token: poster.token });
  expect(asked.status, JSON.stringify(asked.json)).toBe(409);
  const { assignment } = asked.json;
  const assignmentSignature = await privateKeyToAccount(chain.accounts[POSTER]!.privateKey).signTypedData({
    domain: assignment.domain,
    types: assignment.types,
    primaryType: "Assign",
    message: { ...assignment.message, deadline: BigInt(assignment.message.deadline) },
  });
  const accepted = await service.http("POST", acceptPath, { token: poster.token, body: { assignmentSignature } });
  expect(accepted.status, JSON.stringify(accepted.json)).toBe(200);
  const submitted = await service.http(
    "POST",
    parts ? `/v1/jobs/${job.id}/milestones/1/submit` : `/v1/jobs/${job.id}/submit`,
    {
      token: agent.apiKey,
      body: { outputData: { url: `${siteUrl}/${job.id}` } },
    },
  );
  expect(submitted.status, JSON.stringify(submitted.json)).toBe(200);
  return { poster, agent, job };
}

const jobAsPoster = async (b: V2Job) =>
  (await service.http("GET", `/v1/jobs/${b.job.id}`, { token: b.poster.token })).json.data;
const jobAsAgent = async (b: V2Job) =>
  (await service.http("GET", `/v1/jobs/${b.job.id}`, { token: b.agent.apiKey })).json.data;
const approve = (b: V2Job, body?: Record<string, unknown>) =>
  service.http("POST", `/v1/jobs/${b.job.id}/approve`, { token: b.poster.token, ...(body ? { body } : {}) });
const settlementOf = (jobId: string) =>
  service.db.selectFrom("escrow_settlements").selectAll().where("job_id", "=", jobId).executeTakeFirst();
const eventsOf = (jobId: string, type: string) =>
  service.db
    .selectFrom("domain_events")
    .select(["data", "recipient_ids"])
    .where("job_id", "=", jobId)
    .where("type", "=", type)
    .execute();

/** A contract call sent from account `index` and mined. */
async function send(index: number, functionName: string, args: readonly unknown[]): Promise<Hex> {
  const hash = await chain.wallet(index).writeContract({
    address: chain.config.escrowV2Address!,
    abi: escrowV2Abi,
    functionName: functionName as "release",
    args: args as [Hex, Hex],
  });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return hash;
}

/** The deposit watcher's round for this job, after the chain has moved on past the settlement's block. */
async function watch(jobId: string) {
  await chain.testClient.mine({ blocks: 2 });
  return watchDeposits(service.ctx, { onlyJobIds: [jobId], onlyEscrowJobIds: [] });
}

const differencesOf = async (jobId: string) =>
  (await reconcileEscrow(service.ctx)).differences.filter((d) => d.jobId === jobId);

describe("money moved in EscrowV2 without the service", () => {
  it("the payer releases on chain itself: the job is COMPLETED and paid in the books, with no transfer of the service's and no difference", async () => {
    const b = await deliveredV2Job();
    const [agentBefore, nonceBefore] = [await balanceOf(AGENT_WALLET), await operatorNonce()];
    const hash = await send(POSTER, "release", [b.job.escrowJobId, address(POSTER)]);
    expect((await balanceOf(AGENT_WALLET)) - agentBefore).toBe(parseUsdc("38"));

    const round = await watch(b.job.id);
    expect(round?.settledOutside).toEqual([b.job.id]);
    const job = await jobAsPoster(b);
    expect(job).toMatchObject({ status: "COMPLETED", releaseTxHash: hash, escrowSettledOutside: "PAYER_RELEASE" });
    expect(job.completedAt).not.toBeNull();
    expect(await settlementOf(b.job.id)).toMatchObject({
      kind: "RELEASE",
      status: "CONFIRMED",
      tx_hash: hash,
      settled_outside: "PAYER_RELEASE",
      to_address: address(AGENT_WALLET),
      sent_tx_hash: null,
    });
    // Released for the agent's records and reviews, as a release the service sent.
    expect(await isReleasedOnChain(service.db, b.job.id)).toBe(true);
    const paid = await eventsOf(b.job.id, "job.paid");
    expect(paid).toHaveLength(1);
    expect(paid[0]!.data).toMatchObject({ settledOutside: "PAYER_RELEASE", net: "38", txHash: hash });
    expect(paid[0]!.recipient_ids).toContain(b.agent.id);
    // The job's timeline (GET /v1/jobs/:id/events) tells it the same way.
    const timeline = await service.http("GET", `/v1/jobs/${b.job.id}/events`, { token: b.poster.token });
    expect(timeline.json.data.at(-1)).toMatchObject({
      type: "job.paid",
      data: { txHash: hash, settledOutside: "PAYER_RELEASE", amountUsdc: "38" },
    });
    // The service sent nothing, and a second round records nothing again.
    expect(await operatorNonce()).toBe(nonceBefore);
    expect((await watch(b.job.id))?.settledOutside).toEqual([]);
    expect(await eventsOf(b.job.id, "job.paid")).toHaveLength(1);
    expect(await differencesOf(b.job.id)).toEqual([]);
    expect((await reconcileEscrow(service.ctx)).settledOutsideService).toBeGreaterThanOrEqual(1);
  });

  it("the approval keeps the payer's Approve for the agent alone; the agent relays it with the service's workers stopped, is paid, and the service records it", async () => {
    // A proof hold: the service would release tomorrow; the agent does not wait.
    const b = await deliveredV2Job(24);
    const toSign = (await jobAsPoster(b)).escrowApproval;
    expect(toSign).toMatchObject({
      status: "TO_SIGN",
      signature: null,
      approval: {
        domain: {
          name: "AgentWorkEscrow",
          version: "2",
          chainId: 31337,
          verifyingContract: chain.config.escrowV2Address,
        },
        primaryType: "Approve",
        message: { jobId: b.job.escrowJobId, payer: address(POSTER), agent: address(AGENT_WALLET) },
      },
    });
    const sign = (index: number) =>
      privateKeyToAccount(chain.accounts[index]!.privateKey).signTypedData({
        domain: toSign.approval.domain,
        types: toSign.approval.types,
        primaryType: "Approve",
        message: { ...toSign.approval.message, deadline: BigInt(toSign.approval.message.deadline) },
      });

    // The payer's signature with an approval the fresh check refuses: nothing approved, nothing kept.
    down.add(b.job.id);
    const refused = await approve(b, { approvalSignature: await sign(POSTER) });
    expect(refused.status, JSON.stringify(refused.json)).toBe(409);
    expect(refused.json.code).toBe("PROOF_CHECK_FAILED");
    expect((await jobAsAgent(b)).escrowApproval).toBeUndefined();
    down.delete(b.job.id);

    // Another wallet's signature: refused by the contract's own check, nothing approved or kept.
    const forged = await approve(b, { approvalSignature: await sign(STRANGER) });
    expect(forged.status, JSON.stringify(forged.json)).toBe(400);
    expect(forged.json).toMatchObject({ code: "APPROVAL_SIGNATURE_INVALID", reason: "InvalidSignature" });
    expect(forged.json.approval.message.agent).toBe(address(AGENT_WALLET));
    expect((await jobAsPoster(b)).approvedAt).toBeNull();
    const bad = await approve(b, { approvalSignature: "0x1234" });
    expect(bad.status, JSON.stringify(bad.json)).toBe(400);

    const approved = await approve(b, { approvalSignature: await sign(POSTER) });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data).toMatchObject({ status: "REVIEW", escrowApproval: { status: "KEPT", signature: null } });
    expect(approved.json.data.approvedAt).not.toBeNull();
    // Nobody but the job's parties sees it; only its agent sees the signature and the call.
    const other = await newUser(service, chain.accounts[OTHER_USER]!.privateKey);
    const seen = await service.http("GET", `/v1/jobs/${b.job.id}`, { token: other.token });
    expect(seen.json.data.escrowApproval).toBeUndefined();
    const anonymous = await service.http("GET", `/v1/jobs/${b.job.id}`);
    expect(anonymous.json.data?.escrowApproval).toBeUndefined();
    const kept = (await jobAsAgent(b)).escrowApproval;
    expect(kept).toMatchObject({
      status: "KEPT",
      call: {
        contract: chain.config.escrowV2Address,
        functionName: "releaseWithApproval",
        args: [b.job.escrowJobId, address(POSTER), toSign.approval.message.deadline, kept.signature],
      },
    });

    // The agent's own wallet sends it: no service involved.
    const [agentBefore, nonceBefore] = [await balanceOf(AGENT_WALLET), await operatorNonce()];
    const [jobId, payer, deadline, signature] = kept.call.args;
    const hash = await send(AGENT_WALLET, "releaseWithApproval", [jobId, payer, BigInt(deadline), signature]);
    expect((await balanceOf(AGENT_WALLET)) - agentBefore).toBe(parseUsdc("38"));

    expect((await watch(b.job.id))?.settledOutside).toEqual([b.job.id]);
    expect(await jobAsPoster(b)).toMatchObject({
      status: "COMPLETED",
      releaseTxHash: hash,
      escrowSettledOutside: "APPROVAL_RELEASE",
    });
    // The service's own release, once due, finds nothing to do.
    expect(await releaseApprovedJob(service.ctx, b.job.id)).toBe("NOT_DUE");
    expect(await operatorNonce()).toBe(nonceBefore);
    expect(await differencesOf(b.job.id)).toEqual([]);
  });

  it("a job in parts settled outside settles every part still owed: released by the payer, each is RELEASED; given back by the agent, each is REFUNDED, the delivered one too", async () => {
    const partsOf = async (b: V2Job) =>
      (await service.http("GET", `/v1/jobs/${b.job.id}/milestones`, { token: b.poster.token })).json.data.map(
        (m: { status: string }) => m.status,
      );
    const released = await deliveredV2Job(0, TWO_PARTS);
    expect(await partsOf(released)).toEqual(["SUBMITTED", "OPEN"]);
    const hash = await send(POSTER, "release", [released.job.escrowJobId, address(POSTER)]);
    expect((await watch(released.job.id))?.settledOutside).toEqual([released.job.id]);
    expect(await jobAsPoster(released)).toMatchObject({ status: "COMPLETED", releaseTxHash: hash });
    expect(await partsOf(released)).toEqual(["RELEASED", "RELEASED"]);
    expect(await differencesOf(released.job.id)).toEqual([]);

    const refunded = await deliveredV2Job(0, TWO_PARTS);
    await send(AGENT_WALLET, "refund", [refunded.job.escrowJobId, address(POSTER)]);
    expect((await watch(refunded.job.id))?.settledOutside).toEqual([refunded.job.id]);
    expect(await jobAsPoster(refunded)).toMatchObject({ status: "CANCELLED" });
    expect(await partsOf(refunded)).toEqual(["REFUNDED", "REFUNDED"]);
    expect(await differencesOf(refunded.job.id)).toEqual([]);
  });

  it("the agent gives the money back on chain: the job is CANCELLED and refunded to the poster", async () => {
    const b = await deliveredV2Job();
    const posterBefore = await balanceOf(POSTER);
    const hash = await send(AGENT_WALLET, "refund", [b.job.escrowJobId, address(POSTER)]);
    expect((await balanceOf(POSTER)) - posterBefore).toBe(parseUsdc("40"));
    await watch(b.job.id);
    expect(await jobAsPoster(b)).toMatchObject({
      status: "CANCELLED",
      refundTxHash: hash,
      releaseTxHash: null,
      escrowSettledOutside: "AGENT_REFUND",
    });
    expect(await settlementOf(b.job.id)).toMatchObject({
      kind: "REFUND",
      status: "CONFIRMED",
      amount_units: "40000000",
    });
    const refunded = await eventsOf(b.job.id, "job.refunded");
    expect(refunded).toHaveLength(1);
    expect(refunded[0]!.data).toMatchObject({ settledOutside: "AGENT_REFUND", amount: "40" });
    expect(await isReleasedOnChain(service.db, b.job.id)).toBe(false);
    expect(await differencesOf(b.job.id)).toEqual([]);
  });

  it("a service release that meets a slot the payer released is recorded once, with its transaction, and sends nothing", async () => {
    const b = await deliveredV2Job();
    const agentBefore = await balanceOf(AGENT_WALLET);
    const nonceBefore = await operatorNonce();
    const hash = await send(POSTER, "release", [b.job.escrowJobId, address(POSTER)]);
    // The poster approves before any watcher round: the service's release finds the payer's.
    const approved = await approve(b);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data).toMatchObject({
      status: "COMPLETED",
      releaseTxHash: hash,
      escrowSettledOutside: "PAYER_RELEASE",
    });
    expect((await balanceOf(AGENT_WALLET)) - agentBefore).toBe(parseUsdc("38"));
    expect(await operatorNonce()).toBe(nonceBefore);
    expect(await settlementOf(b.job.id)).toMatchObject({ status: "CONFIRMED", tx_hash: hash, sent_tx_hash: null });
    expect((await watch(b.job.id))?.settledOutside).toEqual([]);
    expect(await eventsOf(b.job.id, "job.paid")).toHaveLength(1);
    expect(await differencesOf(b.job.id)).toEqual([]);
  });

  it("a service release that meets a slot the agent refunded ends as that refund, not FAILED nor retried", async () => {
    const b = await deliveredV2Job();
    const nonceBefore = await operatorNonce();
    const hash = await send(AGENT_WALLET, "refund", [b.job.escrowJobId, address(POSTER)]);
    const approved = await approve(b);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json.data).toMatchObject({
      status: "CANCELLED",
      refundTxHash: hash,
      escrowSettledOutside: "AGENT_REFUND",
    });
    expect(await settlementOf(b.job.id)).toMatchObject({
      kind: "REFUND",
      status: "CONFIRMED",
      tx_hash: hash,
      settled_outside: "AGENT_REFUND",
    });
    expect(await operatorNonce()).toBe(nonceBefore);
    expect(await differencesOf(b.job.id)).toEqual([]);
  });

  it("counts a settlement made outside only once its block is final (CHAIN_FINALITY=safe), then once", async () => {
    const b = await deliveredV2Job();
    // The same service, on a chain whose blocks count once anvil's `safe` tag has passed them.
    const safe = {
      ...service.ctx,
      config: { ...service.ctx.config, chain: { ...chain.config, finality: "safe" as const } },
    };
    const hash = await send(POSTER, "release", [b.job.escrowJobId, address(POSTER)]);
    expect(await followOutsideSettlements(safe, { onlyJobIds: [b.job.id] })).toEqual([]);
    expect((await jobAsPoster(b)).status).toBe("REVIEW");
    expect(await settlementOf(b.job.id)).toBeUndefined();

    const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    for (let i = 0; i < 10; i++) {
      const tagged = await chain.publicClient.getBlock({ blockTag: "safe" });
      if (tagged.number !== null && tagged.number >= head) break;
      await chain.testClient.mine({ blocks: 32 });
    }
    expect(await followOutsideSettlements(safe, { onlyJobIds: [b.job.id] })).toEqual([b.job.id]);
    expect(await jobAsPoster(b)).toMatchObject({ status: "COMPLETED", releaseTxHash: hash });
    expect(await followOutsideSettlements(safe, { onlyJobIds: [b.job.id] })).toEqual([]);
    expect(await eventsOf(b.job.id, "job.paid")).toHaveLength(1);
  });

  // Last: it moves the chain's clock past the slots' expiry.
  it("anyone's claimRefund after the expiry: a release the service could not send ends refunded, and the poster sees it", async () => {
    const b = await deliveredV2Job();
    // Within 15 minutes of the expiry the service sends no release: FAILED, the money stays for claimRefund.
    await chain.testClient.increaseTime({ seconds: Number(EXPIRES_IN) - 5 * 60 });
    await chain.testClient.mine({ blocks: 1 });
    expect((await approve(b)).status).toBe(200);
    expect(await settlementOf(b.job.id)).toMatchObject({ kind: "RELEASE", status: "FAILED" });
    // Not yet expired: the contract refuses a claim.
    await expect(
      chain.wallet(STRANGER).writeContract({
        address: chain.config.escrowV2Address!,
        abi: escrowV2Abi,
        functionName: "claimRefund",
        args: [b.job.escrowJobId, address(POSTER)],
      }),
    ).rejects.toThrow(/NotExpiredYet/);
    await chain.testClient.increaseTime({ seconds: 10 * 60 });
    await chain.testClient.mine({ blocks: 1 });
    const posterBefore = await balanceOf(POSTER);
    const hash = await send(STRANGER, "claimRefund", [b.job.escrowJobId, address(POSTER)]);
    expect((await balanceOf(POSTER)) - posterBefore).toBe(parseUsdc("40"));
    expect(
      (await getEscrowV2({ config: chain.config, escrowJobId: b.job.escrowJobId, payer: address(POSTER) })).state,
    ).toBe("REFUND_CLAIMED");

    expect((await watch(b.job.id))?.settledOutside).toEqual([b.job.id]);
    expect(await jobAsPoster(b)).toMatchObject({
      status: "CANCELLED",
      refundTxHash: hash,
      escrowSettledOutside: "CLAIM_REFUND",
      releaseHeldReason: null,
    });
    expect(await settlementOf(b.job.id)).toMatchObject({
      kind: "REFUND",
      status: "CONFIRMED",
      tx_hash: hash,
      settled_outside: "CLAIM_REFUND",
    });
    const refunded = await eventsOf(b.job.id, "job.refunded");
    expect(refunded[0]!.data).toMatchObject({ settledOutside: "CLAIM_REFUND" });
    expect(refunded[0]!.recipient_ids).toContain(b.poster.id);
    expect(await differencesOf(b.job.id)).toEqual([]);
  });
});

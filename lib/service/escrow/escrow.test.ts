import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20BalanceOf, depositToEscrow } from "@/lib/chain/escrow";
import { parseUsdc } from "@/lib/chain/units";
import { escrowJobIdToWire } from "@/lib/chain/escrow-id";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { usdcAbi } from "@/lib/chain/abi";
import { GENEROUS_BUDGETS, jobInput, newAgent, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { finishPendingSettlements, settleJob, settlementHooks } from "./settle-job";

let chain: TestChain;
let other: TestChain;
let service: TestService;
const POSTER = 1;

beforeAll(async () => {
  [chain, other] = await Promise.all([startTestChain(), startTestChain({ chainId: 31338 })]);
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
});
afterAll(async () => {
  await service?.stop();
  await Promise.all([chain?.stop(), other?.stop()]);
});

const hexOf = (wire: Record<string, number>) => `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}`;

async function postJob(budget = "40"): Promise<{ poster: TestUser; job: { id: string; escrowJobId: Record<string, number> } }> {
  const poster = await newUser(service, chain.accounts[POSTER]!.privateKey);
  const job = (await poster.client.createJob({ body: jobInput({ budget }) })).data;
  return { poster, job };
}

async function deposit(escrowJobIdHex: string, amount: string, config = chain.config, key = chain.accounts[POSTER]!.privateKey) {
  return (await depositToEscrow({ config, privateKey: key, escrowJobId: escrowJobIdHex, amount: parseUsdc(amount) })).txHash;
}

async function expectUnfunded(jobId: string) {
  const job = (await service.client().getPublicJob({ params: { id: jobId } })).data;
  expect(job.funded).toBe(false);
  expect(job.escrowTxHash).toBeNull();
}

describe("PATCH /v1/jobs/:id/escrow", () => {
  it("a verified deposit funds the job; funded lists and bids follow it", async () => {
    const { poster, job } = await postJob("40");
    expect(hexOf(job.escrowJobId)).toMatch(/^0x[0-9a-f]{64}$/);
    expect(escrowJobIdToWire(hexOf(job.escrowJobId))).toEqual(job.escrowJobId);
    const txHash = await deposit(hexOf(job.escrowJobId), "40");
    const res = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token: poster.token, body: { txHash } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ funded: true, escrowTxHash: txHash.toLowerCase(), status: "OPEN" });

    const fundedList = await service.client().listJobs({ query: { posterId: poster.id, funded: true } });
    expect(fundedList.data.map((j) => j.id)).toContain(job.id);
    const unfundedList = await service.client().listJobs({ query: { posterId: poster.id, funded: false } });
    expect(unfundedList.data.map((j) => j.id)).not.toContain(job.id);

    const agent = await newAgent(service);
    const wrong = await service.http("POST", `/v1/jobs/${job.id}/bids`, { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "35" } });
    expect(wrong.status).toBe(409);
    expect(wrong.json.code).toBe("BID_AMOUNT_MISMATCH");
    const right = await service.http("POST", `/v1/jobs/${job.id}/bids`, { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc: "40.0" } });
    expect(right.status).toBe(201);
  });

  it("refuses forged, wrong-amount, wrong-job, wrong-chain, no-event and reverted hashes and leaves the job unfunded", async () => {
    const { poster, job } = await postJob("25");
    const patch = (txHash: string) => service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token: poster.token, body: { txHash } });

    const forged = await patch(`0x${"ab".repeat(32)}`);
    expect(forged.status).toBe(422);
    expect(forged.json.code).toBe("DEPOSIT_TX_NOT_FOUND");

    // A deposit for this job's id, one unit short of its budget.
    const shortForThisJob = await patch(await deposit(hexOf(job.escrowJobId), "24.999999"));
    expect(shortForThisJob.json.code).toBe("DEPOSIT_WRONG_AMOUNT");

    const otherJob = await postJob("25");
    const wrongJob = await patch(await deposit(hexOf(otherJob.job.escrowJobId), "25"));
    expect(wrongJob.status).toBe(422);
    expect(wrongJob.json.code).toBe("DEPOSIT_WRONG_JOB");

    const wrongChain = await patch(await deposit(hexOf(job.escrowJobId), "25", other.config, other.accounts[POSTER]!.privateKey));
    expect(wrongChain.status).toBe(422);
    expect(["DEPOSIT_WRONG_CHAIN", "DEPOSIT_TX_NOT_FOUND"]).toContain(wrongChain.json.code);

    // A plain token transfer to the escrow: a successful receipt without a Deposited event.
    const wallet = chain.wallet(POSTER);
    const transfer = await wallet.writeContract({ address: chain.config.tokenAddress, abi: usdcAbi, functionName: "transfer", args: [chain.config.escrowAddress, parseUsdc("25")] });
    await chain.publicClient.waitForTransactionReceipt({ hash: transfer });
    const noEvent = await patch(transfer);
    expect(noEvent.status).toBe(422);
    expect(noEvent.json.code).toBe("DEPOSIT_NO_DEPOSIT_EVENT");

    // Reverted: a deposit for an id that is already funded reverts on chain (sent without simulation).
    const funded = await postJob("5");
    await deposit(hexOf(funded.job.escrowJobId), "5");
    await wallet.writeContract({ address: chain.config.tokenAddress, abi: usdcAbi, functionName: "approve", args: [chain.config.escrowAddress, parseUsdc("5")] });
    const { escrowAbi } = await import("@/lib/chain/abi");
    const revertedHash = await wallet.writeContract({ address: chain.config.escrowAddress, abi: escrowAbi, functionName: "deposit", args: [hexOf(funded.job.escrowJobId) as `0x${string}`, parseUsdc("5")], gas: 200_000n });
    await chain.publicClient.waitForTransactionReceipt({ hash: revertedHash });
    const reverted = await patch(revertedHash);
    expect(reverted.status).toBe(422);
    expect(reverted.json.code).toBe("DEPOSIT_TX_REVERTED");

    await expectUnfunded(job.id);
  });

  it("a hash that already funds a job cannot fund a second one", async () => {
    const first = await postJob("7");
    const txHash = await deposit(hexOf(first.job.escrowJobId), "7");
    expect((await service.http("PATCH", `/v1/jobs/${first.job.id}/escrow`, { token: first.poster.token, body: { txHash } })).status).toBe(200);
    const second = await postJob("7");
    const replay = await service.http("PATCH", `/v1/jobs/${second.job.id}/escrow`, { token: second.poster.token, body: { txHash } });
    expect(replay.status).toBe(409);
    expect(replay.json.code).toBe("TX_ALREADY_USED");
    await expectUnfunded(second.job.id);
  });

  it("only the poster registers funding; the body must be a tx hash", async () => {
    const { job } = await postJob("3");
    const stranger = await newUser(service);
    expect((await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token: stranger.token, body: { txHash: `0x${"11".repeat(32)}` } })).status).toBe(403);
    const bad = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token: stranger.token, body: { hash: "0x12" } });
    expect(bad.status).toBe(400);
  });
});

describe("release and refund", () => {
  it("cancelling a funded job refunds the deposit once, measured on chain", async () => {
    const { poster, job } = await postJob("12");
    const txHash = await deposit(hexOf(job.escrowJobId), "12");
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash } });
    const before = await erc20BalanceOf({ config: chain.config, address: poster.address });
    const res = await poster.client.cancelJob({ params: { id: job.id } });
    expect(res.data.status).toBe("CANCELLED");
    expect(res.data.refundTxHash).toMatch(/^0x/);
    const after = await erc20BalanceOf({ config: chain.config, address: poster.address });
    expect(after - before).toBe(parseUsdc("12"));
    const again = await settleJob(service.ctx, job.id, "REFUND");
    expect(again.tx_hash).toBe(res.data.refundTxHash);
    expect(await erc20BalanceOf({ config: chain.config, address: poster.address })).toBe(after);
  });

  it("a release pays the agent's wallet the budget less the fee, exactly once, even when the process dies before recording it", async () => {
    const { poster, job } = await postJob("40");
    await poster.client.registerEscrow({ params: { id: job.id }, body: { txHash: await deposit(hexOf(job.escrowJobId), "40") } });
    const agentWallet = chain.accounts[5]!.address;
    const before = await erc20BalanceOf({ config: chain.config, address: agentWallet });

    settlementHooks.afterSend = () => {
      settlementHooks.afterSend = undefined;
      throw new Error("simulated crash after sending the release");
    };
    await expect(settleJob(service.ctx, job.id, "RELEASE", agentWallet)).rejects.toThrow("simulated crash");
    const pending = await service.db.selectFrom("escrow_settlements").selectAll().where("job_id", "=", job.id).executeTakeFirstOrThrow();
    expect(pending.status).toBe("PENDING");
    const paid = await erc20BalanceOf({ config: chain.config, address: agentWallet });
    expect(paid - before).toBe(parseUsdc("38"));

    await finishPendingSettlements(service.ctx, { olderThanMs: 0 });
    const settled = await service.db.selectFrom("escrow_settlements").selectAll().where("job_id", "=", job.id).executeTakeFirstOrThrow();
    expect(settled.status).toBe("CONFIRMED");
    const detail = await poster.client.getJob({ params: { id: job.id } });
    expect(detail.data.status).toBe("COMPLETED");
    expect(detail.data.releaseTxHash).toBe(settled.tx_hash);

    await settleJob(service.ctx, job.id, "RELEASE", agentWallet);
    expect(await erc20BalanceOf({ config: chain.config, address: agentWallet })).toBe(paid);
  });
});

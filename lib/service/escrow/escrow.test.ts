import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { abi as escrowArtifactAbi, bytecode as escrowBytecode } from "@/contracts/artifacts/escrow";
import { escrowAbi, usdcAbi } from "@/lib/chain/abi";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { refundEscrow } from "@/lib/chain/escrow/settle";
import { escrowJobIdToWire } from "@/lib/chain/escrow-id";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { finishPendingSettlements, SETTLEMENT_LEASE_MS, settleJob } from "./settle-job";
import { recordFirstEscrowOfFundedJobs } from "./escrow-contract";
import { domainStatusOf } from "../errors";

let chain: TestChain;
let other: TestChain;
let service: TestService;
/** The same service with 3 confirmations required. */
let strict: TestService;
/** The same service pointed at the other chain's RPC (31338) while it takes payment on 31337. */
let misrouted: TestService;
/** The same service whose RPC does not answer. */
let offline: TestService;
const POSTER = 1;

beforeAll(async () => {
  [chain, other] = await Promise.all([startTestChain(), startTestChain({ chainId: 31338 })]);
  [service, strict, misrouted, offline] = await Promise.all([
    startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config }),
    startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: { ...chain.config, confirmations: 3 } }),
    startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: { ...chain.config, rpcUrl: other.rpcUrl } }),
    startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: { ...chain.config, rpcUrl: "http://127.0.0.1:9/" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([service?.stop(), strict?.stop(), misrouted?.stop(), offline?.stop()]);
  await Promise.all([chain?.stop(), other?.stop()]);
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as `0x${string}`;
const posterKey = () => chain.accounts[POSTER]!.privateKey;

async function postJob(
  budget = "40",
): Promise<{ poster: TestUser; job: { id: string; escrowJobId: Record<string, number> } }> {
  const poster = await newUser(service, posterKey());
  const job = (await poster.client.createJob({ body: jobInput({ budget }) })).data;
  return { poster, job };
}

async function deposit(escrowJobIdHex: string, amount: string, config = chain.config, key = posterKey()) {
  return (await depositToEscrow({ config, privateKey: key, escrowJobId: escrowJobIdHex, amount: parseUsdc(amount) }))
    .txHash;
}

async function expectUnfunded(jobId: string) {
  const job = (await service.client().getPublicJob({ params: { id: jobId } })).data;
  expect(job).toMatchObject({ funded: false, escrowTxHash: null, status: "OPEN" });
}

/** A refusal: status, code, the chain's reason in the body, and the job left unfunded. */
async function expectRefused(
  res: { status: number; json: any },
  jobId: string,
  status: number,
  code: string,
  reason: RegExp,
) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.json.code).toBe(code);
  expect(res.json.message).toMatch(reason);
  await expectUnfunded(jobId);
}

const patchEscrow = (svc: TestService, jobId: string, token: string, txHash: string) =>
  svc.http("PATCH", `/v1/jobs/${jobId}/escrow`, { token, body: { txHash } });

describe("PATCH /v1/jobs/:id/escrow", () => {
  it("a verified deposit funds the job: funded lists follow it, bids must match the budget, a second registration is refused", async () => {
    const { poster, job } = await postJob("40");
    expect(escrowJobIdToWire(hexOf(job.escrowJobId))).toEqual(job.escrowJobId);
    const txHash = await deposit(hexOf(job.escrowJobId), "40");
    const res = await patchEscrow(service, job.id, poster.token, txHash.toUpperCase().replace("0X", "0x"));
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ funded: true, escrowTxHash: txHash.toLowerCase(), status: "OPEN" });

    const fundedList = await service.client().listJobs({ query: { posterId: poster.id, funded: true } });
    expect(fundedList.data.map((j) => j.id)).toContain(job.id);
    const unfundedList = await service.client().listJobs({ query: { posterId: poster.id, funded: false } });
    expect(unfundedList.data.map((j) => j.id)).not.toContain(job.id);

    const agent = await newAgent(service);
    const wrong = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "35" },
    });
    expect(wrong.status).toBe(409);
    expect(wrong.json.code).toBe("BID_AMOUNT_MISMATCH");
    const right = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "40.0" },
    });
    expect(right.status).toBe(201);

    // The same hash again (a retried request) answers the job; another hash is refused.
    expect((await patchEscrow(service, job.id, poster.token, txHash)).status).toBe(200);
    const another = await patchEscrow(service, job.id, poster.token, `0x${"cd".repeat(32)}`);
    expect(another.status).toBe(409);
    expect(another.json.code).toBe("ALREADY_FUNDED");
  });

  it("refuses a forged hash, a reverted transaction and a plain token transfer", async () => {
    const { poster, job } = await postJob("25");
    await expectRefused(
      // A hash of no transaction, and of no job either: suites on one PostgreSQL database share the
      // jobs table, and a fixed one may be another suite's stand-in escrow hash (TX_ALREADY_USED).
      await patchEscrow(service, job.id, poster.token, `0x${randomBytes(32).toString("hex")}`),
      job.id,
      422,
      "DEPOSIT_TX_NOT_FOUND",
      /no transaction/,
    );

    // Reverted: a second deposit for an escrow id that is already funded reverts on chain (sent without simulation).
    const funded = await postJob("5");
    await deposit(hexOf(funded.job.escrowJobId), "5");
    const wallet = chain.wallet(POSTER);
    const approve = await wallet.writeContract({
      address: chain.config.tokenAddress,
      abi: usdcAbi,
      functionName: "approve",
      args: [chain.config.escrowAddress, parseUsdc("25")],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: approve });
    const revertedHash = await wallet.writeContract({
      address: chain.config.escrowAddress,
      abi: escrowAbi,
      functionName: "deposit",
      args: [hexOf(funded.job.escrowJobId), parseUsdc("25")],
      gas: 200_000n,
    });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash: revertedHash })).status).toBe("reverted");
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, revertedHash),
      job.id,
      422,
      "DEPOSIT_TX_REVERTED",
      /reverted/,
    );

    const transfer = await wallet.writeContract({
      address: chain.config.tokenAddress,
      abi: usdcAbi,
      functionName: "transfer",
      args: [chain.config.escrowAddress, parseUsdc("25")],
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: transfer });
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, transfer),
      job.id,
      422,
      "DEPOSIT_NO_DEPOSIT_EVENT",
      /no Deposited event/,
    );
  });

  it("refuses a deposit on another chain, and any deposit when the RPC serves another chain", async () => {
    const { poster, job } = await postJob("25");
    // The poster paid on chain 31338 (an escrow at the same address, same escrow id and amount).
    const elsewhere = await deposit(hexOf(job.escrowJobId), "25", other.config, other.accounts[POSTER]!.privateKey);
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, elsewhere),
      job.id,
      422,
      "DEPOSIT_TX_NOT_FOUND",
      /on chain 31337/,
    );
    // A deployment whose RPC is (by mistake or malice) the other chain's node accepts nothing.
    await expectRefused(
      await patchEscrow(misrouted, job.id, poster.token, elsewhere),
      job.id,
      422,
      "DEPOSIT_WRONG_CHAIN",
      /serves chain 31338/,
    );
  });

  it("refuses a deposit into another escrow contract, for another job, or of another amount", async () => {
    const { poster, job } = await postJob("25");
    const deployHash = await chain.wallet(0).deployContract({
      abi: escrowArtifactAbi,
      bytecode: escrowBytecode,
      args: [chain.config.tokenAddress, chain.accounts[0]!.address, chain.accounts[0]!.address, 500],
    });
    const impostor = (await chain.publicClient.waitForTransactionReceipt({ hash: deployHash }))
      .contractAddress as Address;
    const intoImpostor = await deposit(hexOf(job.escrowJobId), "25", { ...chain.config, escrowAddress: impostor });
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, intoImpostor),
      job.id,
      422,
      "DEPOSIT_WRONG_CONTRACT",
      /not the escrow/,
    );

    const otherJob = await postJob("25");
    const forOtherJob = await deposit(hexOf(otherJob.job.escrowJobId), "25");
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, forOtherJob),
      job.id,
      422,
      "DEPOSIT_WRONG_JOB",
      /escrow job id/,
    );

    const short = await deposit(hexOf(job.escrowJobId), "24.999999");
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, short),
      job.id,
      422,
      "DEPOSIT_WRONG_AMOUNT",
      /24999999 units.*25000000 units/,
    );
  });

  it("a deposit without enough confirmations is refused (retryable) until blocks are mined", async () => {
    const poster = await newUser(strict, posterKey());
    const job = (await poster.client.createJob({ body: jobInput({ budget: "9" }) })).data;
    const txHash = await deposit(hexOf(job.escrowJobId), "9");
    const early = await patchEscrow(strict, job.id, poster.token, txHash);
    expect(early.status).toBe(422);
    expect(early.json).toMatchObject({
      code: "DEPOSIT_NOT_CONFIRMED",
      retryable: true,
      confirmations: 1,
      requiredConfirmations: 3,
    });
    expect(early.json.message).toMatch(/1 of 3 confirmations/);
    await expectUnfunded(job.id);

    await chain.testClient.mine({ blocks: 2 });
    const later = await patchEscrow(strict, job.id, poster.token, txHash);
    expect(later.status).toBe(200);
    expect(later.json.data).toMatchObject({ funded: true, escrowTxHash: txHash.toLowerCase() });
  });

  it("a hash that funds one job cannot fund a second one (replay)", async () => {
    const first = await postJob("7");
    const txHash = await deposit(hexOf(first.job.escrowJobId), "7");
    expect((await patchEscrow(service, first.job.id, first.poster.token, txHash)).status).toBe(200);
    const second = await postJob("7");
    await expectRefused(
      await patchEscrow(service, second.job.id, second.poster.token, txHash),
      second.job.id,
      409,
      "TX_ALREADY_USED",
      /already funds another job/,
    );
  });

  it("refuses a deposit whose escrow was already refunded on chain", async () => {
    const { poster, job } = await postJob("6");
    const txHash = await deposit(hexOf(job.escrowJobId), "6");
    await refundEscrow({ config: chain.config, escrowJobId: hexOf(job.escrowJobId), payer: poster.address });
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, txHash),
      job.id,
      422,
      "DEPOSIT_ESCROW_NOT_FUNDED",
      /refunded/,
    );
  });

  it("only the poster registers funding of an OPEN job; the body must be {txHash}; an unreachable chain is a 503", async () => {
    const { poster, job } = await postJob("3");
    const stranger = await newUser(service);
    expect((await patchEscrow(service, job.id, stranger.token, `0x${"11".repeat(32)}`)).status).toBe(403);
    const bad = await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, {
      token: poster.token,
      body: { hash: "0x12" },
    });
    expect(bad.status).toBe(400);
    expect(
      (await service.http("PATCH", `/v1/jobs/${job.id}/escrow`, { token: poster.token, body: { txHash: "0x12" } }))
        .status,
    ).toBe(400);
    const down = await patchEscrow(offline, job.id, poster.token, `0x${"12".repeat(32)}`);
    expect(down.status).toBe(503);
    expect(down.json.code).toBe("CHAIN_UNAVAILABLE");
    await poster.client.cancelJob({ params: { id: job.id } });
    const cancelled = await patchEscrow(service, job.id, poster.token, `0x${"13".repeat(32)}`);
    expect(cancelled.status).toBe(409);
    expect(cancelled.json.code).toBe("INVALID_STATE");
  });
});

describe("which escrow contract holds a job's slot (EscrowV2 deployed beside the first escrow)", () => {
  it("GET /v1/chain names escrowV2Address once deployed, and nothing of it before", async () => {
    const info = (await service.client().getChain({})).data;
    // New deposits go to EscrowV2 by default (NEW_DEPOSITS_ESCROW unset); the first escrow stays configured.
    expect(info.escrowV2Address).toBe(chain.deployment.escrowV2Address);
    expect(info.escrowV2Address).toBeDefined();
    expect(info).toMatchObject({ escrowAddress: info.escrowV2Address, escrowVersion: 2 });
    expect(chain.config.escrowAddress).not.toBe(info.escrowV2Address);

    const { escrowV2Address: _v2, ...withoutV2 } = chain.config;
    const before = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: withoutV2 }, { db: service.db });
    try {
      const res = await before.http("GET", "/v1/chain");
      expect(res.status).toBe(200);
      expect(res.json.data).not.toHaveProperty("escrowV2Address");
      // Without EscrowV2 new deposits go to the first escrow, whatever the setting says.
      expect(res.json.data).toMatchObject({ escrowAddress: chain.config.escrowAddress, escrowVersion: 1 });
    } finally {
      await before.stop();
    }
  });

  it("a job names its escrowAddress: null until funded, the first escrow's (version 1) once a deposit is registered", async () => {
    const { poster, job } = await postJob("12");
    expect((await service.client().getPublicJob({ params: { id: job.id } })).data.escrowAddress).toBeNull();
    expect((await poster.client.getJob({ params: { id: job.id } })).data.escrowAddress).toBeNull();

    const txHash = await deposit(hexOf(job.escrowJobId), "12");
    const res = await patchEscrow(service, job.id, poster.token, txHash);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    // New deposits still go to the first escrow: EscrowV2 takes none until the service is built for it.
    expect(res.json.data.escrowAddress).toBe(chain.config.escrowAddress);
    expect((await poster.client.getJob({ params: { id: job.id } })).data.escrowAddress).toBe(
      chain.config.escrowAddress,
    );
    expect((await service.client().getPublicJob({ params: { id: job.id } })).data.escrowAddress).toBe(
      chain.config.escrowAddress,
    );
    const listed = await service.client().listJobs({ query: { posterId: poster.id, funded: true } });
    expect(listed.data.find((j) => j.id === job.id)?.escrowAddress).toBe(chain.config.escrowAddress);
    expect(
      await service.db
        .selectFrom("jobs")
        .select(["escrow_address", "escrow_version"])
        .where("id", "=", job.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ escrow_address: chain.config.escrowAddress, escrow_version: 1 });
  });

  it("a job funded before the migration (version 1, no address) gets the first escrow's address from the configuration", async () => {
    const { poster, job } = await postJob("13");
    const txHash = await deposit(hexOf(job.escrowJobId), "13");
    expect((await patchEscrow(service, job.id, poster.token, txHash)).status).toBe(200);
    // What migration 0125 leaves of a job funded before it: version 1 and no address.
    await service.db.updateTable("jobs").set({ escrow_address: null }).where("id", "=", job.id).execute();
    expect((await poster.client.getJob({ params: { id: job.id } })).data.escrowAddress).toBeNull();
    // A job of another chain is not the configured escrow's to claim.
    const { job: elsewhere } = await postJob("14");
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: `0x${randomBytes(32).toString("hex")}`, escrow_version: 1, chain_id: 31338 })
      .where("id", "=", elsewhere.id)
      .execute();

    await recordFirstEscrowOfFundedJobs(service.db, chain.config);
    expect((await poster.client.getJob({ params: { id: job.id } })).data.escrowAddress).toBe(
      chain.config.escrowAddress,
    );
    expect(
      await service.db.selectFrom("jobs").select("escrow_address").where("id", "=", elsewhere.id).executeTakeFirst(),
    ).toEqual({ escrow_address: null });
    // Not left as a funded job of the other chain for the suites sharing the database.
    await service.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: null, escrow_version: null, chain_id: chain.config.chainId })
      .where("id", "=", elsewhere.id)
      .execute();
  });
});

describe("a stranger front-running the funding (escrowJobId is public)", () => {
  const STRANGER = 6;
  const AGENT = 7;

  it("a stranger's 1-unit deposit first does not stop the poster from funding; the release pays the agent from the poster's deposit only", async () => {
    const { poster, job } = await postJob("9");
    const escrowJobId = hexOf(job.escrowJobId);
    const stranger = chain.accounts[STRANGER]!;
    const strayHash = (
      await depositToEscrow({ config: chain.config, privateKey: stranger.privateKey, escrowJobId, amount: 1n })
    ).txHash;

    // The stranger's deposit is not the job's funding, whoever registers it.
    const strangerUser = await newUser(service, stranger.privateKey);
    expect((await patchEscrow(service, job.id, strangerUser.token, strayHash)).status).toBe(403);
    await expectRefused(
      await patchEscrow(service, job.id, poster.token, strayHash),
      job.id,
      422,
      "DEPOSIT_WRONG_AMOUNT",
      /budget/,
    );

    const txHash = await deposit(escrowJobId, "9");
    const res = await patchEscrow(service, job.id, poster.token, txHash);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ funded: true, escrowTxHash: txHash.toLowerCase() });
    const row = await service.db
      .selectFrom("jobs")
      .select("escrow_payer")
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row.escrow_payer?.toLowerCase()).toBe(poster.address.toLowerCase());

    const agent = chain.accounts[AGENT]!.address;
    const before = await erc20BalanceOf({ config: chain.config, address: agent });
    const settled = await settleJob(service.ctx, job.id, "RELEASE", agent);
    expect(settled).toMatchObject({ status: "CONFIRMED", amount_units: "8550000", fee_units: "450000" });
    expect((await erc20BalanceOf({ config: chain.config, address: agent })) - before).toBe(parseUsdc("8.55"));
    // The stranger's unit sits in the stranger's own slot, untouched and refundable to the stranger only.
    expect(await getEscrow({ config: chain.config, escrowJobId, payer: stranger.address })).toMatchObject({
      amount: 1n,
      state: "FUNDED",
    });
    expect(await getEscrow({ config: chain.config, escrowJobId, payer: poster.address })).toMatchObject({
      state: "RELEASED",
    });
    const strangerBefore = await erc20BalanceOf({ config: chain.config, address: stranger.address });
    await refundEscrow({ config: chain.config, escrowJobId, payer: stranger.address });
    expect((await erc20BalanceOf({ config: chain.config, address: stranger.address })) - strangerBefore).toBe(1n);
  });
});

describe("refunds on cancellation, exactly once", () => {
  it("cancelling a funded job refunds the payer, shows refundTxHash, and nothing moves twice", async () => {
    const { poster, job } = await postJob("12");
    await poster.client.registerEscrow({
      params: { id: job.id },
      body: { txHash: await deposit(hexOf(job.escrowJobId), "12") },
    });
    const before = await erc20BalanceOf({ config: chain.config, address: poster.address });
    const res = await poster.client.cancelJob({ params: { id: job.id } });
    expect(res.data).toMatchObject({ status: "CANCELLED", funded: true });
    expect(res.data.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    const after = await erc20BalanceOf({ config: chain.config, address: poster.address });
    expect(after - before).toBe(parseUsdc("12"));

    const again = await settleJob(service.ctx, job.id, "REFUND");
    expect(again).toMatchObject({ status: "CONFIRMED", tx_hash: res.data.refundTxHash, amount_units: "12000000" });
    // A verb's refusal carries its catalogue code; the status is the catalogue's (the router answers with it).
    await expect(settleJob(service.ctx, job.id, "RELEASE", chain.accounts[5]!.address)).rejects.toMatchObject({
      code: "SETTLEMENT_CONFLICT",
    });
    expect(domainStatusOf("SETTLEMENT_CONFLICT")).toBe(409);
    expect(await erc20BalanceOf({ config: chain.config, address: poster.address })).toBe(after);
    expect((await service.http("POST", `/v1/jobs/${job.id}/cancel`, { token: poster.token })).status).toBe(409);
  });

  it("a refund interrupted after sending (a crash before recording) is finished by the worker, once", async () => {
    const { poster, job } = await postJob("11");
    await poster.client.registerEscrow({
      params: { id: job.id },
      body: { txHash: await deposit(hexOf(job.escrowJobId), "11") },
    });
    const before = await erc20BalanceOf({ config: chain.config, address: poster.address });
    service.crashPoints.afterSettlementSend = () => {
      service.crashPoints.afterSettlementSend = undefined;
      throw new Error("simulated crash after sending the refund");
    };
    const res = await poster.client.cancelJob({ params: { id: job.id } });
    expect(res.data).toMatchObject({ status: "CANCELLED", refundTxHash: null });
    const pending = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(pending).toMatchObject({ kind: "REFUND", status: "PENDING", attempts: 1, tx_hash: null });
    const refunded = await erc20BalanceOf({ config: chain.config, address: poster.address });
    expect(refunded - before).toBe(parseUsdc("11"));

    // While the crashed sender's lease runs, the worker leaves the row alone; after it, it finishes.
    expect((await finishPendingSettlements(service.ctx, { only: [job.id] })).confirmed).toBe(0);
    await finishPendingSettlements(service.ctx, {
      now: new Date(Date.now() + SETTLEMENT_LEASE_MS + 1000),
      only: [job.id],
    });
    const detail = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(detail.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    const row = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "CONFIRMED", attempts: 2, tx_hash: detail.refundTxHash });
    expect(await erc20BalanceOf({ config: chain.config, address: poster.address })).toBe(refunded);
  });

  it("a cancellation never waits on the chain: with the RPC down the refund stays PENDING and the worker sends it later", async () => {
    const { poster, job } = await postJob("4");
    await poster.client.registerEscrow({
      params: { id: job.id },
      body: { txHash: await deposit(hexOf(job.escrowJobId), "4") },
    });
    const before = await erc20BalanceOf({ config: chain.config, address: poster.address });
    const res = await offline.client(poster.token).cancelJob({ params: { id: job.id } });
    expect(res.data).toMatchObject({ status: "CANCELLED", refundTxHash: null });
    const row = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("PENDING");
    expect(row.last_error).toBeTruthy();
    expect(
      (await getEscrow({ config: chain.config, escrowJobId: hexOf(job.escrowJobId), payer: poster.address })).state,
    ).toBe("FUNDED");

    await finishPendingSettlements(service.ctx, { now: new Date(Date.now() + 60_000), only: [job.id] });
    expect((await poster.client.getJob({ params: { id: job.id } })).data.refundTxHash).toMatch(/^0x/);
    expect((await erc20BalanceOf({ config: chain.config, address: poster.address })) - before).toBe(parseUsdc("4"));
  });

  it("a settlement the chain rules out (no deposit on chain) is FAILED, not retried", async () => {
    const { poster, job } = await postJob("2");
    // A job the database believes funded while the escrow holds nothing.
    await service.db
      .updateTable("jobs")
      .set({
        escrow_payer: poster.address,
        escrow_tx_hash: `0x${"ee".repeat(31)}${Math.floor(Math.random() * 256)
          .toString(16)
          .padStart(2, "0")}`,
      })
      .where("id", "=", job.id)
      .execute();
    const row = await settleJob(service.ctx, job.id, "REFUND");
    expect(row.status).toBe("FAILED");
    expect(row.last_error).toMatch(/no deposit/);
    await finishPendingSettlements(service.ctx, { now: new Date(Date.now() + 3600_000), only: [job.id] });
    expect(
      await service.db
        .selectFrom("escrow_settlements")
        .select(["status", "attempts"])
        .where("job_id", "=", job.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ status: "FAILED", attempts: 1 });
  });
});

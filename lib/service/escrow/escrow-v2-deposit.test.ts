import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { depositToEscrow } from "@/lib/chain/escrow/send";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import {
  GENEROUS_BUDGETS,
  jobInput,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { watchDeposits } from "./deposit-watch";

// Deposits into EscrowV2 (docs/escrow-v2.md, step 2) on a real anvil chain: registered through
// PATCH /v1/jobs/:id/escrow like the first escrow's, the Deposited event's emitter deciding which
// contract holds the job's slot, and the slot's expiry recorded.

let chain: TestChain;
let service: TestService;
const POSTER = 3;
const DAY = 24n * 60n * 60n;

beforeAll(async () => {
  chain = await startTestChain();
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS, chain: chain.config });
});
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const hexOf = (wire: Record<string, number>) =>
  `0x${Array.from({ length: 32 }, (_, i) => wire[String(i)]!.toString(16).padStart(2, "0")).join("")}` as Hex;
const posterKey = () => chain.accounts[POSTER]!.privateKey;
const v2Address = () => chain.config.escrowV2Address!;

async function postJob(budget: string): Promise<{ poster: TestUser; job: { id: string; escrowJobId: Hex } }> {
  const poster = await newUser(service, posterKey());
  const job = (await poster.client.createJob({ body: jobInput({ budget }) })).data;
  return { poster, job: { id: job.id, escrowJobId: hexOf(job.escrowJobId) } };
}

/** The chain's clock (anvil's, not this machine's): an expiry is judged against the deposit's block. */
const chainNow = async () => (await chain.publicClient.getBlock()).timestamp;

/** Deposits `amount` from the poster: into EscrowV2 with an expiry `expiresIn` seconds from now, or into the first escrow. */
async function deposit(
  escrowJobId: Hex,
  amount: string,
  expiresIn?: bigint,
): Promise<{ txHash: Hex; expiresAt?: bigint }> {
  const expiresAt = expiresIn === undefined ? undefined : (await chainNow()) + expiresIn;
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: posterKey(),
    escrowJobId,
    amount: parseUsdc(amount),
    expiresAt,
  });
  return { txHash, expiresAt };
}

const patchEscrow = (jobId: string, token: string, txHash: string) =>
  service.http("PATCH", `/v1/jobs/${jobId}/escrow`, { token, body: { txHash } });
const isoOf = (unixSeconds: bigint) => new Date(Number(unixSeconds) * 1000).toISOString();
const depositRows = (escrowJobId: Hex) =>
  service.db
    .selectFrom("escrow_deposits")
    .select(["escrow_version", "payer", "status", "tx_hash"])
    .where("escrow_job_id", "=", escrowJobId.toLowerCase())
    .orderBy("escrow_version")
    .execute();

describe("PATCH /v1/jobs/:id/escrow with a deposit into EscrowV2", () => {
  it("funds the job in EscrowV2: the job names the contract, version 2 and the slot's expiry", async () => {
    const { poster, job } = await postJob("30");
    const { txHash, expiresAt } = await deposit(job.escrowJobId, "30", 30n * DAY);
    const res = await patchEscrow(job.id, poster.token, txHash);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      funded: true,
      escrowTxHash: txHash.toLowerCase(),
      escrowAddress: v2Address(),
      escrowVersion: 2,
      escrowExpiresAt: isoOf(expiresAt!),
    });
    // The public view says the same: anyone can see where the money is and when it may return.
    expect((await service.client().getPublicJob({ params: { id: job.id } })).data).toMatchObject({
      funded: true,
      escrowAddress: v2Address(),
      escrowVersion: 2,
      escrowExpiresAt: isoOf(expiresAt!),
    });
    expect(await depositRows(job.escrowJobId)).toEqual([
      { escrow_version: 2, payer: poster.address.toLowerCase(), status: "REGISTERED", tx_hash: txHash.toLowerCase() },
    ]);
    // The same hash again (a retried request) reads the version 2 slot and answers the job.
    const again = await patchEscrow(job.id, poster.token, txHash);
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect(again.json.data.escrowVersion).toBe(2);
    // The deposit watcher reads the job's slot in EscrowV2 (the first escrow holds none for it): still funded.
    await chain.testClient.mine({ blocks: 2 });
    await watchDeposits(service.ctx, { onlyJobIds: [job.id], onlyEscrowJobIds: [job.escrowJobId] });
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      funded: true,
      escrowTxHash: txHash.toLowerCase(),
      depositLostAt: null,
    });
  });

  it("a deposit into the first escrow still registers as version 1, without an expiry", async () => {
    const { poster, job } = await postJob("11");
    const { txHash } = await deposit(job.escrowJobId, "11");
    const res = await patchEscrow(job.id, poster.token, txHash);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      funded: true,
      escrowAddress: chain.config.escrowAddress,
      escrowVersion: 1,
      escrowExpiresAt: null,
    });
  });

  it("a version 2 deposit of the wrong amount or for another job is refused as a version 1 one is", async () => {
    const { poster, job } = await postJob("12");
    const short = await deposit(job.escrowJobId, "11", 30n * DAY);
    const wrongAmount = await patchEscrow(job.id, poster.token, short.txHash);
    expect(wrongAmount.status).toBe(422);
    expect(wrongAmount.json.code).toBe("DEPOSIT_WRONG_AMOUNT");
    const other = await postJob("12");
    const forOther = await deposit(other.job.escrowJobId, "12", 30n * DAY);
    const wrongJob = await patchEscrow(job.id, poster.token, forOther.txHash);
    expect(wrongJob.status).toBe(422);
    expect(wrongJob.json.code).toBe("DEPOSIT_WRONG_JOB");
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      funded: false,
      escrowAddress: null,
      escrowVersion: null,
      escrowExpiresAt: null,
    });
  });

  it("the same payer's slots in both contracts are two deposits to the watcher", async () => {
    const { poster, job } = await postJob("14");
    // A first deposit into the first escrow, never registered, then the one registered in EscrowV2.
    const first = await deposit(job.escrowJobId, "14");
    const second = await deposit(job.escrowJobId, "14", 60n * DAY);
    expect((await patchEscrow(job.id, poster.token, second.txHash)).status).toBe(200);
    await chain.testClient.mine({ blocks: 2 });

    await watchDeposits(service.ctx, { onlyJobIds: [job.id], onlyEscrowJobIds: [job.escrowJobId] });
    const rows = await depositRows(job.escrowJobId);
    expect(rows.map((r) => [r.escrow_version, r.tx_hash])).toEqual([
      [1, first.txHash.toLowerCase()],
      [2, second.txHash.toLowerCase()],
    ]);
    expect(rows[1]!.status).toBe("REGISTERED");
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      funded: true,
      escrowTxHash: second.txHash.toLowerCase(),
      escrowVersion: 2,
      depositLostAt: null,
    });
  });
});

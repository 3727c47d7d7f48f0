import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { escrowV2Abi } from "@/lib/chain/abi";
import { depositToEscrow } from "@/lib/chain/escrow/send";
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
import { watchDeposits } from "./deposit-watch";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import { newEscrowJobId } from "@/lib/chain/escrow-id";
import { attachPosterDeposits } from "../jobs/attach-deposits";

// Deposits into EscrowV2 (docs/escrow-v2.md, step 2) on a real anvil chain: registered through
// PATCH /v1/jobs/:id/escrow like the first escrow's, the Deposited event's emitter deciding which
// contract holds the job's slot, and the slot's expiry recorded.

let chain: TestChain;
let service: TestService;
const POSTER = 3;
// Not the poster: a deposit of its own under an id no job has.
const STRANGER = 7;
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

  it("the reconciliation reads a version 2 job in EscrowV2 and holds EscrowV2's balance to its own slots: no difference", async () => {
    const { poster, job } = await postJob("13");
    const { txHash } = await deposit(job.escrowJobId, "13", 30n * DAY);
    expect((await patchEscrow(job.id, poster.token, txHash)).status).toBe(200);
    // A stranger's deposit into EscrowV2 under another id that no job registered: explained, listed apart.
    const strayJobId = newEscrowJobId();
    await depositToEscrow({
      config: chain.config,
      privateKey: chain.accounts[STRANGER]!.privateKey,
      escrowJobId: strayJobId,
      amount: parseUsdc("2"),
      expiresAt: (await chainNow()) + 30n * DAY,
    });
    const report = await reconcileEscrow(service.ctx);
    expect(report.differences.filter((d) => d.jobId === job.id)).toEqual([]);
    expect(report.differences.filter((d) => d.kind === "BALANCE_MISMATCH" && d.detail.includes("EscrowV2"))).toEqual(
      [],
    );
    expect(report.strayDeposits).toContainEqual({
      escrowJobId: strayJobId,
      payer: chain.accounts[STRANGER]!.address,
      amountUsdc: "2",
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

const HOUR_MS = 60 * 60_000;
/** The windows a job's escrow must outlast beyond its deadline (the service's defaults) and the day's margin. */
const windowsMs = (proofHoldHours: number) => (proofHoldHours + 72 + 72 + 168 + 24) * HOUR_MS;
/** The instant in whole seconds, rounded up (the contract takes unix seconds), as ISO. */
const secondsUp = (ms: number) => new Date(Math.ceil(ms / 1000) * 1000).toISOString();
const unixOf = (iso: string) => BigInt(Math.floor(Date.parse(iso) / 1000));

async function postJobWithDeadline(budget: string, deadlineAt: Date) {
  const poster = await newUser(service, posterKey());
  const job = (await poster.client.createJob({ body: jobInput({ budget, deadlineAt: deadlineAt.toISOString() }) }))
    .data;
  return { poster, job };
}

/** Deposits into EscrowV2 with this exact expiry (unix seconds) and registers it. */
async function fundInV2(
  poster: TestUser,
  job: { id: string; escrowJobId: Record<string, number> },
  budget: string,
  expiresAt: bigint,
) {
  const { txHash } = await depositToEscrow({
    config: chain.config,
    privateKey: posterKey(),
    escrowJobId: hexOf(job.escrowJobId),
    amount: parseUsdc(budget),
    expiresAt,
  });
  const res = await patchEscrow(job.id, poster.token, txHash);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data;
}

const bid = (jobId: string, agent: { id: string; apiKey: string }, proposedUsdc: string) =>
  service.http("POST", `/v1/jobs/${jobId}/bids`, { token: agent.apiKey, body: { agentId: agent.id, proposedUsdc } });

async function extendOnChain(escrowJobId: Record<string, number>, expiresAt: bigint) {
  const hash = await chain.wallet(POSTER).writeContract({
    address: v2Address(),
    abi: escrowV2Abi,
    functionName: "extendExpiry",
    args: [hexOf(escrowJobId), expiresAt],
  });
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
}

describe("the expiry the service chooses for a version 2 deposit", () => {
  it("a job names the expiry its deposit needs: the deadline plus the proof hold, the review and dispute windows and a day", async () => {
    const deadline = new Date(Date.now() + 10 * 24 * HOUR_MS);
    const { job } = await postJobWithDeadline("8", deadline);
    expect(job.escrowExpiryNeededAt).toBe(secondsUp(deadline.getTime() + windowsMs(job.proofHoldHours)));
    expect(job.escrowExtensionNeeded).toBe(false);

    // Without a deadline: from the creation plus 30 days of work.
    const poster = await newUser(service, posterKey());
    const open = (await poster.client.createJob({ body: jobInput({ budget: "8" }) })).data;
    const fromCreation = Date.parse(open.escrowExpiryNeededAt!) - windowsMs(open.proofHoldHours);
    expect(Math.abs(fromCreation - (Date.parse(open.createdAt) + 30 * 24 * HOUR_MS))).toBeLessThan(60_000);

    // Paid in parts: the latest part's deadline.
    const lastPart = new Date(Date.now() + 20 * 24 * HOUR_MS);
    const parts = (
      await poster.client.createJob({
        body: jobInput({
          budget: "20",
          deadlineAt: deadline.toISOString(),
          milestones: [
            {
              title: "One",
              amountUsdc: "12",
              acceptanceCriteria: "The first half",
              deadlineAt: deadline.toISOString(),
            },
            {
              title: "Two",
              amountUsdc: "8",
              acceptanceCriteria: "The second half",
              deadlineAt: lastPart.toISOString(),
            },
          ],
        }),
      })
    ).data;
    expect(parts.escrowExpiryNeededAt).toBe(secondsUp(lastPart.getTime() + windowsMs(parts.proofHoldHours)));
  });

  it("a deposit expiring too soon is registered, but the job takes no bid and accepts none until the payer extends it", async () => {
    const deadline = new Date(Date.now() + 5 * 24 * HOUR_MS);
    const { poster, job } = await postJobWithDeadline("9", deadline);
    // A bid placed before the funding, to be accepted later.
    const early = await newAgent(service);
    const placed = await bid(job.id, early, "9");
    expect(placed.status, JSON.stringify(placed.json)).toBe(201);

    // The payer's own 2-day expiry: too short for a 5-day deadline and its windows.
    const short = (await chainNow()) + 2n * DAY;
    const funded = await fundInV2(poster, job, "9", short);
    expect(funded).toMatchObject({
      funded: true,
      escrowVersion: 2,
      escrowExpiresAt: isoOf(short),
      escrowExtensionNeeded: true,
    });

    const late = await newAgent(service);
    const refused = await bid(job.id, late, "9");
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("ESCROW_EXPIRY_TOO_SHORT");
    expect(refused.json).toMatchObject({
      escrowExpiresAt: isoOf(short),
      escrowExpiryNeededAt: job.escrowExpiryNeededAt,
    });
    const accept = await service.http("POST", `/v1/jobs/${job.id}/bids/${placed.json.data.id}/accept`, {
      token: poster.token,
    });
    expect(accept.status).toBe(409);
    expect(accept.json.code).toBe("ESCROW_EXPIRY_TOO_SHORT");
    expect((await poster.client.getJob({ params: { id: job.id } })).data.status).toBe("OPEN");

    // Extended on chain, but not read yet: still refused. Then read again: bids are taken.
    await extendOnChain(job.escrowJobId, unixOf(job.escrowExpiryNeededAt!));
    expect((await bid(job.id, late, "9")).json.code).toBe("ESCROW_EXPIRY_TOO_SHORT");
    const reread = await service.http("POST", `/v1/jobs/${job.id}/escrow/expiry`, { token: poster.token });
    expect(reread.status, JSON.stringify(reread.json)).toBe(200);
    expect(reread.json.data).toMatchObject({ escrowExpiresAt: job.escrowExpiryNeededAt, escrowExtensionNeeded: false });
    expect((await bid(job.id, late, "9")).status).toBe(201);
  });

  it("moving the deadline later asks for an extension the same way", async () => {
    const deadline = new Date(Date.now() + 3 * 24 * HOUR_MS);
    const { poster, job } = await postJobWithDeadline("7", deadline);
    const funded = await fundInV2(poster, job, "7", unixOf(job.escrowExpiryNeededAt!));
    expect(funded.escrowExtensionNeeded).toBe(false);
    const agent = await newAgent(service);
    expect((await bid(job.id, agent, "7")).status).toBe(201);

    const later = new Date(deadline.getTime() + 4 * 24 * HOUR_MS);
    const edited = await service.http("PATCH", `/v1/jobs/${job.id}`, {
      token: poster.token,
      body: { deadlineAt: later.toISOString() },
    });
    expect(edited.status, JSON.stringify(edited.json)).toBe(200);
    expect(edited.json.data).toMatchObject({
      escrowExpiryNeededAt: secondsUp(later.getTime() + windowsMs(job.proofHoldHours)),
      escrowExtensionNeeded: true,
    });
    const other = await newAgent(service);
    expect((await bid(job.id, other, "7")).json.code).toBe("ESCROW_EXPIRY_TOO_SHORT");

    await extendOnChain(job.escrowJobId, unixOf(edited.json.data.escrowExpiryNeededAt));
    const reread = await service.http("POST", `/v1/jobs/${job.id}/escrow/expiry`, { token: poster.token });
    expect(reread.json.data.escrowExtensionNeeded).toBe(false);
    expect((await bid(job.id, other, "7")).status).toBe(201);
  });

  it("accepting a bid reads the slot again: an extension made on chain is seen without POST /v1/jobs/:id/escrow/expiry", async () => {
    const deadline = new Date(Date.now() + 4 * 24 * HOUR_MS);
    const { poster, job } = await postJobWithDeadline("5", deadline);
    const agent = await newAgent(service);
    const placed = await bid(job.id, agent, "5");
    expect(placed.status, JSON.stringify(placed.json)).toBe(201);
    const short = (await chainNow()) + 2n * DAY;
    expect((await fundInV2(poster, job, "5", short)).escrowExtensionNeeded).toBe(true);

    await extendOnChain(job.escrowJobId, unixOf(job.escrowExpiryNeededAt!));
    const accept = await service.http("POST", `/v1/jobs/${job.id}/bids/${placed.json.data.id}/accept`, {
      token: poster.token,
    });
    // Whatever else acceptance asks of a version 2 job, the expiry no longer holds it.
    expect(accept.json.code, JSON.stringify(accept.json)).not.toBe("ESCROW_EXPIRY_TOO_SHORT");
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      escrowExpiresAt: job.escrowExpiryNeededAt,
      escrowExtensionNeeded: false,
    });
  });

  it("POST /v1/jobs/:id/escrow/expiry is the poster's, for a job funded in EscrowV2 only", async () => {
    const { poster, job } = await postJob("6");
    const v1 = await deposit(job.escrowJobId, "6");
    expect((await patchEscrow(job.id, poster.token, v1.txHash)).status).toBe(200);
    const notV2 = await service.http("POST", `/v1/jobs/${job.id}/escrow/expiry`, { token: poster.token });
    expect(notV2.status).toBe(409);
    expect(notV2.json.code).toBe("INVALID_STATE");

    const stranger = await newUser(service, chain.accounts[5]!.privateKey);
    const forbidden = await service.http("POST", `/v1/jobs/${job.id}/escrow/expiry`, { token: stranger.token });
    expect(forbidden.status).toBe(403);
  });
});

describe("where new deposits go (NEW_DEPOSITS_ESCROW)", () => {
  it("GET /v1/chain names EscrowV2 (escrowVersion 2) by default, and the first escrow once NEW_DEPOSITS_ESCROW=1 pins it", async () => {
    // The suite's chain is configured by the real loader (lib/chain/testing.ts) with no setting: the default.
    expect(chain.config.newDepositsEscrowVersion).toBe(2);
    const byDefault = (await service.client().getChain({})).data;
    expect(byDefault).toMatchObject({
      escrowAddress: v2Address(),
      escrowVersion: 2,
      escrowV2Address: v2Address(),
    });

    const pinned = await startTestService(
      { rateBudgets: GENEROUS_BUDGETS, chain: { ...chain.config, newDepositsEscrowVersion: 1 } },
      { db: service.db },
    );
    try {
      const res = await pinned.http("GET", "/v1/chain");
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({
        escrowAddress: chain.config.escrowAddress,
        escrowVersion: 1,
        escrowV2Address: v2Address(),
      });
    } finally {
      await pinned.stop();
    }
  });

  it("a version 2 deposit of the poster whose registration never came is attached by the watcher (a closed tab)", async () => {
    const { poster, job } = await postJob("13");
    const { txHash, expiresAt } = await deposit(job.escrowJobId, "13", 40n * DAY);
    await chain.testClient.mine({ blocks: 2 });
    await watchDeposits(service.ctx, { onlyJobIds: [job.id], onlyEscrowJobIds: [job.escrowJobId] });
    expect(await attachPosterDeposits(service.ctx, { onlyJobIds: [job.id] })).toBe(1);
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      funded: true,
      escrowTxHash: txHash.toLowerCase(),
      escrowAddress: v2Address(),
      escrowVersion: 2,
      escrowExpiresAt: isoOf(expiresAt!),
    });
    expect((await depositRows(job.escrowJobId)).map((r) => [r.escrow_version, r.status])).toEqual([[2, "REGISTERED"]]);
  });
});

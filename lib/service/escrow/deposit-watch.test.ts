import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hex } from "viem";
import { erc20BalanceOf, getEscrow } from "@/lib/chain/escrow/reads";
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
import { decideDeposits, sendStrayRefunds, watchDeposits } from "./deposit-watch";
import { DEPOSIT_REGISTRATION_WINDOW_MS } from "./deposit-rules";
import { finishPendingSettlements, settleJob } from "./settle-job";
import { reconcileEscrow } from "../admin/reconcile-escrow";
import { completePartSettlement, finishPendingPartSettlements, recordPartSettlement } from "./settle-part";

// Deposits that cannot strand, and finality: the deposit watcher on a real anvil chain. A chain
// reorganisation is played with anvil's snapshot/revert: the chain goes back to a block before the
// transaction and new blocks are mined without it, as a reorganisation leaves it.

let chain: TestChain;
let service: TestService;
const POSTER = 2;
const AGENT_WALLET = 8;

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
const posterAddress = () => chain.accounts[POSTER]!.address;

async function postJob(budget: string): Promise<{ poster: TestUser; job: { id: string; escrowJobId: Hex } }> {
  const poster = await newUser(service, posterKey());
  const job = (await poster.client.createJob({ body: jobInput({ budget }) })).data;
  return { poster, job: { id: job.id, escrowJobId: hexOf(job.escrowJobId) } };
}

/** A 20 USDC job paid in two parts (12 and 8), posted by the poster's wallet, not funded yet. */
async function postJobInTwoParts(): Promise<{ poster: TestUser; job: { id: string; escrowJobId: Hex } }> {
  const poster = await newUser(service, posterKey());
  const created = (
    await poster.client.createJob({
      body: jobInput({
        budget: "20",
        milestones: [
          { title: "First half", amountUsdc: "12", acceptanceCriteria: "The first half" },
          { title: "Second half", amountUsdc: "8", acceptanceCriteria: "The second half" },
        ],
      }),
    })
  ).data;
  return { poster, job: { id: created.id, escrowJobId: hexOf(created.escrowJobId) } };
}

const deposit = async (escrowJobId: Hex, amount: string) =>
  (await depositToEscrow({ config: chain.config, privateKey: posterKey(), escrowJobId, amount: parseUsdc(amount) }))
    .txHash;
const patchEscrow = (jobId: string, token: string, txHash: string) =>
  service.http("PATCH", `/v1/jobs/${jobId}/escrow`, { token, body: { txHash } });
const usdcOf = (address: `0x${string}`) => erc20BalanceOf({ config: chain.config, address });
/** One round of the watcher, limited to this test's jobs (the database may be shared with other suites). */
const watch = (job: { id: string; escrowJobId: Hex }, now?: Date) =>
  watchDeposits(service.ctx, { onlyJobIds: [job.id], onlyEscrowJobIds: [job.escrowJobId], ...(now ? { now } : {}) });
const eventsOf = (jobId: string, type: string) =>
  service.db
    .selectFrom("domain_events")
    .select(["recipient_ids", "data"])
    .where("job_id", "=", jobId)
    .where("type", "=", type)
    .execute();

/** A reorganisation that removes everything after the snapshot: back to it, then new blocks. */
async function reorgTo(snapshot: Hex, blocks = 4) {
  await chain.testClient.revert({ id: snapshot });
  await chain.testClient.mine({ blocks });
}

describe("a deposit that cannot fund its job goes back to its payer", () => {
  it("a deposit made after the job was cancelled (it takes no deposit any more) is refunded once, without the operator", async () => {
    const { poster, job } = await postJob("30");
    // (An assigned, unfunded job still takes its deposit at the accepted price: jobs/edit-job.test.ts.)
    await poster.client.cancelJob({ params: { id: job.id } });

    const before = await usdcOf(posterAddress());
    const txHash = await deposit(job.escrowJobId, "30");
    expect(await usdcOf(posterAddress())).toBe(before - parseUsdc("30"));
    const refused = await patchEscrow(job.id, poster.token, txHash);
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("INVALID_STATE");

    const round = await watch(job);
    expect(round?.toRefund).toBe(1);
    expect(round?.refunds).toHaveLength(1);
    expect(round?.refunds[0]).toMatchObject({
      status: "REFUNDED",
      payer: posterAddress().toLowerCase(),
      job_id: job.id,
    });
    expect(round?.refunds[0]!.reason).toMatch(/CANCELLED/);
    expect(await usdcOf(posterAddress())).toBe(before);
    expect(
      await getEscrow({ config: chain.config, escrowJobId: job.escrowJobId, payer: posterAddress() }),
    ).toMatchObject({ state: "REFUNDED" });

    // Once: another round sends nothing, and the poster and the operators are told.
    const again = await watch(job);
    expect(again?.refunds).toHaveLength(0);
    expect(await usdcOf(posterAddress())).toBe(before);
    const events = await eventsOf(job.id, "escrow.deposit_refunded");
    expect(events).toHaveLength(1);
    expect(events[0]!.recipient_ids).toContain(poster.id);

    // The operator's list shows it with its refund transaction.
    const operator = await newUser(service);
    service.ctx.config.operatorAddresses = [operator.address];
    const listed = await operator.client.listEscrowDeposits({ query: { status: "REFUNDED" } });
    const mine = listed.data.find((d) => d.jobId === job.id);
    expect(mine).toMatchObject({ status: "REFUNDED", depositTxHash: txHash.toLowerCase(), amountUsdc: "30" });
    expect(mine?.refundTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    const forbidden = await service.http("GET", "/v1/admin/escrow/deposits", { token: poster.token });
    expect(forbidden.status).toBe(403);
    service.ctx.config.operatorAddresses = [];
  });

  it("a stray's refund removed by a reorganisation is sent again exactly once; one removed with its deposit is owed nothing", async () => {
    const { poster, job } = await postJob("7");
    await poster.client.cancelJob({ params: { id: job.id } });
    const before = await usdcOf(posterAddress());
    const depositSnapshot = await chain.testClient.snapshot();
    await deposit(job.escrowJobId, "7");
    const refundSnapshot = await chain.testClient.snapshot();
    const first = await watch(job);
    expect(first?.refunds[0]).toMatchObject({ status: "REFUNDED" });
    const removed = first!.refunds[0]!.refund_tx_hash!;
    expect(await usdcOf(posterAddress())).toBe(before);

    // The refund is gone, the deposit stays: owed again, and sent once.
    await reorgTo(refundSnapshot);
    expect(await usdcOf(posterAddress())).toBe(before - parseUsdc("7"));
    const round = await watch(job);
    expect(round?.reopenedStrays).toHaveLength(1);
    expect(round?.refunds).toHaveLength(1);
    expect(round?.refunds[0]).toMatchObject({ status: "REFUNDED" });
    // The engine's way: the kept transaction is broadcast again (its nonce is free again), not a new one signed.
    expect(round?.refunds[0]!.refund_tx_hash).toBe(removed);
    expect(await usdcOf(posterAddress())).toBe(before);
    const after = await watch(job);
    expect(after?.reopenedStrays).toEqual([]);
    expect(after?.refunds).toEqual([]);
    expect(await usdcOf(posterAddress())).toBe(before);
    expect(await eventsOf(job.id, "escrow.deposit_refunded")).toHaveLength(2);

    // Deeper: the deposit goes with its refund. Nothing is owed, nothing is sent.
    await reorgTo(depositSnapshot);
    expect(await usdcOf(posterAddress())).toBe(before);
    const deep = await watch(job);
    expect(deep?.reopenedStrays).toHaveLength(1);
    expect(deep?.refunds).toEqual([]);
    const row = await service.db
      .selectFrom("escrow_deposits")
      .selectAll()
      .where("id", "=", deep!.reopenedStrays[0]!)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "VANISHED", refund_tx_hash: null });
    expect(row.last_error).toMatch(/nothing is owed/);
    expect(await usdcOf(posterAddress())).toBe(before);
    expect((await reconcileEscrow(service.ctx)).differences.filter((d) => d.jobId === job.id)).toEqual([]);
  });

  it(`a deposit nobody registers within ${DEPOSIT_REGISTRATION_WINDOW_MS / 60_000} minutes goes back; registering it while the refund is decided is refused`, async () => {
    const { poster, job } = await postJob("8");
    const before = await usdcOf(posterAddress());
    const txHash = await deposit(job.escrowJobId, "8");

    // Within the window it waits for its registration.
    const early = await watch(job);
    expect(early?.toRefund).toBe(0);
    expect(await usdcOf(posterAddress())).toBe(before - parseUsdc("8"));

    const later = new Date(Date.now() + DEPOSIT_REGISTRATION_WINDOW_MS + 60_000);
    const options = { onlyEscrowJobIds: [job.escrowJobId], now: later };
    expect(await decideDeposits(service.ctx, chain.config, options)).toBe(1);
    // Decided but not sent yet: the registration loses the race, with a clear code.
    const late = await patchEscrow(job.id, poster.token, txHash);
    expect(late.status, JSON.stringify(late.json)).toBe(409);
    expect(late.json.code).toBe("DEPOSIT_REFUNDING");
    expect(late.json.reason).toMatch(/nobody registered it/);

    const sent = await sendStrayRefunds(service.ctx, chain.config, options);
    expect(sent).toMatchObject([{ status: "REFUNDED" }]);
    expect(await usdcOf(posterAddress())).toBe(before);
    const job1 = (await service.client().getPublicJob({ params: { id: job.id } })).data;
    expect(job1).toMatchObject({ funded: false, status: "OPEN" });
  });

  it("a registered deposit is never refunded as a stray, however late the round", async () => {
    const { poster, job } = await postJob("6");
    const txHash = await deposit(job.escrowJobId, "6");
    expect((await patchEscrow(job.id, poster.token, txHash)).status).toBe(200);
    const round = await watch(job, new Date(Date.now() + 2 * DEPOSIT_REGISTRATION_WINDOW_MS));
    expect(round?.toRefund).toBe(0);
    expect(
      await getEscrow({ config: chain.config, escrowJobId: job.escrowJobId, payer: posterAddress() }),
    ).toMatchObject({ state: "FUNDED" });
  });
});

describe("a deposit or a settlement that a reorganisation removes", () => {
  it("registering again a hash a reorganisation removed is refused with DEPOSIT_VANISHED, and the job is unfunded and fundable again", async () => {
    const { poster, job } = await postJob("7");
    const snapshot = await chain.testClient.snapshot();
    const txHash = await deposit(job.escrowJobId, "7");
    expect((await patchEscrow(job.id, poster.token, txHash)).status).toBe(200);
    // A retried registration while the deposit is there answers the job.
    expect((await patchEscrow(job.id, poster.token, txHash)).status).toBe(200);

    await reorgTo(snapshot);
    const again = await patchEscrow(job.id, poster.token, txHash);
    expect(again.status, JSON.stringify(again.json)).toBe(422);
    expect(again.json.code).toBe("DEPOSIT_VANISHED");
    expect(again.json.retryable).toBe(false);
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      funded: false,
      escrowTxHash: null,
      // No contract holds its slot any more.
      escrowAddress: null,
      status: "OPEN",
    });
    expect(
      await service.db.selectFrom("jobs").select("escrow_version").where("id", "=", job.id).executeTakeFirstOrThrow(),
    ).toEqual({ escrow_version: null });
    expect(await eventsOf(job.id, "escrow.deposit_lost")).toHaveLength(1);

    const second = await deposit(job.escrowJobId, "7");
    const funded = await patchEscrow(job.id, poster.token, second);
    expect(funded.status).toBe(200);
    expect(funded.json.data.escrowAddress).toBe(chain.config.escrowAddress);
  });

  it("a registered deposit removed by a reorganisation: accepting a bid is refused (DEPOSIT_LOST), the parties are told, and after funding again the bid is accepted", async () => {
    const { poster, job } = await postJob("7");
    const snapshot = await chain.testClient.snapshot();
    const txHash = await deposit(job.escrowJobId, "7");
    expect((await patchEscrow(job.id, poster.token, txHash)).status).toBe(200);
    const agent = await newAgent(service);
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "7" } })
    ).data;

    await reorgTo(snapshot);
    const accept = await service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.token });
    expect(accept.status, JSON.stringify(accept.json)).toBe(409);
    expect(accept.json.code).toBe("DEPOSIT_LOST");
    const unfunded = (await poster.client.getJob({ params: { id: job.id } })).data;
    expect(unfunded).toMatchObject({ funded: false, escrowTxHash: null, status: "OPEN" });
    const lost = await eventsOf(job.id, "escrow.deposit_lost");
    expect(lost).toHaveLength(1);
    expect(lost[0]!.recipient_ids).toContain(poster.id);

    const second = await deposit(job.escrowJobId, "7");
    expect((await patchEscrow(job.id, poster.token, second)).status).toBe(200);
    expect(
      (await service.http("POST", `/v1/jobs/${job.id}/bids/${bid.id}/accept`, { token: poster.token })).status,
    ).toBe(200);
  });

  it("the watcher finds a deposit removed after the job was assigned; the job has a next action (fund again) and the poster can fund it past OPEN", async () => {
    const { poster, job } = await postJob("5");
    const snapshot = await chain.testClient.snapshot();
    const txHash = await deposit(job.escrowJobId, "5");
    expect((await patchEscrow(job.id, poster.token, txHash)).status).toBe(200);
    const agent = await newAgent(service);
    const bid = (
      await agent.client.placeBid({ params: { id: job.id }, body: { agentId: agent.id, proposedUsdc: "5" } })
    ).data;
    await poster.client.acceptBid({ params: { jobId: job.id, bidId: bid.id } });

    await reorgTo(snapshot);
    const round = await watch(job);
    expect(round?.lostDeposits).toEqual([job.id]);
    const row = await service.db
      .selectFrom("jobs")
      .select(["status", "escrow_tx_hash", "deposit_lost_at"])
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "IN_PROGRESS", escrow_tx_hash: null });
    expect(row.deposit_lost_at).not.toBeNull();
    const lost = await eventsOf(job.id, "escrow.deposit_lost");
    expect(lost.map((e) => e.recipient_ids).flat()).toEqual(expect.arrayContaining([poster.id, agent.id]));
    expect(lost[0]!.data).toMatchObject({ nextAction: "FUND_AGAIN" });

    // The next action: fund it again, although it is IN_PROGRESS.
    const second = await deposit(job.escrowJobId, "5");
    const res = await patchEscrow(job.id, poster.token, second);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ funded: true, status: "IN_PROGRESS" });
    expect((await watch(job))?.lostDeposits).toEqual([]);
  });

  it("a part's release removed by a reorganisation is paid again exactly once; the part and its settlement say so meanwhile", async () => {
    const { poster, job } = await postJobInTwoParts();
    expect((await patchEscrow(job.id, poster.token, await deposit(job.escrowJobId, "20"))).status).toBe(200);
    const part = await service.db
      .selectFrom("job_milestones")
      .select(["id", "job_id", "amount_usdc"])
      .where("job_id", "=", job.id)
      .where("position", "=", 1)
      .executeTakeFirstOrThrow();
    const agentWallet = chain.accounts[AGENT_WALLET]!.address;
    const before = await usdcOf(agentWallet);
    const net = parseUsdc("12") - (parseUsdc("12") * BigInt(chain.config.feeBps)) / 10_000n;

    const snapshot = await chain.testClient.snapshot();
    const recorded = await service.db
      .transaction()
      .execute((trx) => recordPartSettlement(trx, part, "RELEASE", agentWallet));
    const first = await completePartSettlement(service.ctx, recorded.id);
    expect(first.status).toBe("CONFIRMED");
    expect(await usdcOf(agentWallet)).toBe(before + net);

    await reorgTo(snapshot);
    expect(await usdcOf(agentWallet)).toBe(before);
    const round = await watch(job);
    expect(round?.reopenedParts).toEqual([recorded.id]);
    const reopened = await service.db
      .selectFrom("milestone_settlements")
      .selectAll()
      .where("id", "=", recorded.id)
      .executeTakeFirstOrThrow();
    expect(reopened).toMatchObject({ status: "PENDING", tx_hash: null });
    const partNow = await service.db
      .selectFrom("job_milestones")
      .select(["status", "release_held_reason"])
      .where("id", "=", part.id)
      .executeTakeFirstOrThrow();
    expect(partNow.status).toBe("APPROVED");
    expect(partNow.release_held_reason).toMatch(/reorganisation/);
    expect(await eventsOf(job.id, "escrow.settlement_reorged")).toHaveLength(1);

    await finishPendingPartSettlements(service.ctx, { now: new Date(Date.now() + 60_000), only: [job.id] });
    const paid = await service.db
      .selectFrom("milestone_settlements")
      .selectAll()
      .where("id", "=", recorded.id)
      .executeTakeFirstOrThrow();
    expect(paid.status).toBe("CONFIRMED");
    expect(await usdcOf(agentWallet)).toBe(before + net);
    // Exactly once: the next rounds find nothing to do.
    expect((await watch(job))?.reopenedParts).toEqual([]);
    await finishPendingPartSettlements(service.ctx, { now: new Date(Date.now() + 120_000), only: [job.id] });
    expect(await usdcOf(agentWallet)).toBe(before + net);
  });

  it("a release removed by a reorganisation is sent again exactly once; balances and records agree", async () => {
    const { poster, job } = await postJob("10");
    const txHash = await deposit(job.escrowJobId, "10");
    expect((await patchEscrow(job.id, poster.token, txHash)).status).toBe(200);
    const agentWallet = chain.accounts[AGENT_WALLET]!.address;
    const before = await usdcOf(agentWallet);

    const snapshot = await chain.testClient.snapshot();
    const first = await settleJob(service.ctx, job.id, "RELEASE", agentWallet);
    expect(first.status).toBe("CONFIRMED");
    expect(await usdcOf(agentWallet)).toBe(before + parseUsdc("9.5"));

    await reorgTo(snapshot);
    expect(await usdcOf(agentWallet)).toBe(before);
    expect(
      await getEscrow({ config: chain.config, escrowJobId: job.escrowJobId, payer: posterAddress() }),
    ).toMatchObject({ state: "FUNDED" });

    const round = await watch(job);
    expect(round?.reopenedSettlements).toEqual([first.id]);
    const reopened = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("id", "=", first.id)
      .executeTakeFirstOrThrow();
    expect(reopened).toMatchObject({ status: "PENDING", tx_hash: null });
    expect(reopened.reorg_resent_at).not.toBeNull();
    expect(
      (await service.db.selectFrom("jobs").select("release_tx_hash").where("id", "=", job.id).executeTakeFirstOrThrow())
        .release_tx_hash,
    ).toBeNull();
    expect(await eventsOf(job.id, "escrow.settlement_reorged")).toHaveLength(1);

    const resent = await finishPendingSettlements(service.ctx, { only: [job.id] });
    expect(resent.confirmed).toBe(1);
    const confirmed = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("id", "=", first.id)
      .executeTakeFirstOrThrow();
    expect(confirmed.status).toBe("CONFIRMED");
    // The transaction the settlement signed is the one mined again: its nonce was still free after
    // the reorganisation, so the kept bytes were broadcast again rather than a second transaction.
    expect(confirmed.tx_hash).toBe(confirmed.sent_tx_hash);
    const jobRow = await service.db
      .selectFrom("jobs")
      .select(["status", "release_tx_hash"])
      .where("id", "=", job.id)
      .executeTakeFirstOrThrow();
    expect(jobRow).toMatchObject({ status: "COMPLETED", release_tx_hash: confirmed.tx_hash });
    expect(
      await getEscrow({ config: chain.config, escrowJobId: job.escrowJobId, payer: posterAddress() }),
    ).toMatchObject({ state: "RELEASED" });

    // Exactly once: later rounds of both workers move nothing more.
    expect((await watch(job))?.reopenedSettlements).toEqual([]);
    expect(await finishPendingSettlements(service.ctx, { only: [job.id] })).toMatchObject({
      confirmed: 0,
      pending: 0,
      failed: 0,
    });
    expect(await usdcOf(agentWallet)).toBe(before + parseUsdc("9.5"));
  });
  it("a deep reorganisation removing a deposit with a part's release: the job is unfunded, the part approved again, nothing is sent meanwhile, and once funded again the part is paid exactly once", async () => {
    const { poster, job } = await postJobInTwoParts();
    const agentWallet = chain.accounts[AGENT_WALLET]!.address;
    const [agentBefore, posterBefore] = [await usdcOf(agentWallet), await usdcOf(posterAddress())];
    const net = parseUsdc("12") - (parseUsdc("12") * BigInt(chain.config.feeBps)) / 10_000n;
    const snapshot = await chain.testClient.snapshot();
    const depositTx = await deposit(job.escrowJobId, "20");
    expect((await patchEscrow(job.id, poster.token, depositTx)).status).toBe(200);
    const part = await service.db
      .selectFrom("job_milestones")
      .select(["id", "job_id", "amount_usdc"])
      .where("job_id", "=", job.id)
      .where("position", "=", 1)
      .executeTakeFirstOrThrow();
    const recorded = await service.db
      .transaction()
      .execute((trx) => recordPartSettlement(trx, part, "RELEASE", agentWallet));
    const first = await completePartSettlement(service.ctx, recorded.id);
    expect(first.status).toBe("CONFIRMED");
    expect(await usdcOf(agentWallet)).toBe(agentBefore + net);

    // The deposit and the part's release are both gone.
    await reorgTo(snapshot, 6);
    expect(await usdcOf(agentWallet)).toBe(agentBefore);
    expect(await usdcOf(posterAddress())).toBe(posterBefore);

    const round = await watch(job);
    expect(round?.reopenedParts).toEqual([recorded.id]);
    const settlement = () =>
      service.db
        .selectFrom("milestone_settlements")
        .selectAll()
        .where("id", "=", recorded.id)
        .executeTakeFirstOrThrow();
    expect(await settlement()).toMatchObject({ status: "PENDING", tx_hash: null });
    const unfunded = await poster.client.getJob({ params: { id: job.id } });
    expect(unfunded.data.escrowTxHash).toBeNull();
    expect(unfunded.data.depositLostAt).not.toBeNull();
    const partNow = await service.db
      .selectFrom("job_milestones")
      .select(["status"])
      .where("id", "=", part.id)
      .executeTakeFirstOrThrow();
    expect(partNow.status).toBe("APPROVED");
    expect(await eventsOf(job.id, "escrow.deposit_lost")).toHaveLength(1);
    const differences = async () => (await reconcileEscrow(service.ctx)).differences.filter((d) => d.jobId === job.id);
    expect(await differences()).toEqual([]);

    // Nothing is sent for an empty slot, however many rounds run.
    const later = (ms: number) => ({ now: new Date(Date.now() + ms), only: [job.id] });
    expect((await finishPendingPartSettlements(service.ctx, later(60_000))).confirmed).toBe(0);
    expect(await settlement()).toMatchObject({ status: "PENDING", attempts: 1 });
    expect((await watch(job))?.reopenedParts).toEqual([]);

    // Funded again: the approved part is paid once, to the same agent.
    const again = await deposit(job.escrowJobId, "20");
    expect((await patchEscrow(job.id, poster.token, again)).status).toBe(200);
    expect((await finishPendingPartSettlements(service.ctx, later(120_000))).confirmed).toBe(1);
    expect(await settlement()).toMatchObject({ status: "CONFIRMED", to_address: agentWallet });
    expect(await usdcOf(agentWallet)).toBe(agentBefore + net);
    expect((await watch(job))?.reopenedParts).toEqual([]);
    expect((await finishPendingPartSettlements(service.ctx, later(180_000))).confirmed).toBe(0);
    expect(await usdcOf(agentWallet)).toBe(agentBefore + net);
    expect(await differences()).toEqual([]);
  });

  it("a deep reorganisation removing a deposit with its release: the job is unfunded and back in review, nothing is sent meanwhile, and once funded again the release goes out exactly once", async () => {
    const { poster, job } = await postJob("10");
    const agentWallet = chain.accounts[AGENT_WALLET]!.address;
    const [agentBefore, posterBefore] = [await usdcOf(agentWallet), await usdcOf(posterAddress())];
    const snapshot = await chain.testClient.snapshot();
    const depositTx = await deposit(job.escrowJobId, "10");
    expect((await patchEscrow(job.id, poster.token, depositTx)).status).toBe(200);
    const first = await settleJob(service.ctx, job.id, "RELEASE", agentWallet);
    expect(first.status).toBe("CONFIRMED");
    expect(await usdcOf(agentWallet)).toBe(agentBefore + parseUsdc("9.5"));

    // Both transactions are gone: the agent was never paid and the poster never paid in.
    await reorgTo(snapshot, 6);
    expect(await usdcOf(agentWallet)).toBe(agentBefore);
    expect(await usdcOf(posterAddress())).toBe(posterBefore);
    expect(
      await getEscrow({ config: chain.config, escrowJobId: job.escrowJobId, payer: posterAddress() }),
    ).toMatchObject({ state: "NONE" });

    expect((await watch(job))?.reopenedSettlements).toEqual([first.id]);
    const settlement = () =>
      service.db.selectFrom("escrow_settlements").selectAll().where("id", "=", first.id).executeTakeFirstOrThrow();
    expect(await settlement()).toMatchObject({ status: "PENDING", tx_hash: null });
    const unfunded = await poster.client.getJob({ params: { id: job.id } });
    expect(unfunded.data).toMatchObject({ status: "REVIEW", escrowTxHash: null });
    expect(unfunded.data.depositLostAt).not.toBeNull();
    expect(unfunded.data.releaseHeldReason).toMatch(/fund the job again/);
    const told = await eventsOf(job.id, "escrow.deposit_lost");
    expect(told).toHaveLength(1);
    expect(told[0]!.data).toMatchObject({
      txHash: depositTx,
      settlementKind: "RELEASE",
      removedSettlementTxHash: first.tx_hash,
      nextAction: "FUND_AGAIN",
    });
    // The books agree with the chain: nothing held, nothing paid.
    const differences = async () => (await reconcileEscrow(service.ctx)).differences.filter((d) => d.jobId === job.id);
    expect(await differences()).toEqual([]);

    // Nothing is sent for an empty slot, however many rounds run.
    expect(await finishPendingSettlements(service.ctx, { only: [job.id] })).toMatchObject({
      confirmed: 0,
      pending: 0,
      failed: 0,
    });
    expect((await watch(job))?.reopenedSettlements).toEqual([]);

    // The poster funds it again: the approved release is sent once, to the same agent.
    const again = await deposit(job.escrowJobId, "10");
    expect((await patchEscrow(job.id, poster.token, again)).status).toBe(200);
    expect((await finishPendingSettlements(service.ctx, { only: [job.id] })).confirmed).toBe(1);
    const paid = await settlement();
    expect(paid).toMatchObject({ status: "CONFIRMED", to_address: agentWallet });
    expect((await poster.client.getJob({ params: { id: job.id } })).data).toMatchObject({
      status: "COMPLETED",
      releaseTxHash: paid.tx_hash,
      releaseHeldReason: null,
    });
    expect(await usdcOf(agentWallet)).toBe(agentBefore + parseUsdc("9.5"));
    expect((await watch(job))?.reopenedSettlements).toEqual([]);
    expect(await finishPendingSettlements(service.ctx, { only: [job.id] })).toMatchObject({ confirmed: 0, pending: 0 });
    expect(await usdcOf(agentWallet)).toBe(agentBefore + parseUsdc("9.5"));
    expect(await differences()).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAddress } from "viem";
import { sql } from "kysely";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import {
  GENEROUS_BUDGETS,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { SETTLEMENT_LEASE_MS } from "../escrow/settle-job";
import {
  balanceOf,
  claimedAgent,
  postThread,
  randomAddress,
  rewardOf,
  roundFor,
  uniqueTitle,
} from "../testing/rewards-support";
import { uniqueText } from "@/lib/testing/unique-text";
import { networkPrefix } from "../http/client-origin";
import { REAL_POSTS, shuffleWords } from "./fixtures/content-corpus";
import { runRewardsRound } from "./worker";
import { finishPendingWithdrawals } from "./wallet";

// Rewards on a real chain (anvil, its own chain id so that suites sharing a PostgreSQL database
// never pay from each other's slots). Tests run in order and each spends exactly the budget it adds,
// so "no AVAILABLE slot" holds where a test needs it.

let chain: TestChain;
let service: TestService;
let admin: TestUser;
const ADMIN = 9;

beforeAll(async () => {
  chain = await startTestChain({ chainId: 31341 });
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    rewardsAdminAddresses: [chain.accounts[ADMIN]!.address],
  });
  admin = await newUser(service, chain.accounts[ADMIN]!.privateKey);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

async function fund(kind: "THREAD" | "REPLY" | "REFERRAL", slots: number) {
  const res = await service.http("POST", "/v1/forum/reward-campaigns", { token: admin.token, body: { kind, slots } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  expect(res.json.data).toMatchObject({ kind, slots, status: "FUNDED", unfundedSlots: 0 });
  return res.json.data as { id: string };
}

async function ownerWithPayout() {
  const owner = await newUser(service);
  // A verified email (an agent claimed from the mailed link): a new account may earn at once.
  await claimedAgent(service, owner);
  const payout = randomAddress();
  const res = await service.http("PUT", "/v1/forum/me/payout", {
    token: owner.token,
    body: { address: payout.toLowerCase() },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(res.json.data).toMatchObject({ address: payout, target: "ADDRESS" });
  return { owner, payout };
}

const myRewards = async (token: string, query = "") =>
  (await service.http("GET", `/v1/forum/me/rewards${query}`, { token })).json;

describe("forum rewards on the local chain", () => {
  it("GET /v1/forum/rewards and /v1/forum/guide give gross, fee and net per kind (5% fee: 0.095, 0.0475, 0.19)", async () => {
    const res = await service.http("GET", "/v1/forum/rewards");
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ chainId: 31341, tokenSymbol: "USDC", feeBps: 500 });
    const byKind = Object.fromEntries(res.json.data.kinds.map((k: any) => [k.kind, k]));
    expect(byKind.THREAD).toMatchObject({ grossUsdc: "0.1", feeUsdc: "0.005", netUsdc: "0.095" });
    expect(byKind.REPLY).toMatchObject({ grossUsdc: "0.05", feeUsdc: "0.0025", netUsdc: "0.0475" });
    expect(byKind.REFERRAL).toMatchObject({ grossUsdc: "0.2", feeUsdc: "0.01", netUsdc: "0.19" });
    const guide = await service.http("GET", "/v1/forum/guide");
    expect(guide.status).toBe(200);
    expect(guide.json.data.thresholds).toEqual({ threadMinChars: 400, replyMinChars: 200 });
    expect(guide.json.data.markdown).toMatch(/0\.095 USDC/);
  });

  it("a first thread of 400+ characters pays 0.095 USDC to the payout address; a second pays nothing; 399 characters is DECLINED with the reason", async () => {
    const { owner, payout } = await ownerWithPayout();
    const agent = await claimedAgent(service, owner);

    const short = await postThread(agent, 399);
    const declined = await rewardOf(service, short.id, "THREAD", (s) => s !== "PENDING_REVIEW");
    expect(declined).toMatchObject({ status: "DECLINED", review_status: "DECLINED" });
    expect(declined.declined_reason).toMatch(/at least 400 characters.*399/);

    const campaign = await fund("THREAD", 1);
    const before = await balanceOf(chain.config, payout);
    const first = await postThread(agent, 400);
    const paid = await rewardOf(service, first.id, "THREAD", (s) => s === "PAID");
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.095"));
    expect(paid.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // reward.paid goes to the author agent and the paid owner, with the receipt, once.
    const announced = await service.db
      .selectFrom("domain_events")
      .selectAll()
      .where("type", "=", "reward.paid")
      .where(({ eb, ref }) => eb(ref("data", "->>").key("rewardId" as never), "=", paid.id))
      .execute();
    expect(announced.map((e) => e.recipient_ids)).toEqual([[agent.id, owner.id]]);
    expect(announced[0]!.data).toMatchObject({ kind: "THREAD", agentId: agent.id, net: "0.095", txHash: paid.tx_hash });

    const second = await postThread(agent, 800);
    const none = await rewardOf(service, second.id, "THREAD", (s) => s !== "PENDING_REVIEW");
    expect(none.status).toBe("NOT_ELIGIBLE");
    expect(none.declined_reason).toMatch(/one THREAD reward/);
    await runRewardsRound(service.ctx, { onlyRewards: [none.id], onlyAuthors: [] });
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.095"));

    // The owner's list shows all three reviews, newest first, with the reason and the receipt.
    const list = await myRewards(owner.token);
    const rows = list.data.filter((r: any) => [short.id, first.id, second.id].includes(r.contribution.id));
    expect(rows.map((r: any) => r.status)).toEqual(["NOT_ELIGIBLE", "PAID", "DECLINED"]);
    expect(rows[1]).toMatchObject({
      kind: "THREAD",
      reviewStatus: "PASSED",
      netUsdc: "0.095",
      txHash: paid.tx_hash,
      payoutTarget: "ADDRESS",
      payoutAddress: payout,
      campaignId: campaign.id,
    });
    expect(rows[2].declinedReason).toMatch(/400 characters/);
    // The agent key reads its owner's rows too.
    expect((await myRewards(agent.apiKey)).data.map((r: any) => r.id)).toEqual(
      expect.arrayContaining(rows.map((r: any) => r.id)),
    );

    // The slot is a job in AUTOMATIC_FORUM_REWARD, proof hold 0, COMPLETED by the release.
    const slot = (await service.http("GET", `/v1/jobs/${rows[1].slotJobId}/public`)).json.data;
    expect(slot).toMatchObject({
      participationMode: "AUTOMATIC_FORUM_REWARD",
      purpose: "MARKETPLACE",
      status: "COMPLETED",
      funded: true,
      budgetUsdc: "0.1",
      forumRewardSlot: { campaignId: campaign.id, status: "PAID" },
      inputData: { proofHoldHours: 0, forumRewardCampaignId: campaign.id, participationMode: "AUTOMATIC_FORUM_REWARD" },
    });
  });

  it("a copy of an existing visible post is declined as not original; a reply under 200 characters is declined", async () => {
    const owner = await newUser(service);
    const original = await postThread(owner, 500);
    // The rewards worker reviews posts in the order they were published: the original first.
    await rewardOf(service, original.id, "THREAD", (s) => s !== "PENDING_REVIEW");
    const copier = await newUser(service);
    const body = (
      await service.db
        .selectFrom("forum_threads")
        .select("body")
        .where("id", "=", original.id)
        .executeTakeFirstOrThrow()
    ).body;
    const copy = (
      await copier.client.createThread({
        body: { title: "A copied thread title here", body: `${body.toUpperCase()}  !!`, category: "agent-economics" },
      })
    ).data;
    const row = await rewardOf(service, copy.id, "THREAD", (s) => s !== "PENDING_REVIEW");
    expect(row.status).toBe("DECLINED");
    expect(row.declined_reason).toMatch(/not original/);
    const reply = (
      await copier.client.createReply({ params: { slugOrId: original.id }, body: { body: uniqueText(199) } })
    ).data;
    const replyRow = await rewardOf(service, reply.id, "REPLY", (s) => s !== "PENDING_REVIEW");
    expect(replyRow).toMatchObject({ status: "DECLINED" });
    expect(replyRow.declined_reason).toMatch(/at least 200 characters.*199/);
    // The original author's own thread is waiting for THREAD budget (none left): clear it out of the way of later tests.
    await service.db
      .updateTable("forum_rewards")
      .set({ status: "DECLINED", declined_reason: "test cleanup" })
      .where("contribution_id", "=", original.id)
      .execute();
  });

  it("a referred owner's first useful thread pays the referrer 0.19; a self-referral pays nothing", async () => {
    const { owner: referrerOwner, payout: referrerPayout } = await ownerWithPayout();
    const referrer = await claimedAgent(service, referrerOwner);
    const code = (await referrer.client.getReferralCode({})).data.code;

    const { owner: newOwner, payout: newPayout } = await ownerWithPayout();
    const referred = await claimedAgent(service, newOwner, { referralCode: code });
    await fund("THREAD", 2);
    await fund("REFERRAL", 1);
    const beforeReferrer = await balanceOf(chain.config, referrerPayout);
    const beforeNew = await balanceOf(chain.config, newPayout);
    const thread = await postThread(referred, 450);
    const referral = await rewardOf(service, thread.id, "REFERRAL", (s) => s === "PAID");
    await rewardOf(service, thread.id, "THREAD", (s) => s === "PAID");
    expect((await balanceOf(chain.config, referrerPayout)) - beforeReferrer).toBe(parseUsdc("0.19"));
    expect((await balanceOf(chain.config, newPayout)) - beforeNew).toBe(parseUsdc("0.095"));
    expect(referral).toMatchObject({
      owner_user_id: referrerOwner.id,
      referred_owner_user_id: newOwner.id,
      referrer_agent_id: referrer.id,
    });
    const slot = (await service.http("GET", `/v1/jobs/${referral.slot_job_id}/public`)).json.data;
    expect(slot).toMatchObject({ purpose: "PLATFORM_REFERRAL", participationMode: "AUTOMATIC_FORUM_REWARD" });

    // The referrer's page: the referred agent and the reward it earned.
    const referredList = (await service.http("GET", "/v1/referrals/referred", { token: referrerOwner.token })).json;
    expect(referredList.data).toEqual([
      expect.objectContaining({
        agentId: referred.id,
        referrerAgentId: referrer.id,
        claimed: true,
        reward: expect.objectContaining({ status: "PAID", netUsdc: "0.19", txHash: referral.tx_hash }),
      }),
    ]);

    // Self-referral: the same owner's second agent signs up with the first one's code.
    const { owner: selfOwner, payout: selfPayout } = await ownerWithPayout();
    const own = await claimedAgent(service, selfOwner);
    const ownCode = (await own.client.getReferralCode({})).data.code;
    const sibling = await claimedAgent(service, selfOwner, { referralCode: ownCode });
    const beforeSelf = await balanceOf(chain.config, selfPayout);
    const selfThread = await postThread(sibling, 450);
    const selfReferral = await rewardOf(service, selfThread.id, "REFERRAL", (s) => s !== "PENDING_REVIEW");
    expect(selfReferral.status).toBe("NOT_ELIGIBLE");
    expect(selfReferral.declined_reason).toMatch(/self-referral/);
    await rewardOf(service, selfThread.id, "THREAD", (s) => s === "PAID");
    // Only the THREAD reward reached the owner; no REFERRAL slot was used.
    expect((await balanceOf(chain.config, selfPayout)) - beforeSelf).toBe(parseUsdc("0.095"));
    const kinds = Object.fromEntries(
      (await service.http("GET", "/v1/forum/rewards")).json.data.kinds.map((k: any) => [k.kind, k.remainingSlots]),
    );
    expect(kinds).toMatchObject({ THREAD: 0, REFERRAL: 0 });
  });

  it("a human naming referredByAgentId on a thread earns that agent's owner the referral; an unknown id is 400", async () => {
    const { owner: referrerOwner, payout } = await ownerWithPayout();
    const referrer = await claimedAgent(service, referrerOwner);
    const human = await newUser(service);
    await claimedAgent(service, human);
    const bad = await service.http("POST", "/v1/forum/threads", {
      token: human.token,
      body: {
        title: "A thread naming nobody",
        body: uniqueText(450),
        category: "agent-economics",
        referredByAgentId: "no-such-agent",
      },
    });
    expect(bad.status).toBe(400);
    await fund("REFERRAL", 1);
    await fund("THREAD", 1);
    const before = await balanceOf(chain.config, payout);
    const thread = await postThread(human, 450, { referredByAgentId: referrer.id });
    const referral = await rewardOf(service, thread.id, "REFERRAL", (s) => s === "PAID");
    await rewardOf(service, thread.id, "THREAD", (s) => s === "PAID");
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.19"));
    // The referrer's list shows the person (no agent of theirs) with the reward, and pages by cursor.
    const first = (await service.http("GET", "/v1/referrals/referred?limit=1", { token: referrerOwner.token })).json;
    expect(first.data).toEqual([
      expect.objectContaining({
        agentId: null,
        referrerAgentId: referrer.id,
        reward: expect.objectContaining({ id: referral.id, status: "PAID", netUsdc: "0.19" }),
      }),
    ]);
    expect(first.meta).toMatchObject({ hasMore: false, nextCursor: null });
    expect(
      (await service.http("GET", "/v1/referrals/referred?cursor=bad!", { token: referrerOwner.token })).status,
    ).toBe(400);
  });

  it("with the budget exhausted a reward is WAITING_FOR_BUDGET, the forum stays open, and it is paid once budget is added", async () => {
    const { owner, payout } = await ownerWithPayout();
    const host = await newUser(service);
    const thread = await postThread(host, 100);
    const reply = await service.http("POST", `/v1/forum/threads/${thread.id}/replies`, {
      token: owner.token,
      body: { body: uniqueText(250) },
    });
    expect(reply.status).toBe(201);
    const waiting = await rewardOf(service, reply.json.data.id, "REPLY", (s) => s !== "PENDING_REVIEW");
    expect(waiting.status).toBe("WAITING_FOR_BUDGET");
    await runRewardsRound(service.ctx, { onlyRewards: [waiting.id], onlyAuthors: [] });
    expect((await myRewards(owner.token, "?kind=REPLY")).data[0]).toMatchObject({
      status: "WAITING_FOR_BUDGET",
      txHash: null,
      netUsdc: "0.0475",
    });
    const overview = (await service.http("GET", "/v1/forum/rewards")).json.data.kinds.find(
      (k: any) => k.kind === "REPLY",
    );
    expect(overview).toMatchObject({ remainingSlots: 0 });
    expect(overview.waitingRewards).toBeGreaterThanOrEqual(1);

    const before = await balanceOf(chain.config, payout);
    await fund("REPLY", 1);
    const paid = await rewardOf(service, reply.json.data.id, "REPLY", (s) => s === "PAID");
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.0475"));
    expect(paid.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("a crash mid-payment (after the release was sent, before it was recorded) pays exactly once", async () => {
    const { owner, payout } = await ownerWithPayout();
    let crashes = 0;
    service.crashPoints.afterSettlementSend = () => {
      service.crashPoints.afterSettlementSend = undefined;
      crashes += 1;
      throw new Error("simulated crash after sending the reward release");
    };
    await fund("THREAD", 1);
    const before = await balanceOf(chain.config, payout);
    const thread = await postThread(owner, 420);
    const paying = await rewardOf(service, thread.id, "THREAD", (s) => s === "PAYING");
    // Let the crashed payment settle in the kick that started it.
    for (let i = 0; i < 100 && crashes === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(crashes).toBe(1);
    const pending = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", paying.slot_job_id!)
      .executeTakeFirstOrThrow();
    expect(pending).toMatchObject({ status: "PENDING", tx_hash: null });
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.095"));

    // Within the lease nothing happens; after it the worker finds the sent release and records it.
    await roundFor(service, [paying.id]);
    expect(
      (
        await service.db
          .selectFrom("forum_rewards")
          .select("status")
          .where("id", "=", paying.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe("PAYING");
    await roundFor(service, [paying.id], new Date(Date.now() + SETTLEMENT_LEASE_MS + 1000));
    const paid = await rewardOf(service, thread.id, "THREAD", (s) => s === "PAID");
    const settlement = await service.db
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", paying.slot_job_id!)
      .executeTakeFirstOrThrow();
    expect(settlement).toMatchObject({ status: "CONFIRMED", attempts: 2, tx_hash: paid.tx_hash });
    expect((await balanceOf(chain.config, payout)) - before).toBe(parseUsdc("0.095"));
  });

  it("without a payout address the reward goes to the managed wallet; withdrawing needs the owner's session and moves real USDC exactly once", async () => {
    const owner = await newUser(service);
    const payout = (await service.http("GET", "/v1/forum/me/payout", { token: owner.token })).json.data;
    expect(payout).toMatchObject({
      address: null,
      target: "MANAGED_WALLET",
      managedWalletAddress: getAddress(chain.deployment.rewards.address),
    });
    const agent = await claimedAgent(service, owner);
    await fund("THREAD", 1);
    const thread = await postThread(agent, 400);
    const paid = await rewardOf(service, thread.id, "THREAD", (s) => s === "PAID");
    expect(paid).toMatchObject({
      payout_target: "MANAGED_WALLET",
      payout_address: getAddress(chain.deployment.rewards.address),
    });
    expect((await service.http("GET", "/v1/wallet", { token: owner.token })).json.data).toMatchObject({
      balanceUsdc: "0.095",
    });
    const ledger = (await service.http("GET", "/v1/wallet/ledger", { token: owner.token })).json.data;
    expect(ledger).toEqual([
      expect.objectContaining({ kind: "REWARD_CREDIT", direction: "CREDIT", amountUsdc: "0.095", rewardId: paid.id }),
    ]);

    const unclaimed = await newAgent(service);
    const noScope = await service.http("POST", "/v1/wallet/withdrawals", {
      token: unclaimed.apiKey,
      body: { toAddress: randomAddress(), amountUsdc: "0.01" },
    });
    expect(noScope.status).toBe(403);
    expect(noScope.json.code).toBe("MISSING_SCOPE");
    // One reward is below the 1 USDC minimum: it waits until rewards add up.
    const dust = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: randomAddress(), amountUsdc: "0.05" },
    });
    expect(dust.status).toBe(400);
    expect(dust.json).toMatchObject({ code: "WITHDRAWAL_BELOW_MINIMUM", minimumUsdc: "1" });
    const tooMuch = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: randomAddress(), amountUsdc: "1" },
    });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.json).toMatchObject({ code: "INSUFFICIENT_BALANCE", balanceUsdc: "0.095" });
    // More rewards since (credited directly: the rewards wallet holds test USDC on chain to back them).
    await service.db
      .insertInto("wallet_ledger")
      .values({
        owner_user_id: owner.id,
        agent_id: null,
        kind: "REWARD_CREDIT",
        direction: "CREDIT",
        amount_usdc: "2",
        reward_id: null,
        withdrawal_id: null,
        bid_id: null,
        job_id: null,
        memo: "later rewards",
      })
      .execute();

    // A claimed agent's key (it holds wallet:withdraw) cannot withdraw its owner's money; the owner's session can.
    const byAgent = await service.http("POST", "/v1/wallet/withdrawals", {
      token: agent.apiKey,
      body: { toAddress: randomAddress(), amountUsdc: "0.01" },
    });
    expect(byAgent.status).toBe(403);
    expect(byAgent.json.code).toBe("HUMAN_SESSION_REQUIRED");
    expect((await service.http("GET", "/v1/wallet", { token: agent.apiKey })).json.data).toMatchObject({
      balanceUsdc: "2.095",
    });
    const to = randomAddress();
    const done = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: to, amountUsdc: "1.05" },
    });
    expect(done.status, JSON.stringify(done.json)).toBe(201);
    expect(done.json.data).toMatchObject({ status: "CONFIRMED", amountUsdc: "1.05", toAddress: to });
    expect(await balanceOf(chain.config, to)).toBe(parseUsdc("1.05"));

    // A crash after signing and storing, before broadcasting: the worker sends the same transaction, once.
    service.crashPoints.beforeWithdrawalBroadcast = () => {
      service.crashPoints.beforeWithdrawalBroadcast = undefined;
      throw new Error("simulated crash before broadcasting the withdrawal");
    };
    const to2 = randomAddress();
    const crashed = await service.http("POST", "/v1/wallet/withdrawals", {
      token: owner.token,
      body: { toAddress: to2, amountUsdc: "1.045" },
    });
    expect(crashed.status).toBe(201);
    expect(crashed.json.data.status).toBe("PENDING");
    expect(await balanceOf(chain.config, to2)).toBe(0n);
    await finishPendingWithdrawals(service.ctx, {
      only: [crashed.json.data.id],
      now: new Date(Date.now() + 10 * 60_000),
    });
    await finishPendingWithdrawals(service.ctx, {
      only: [crashed.json.data.id],
      now: new Date(Date.now() + 20 * 60_000),
    });
    const after = (await service.http("GET", `/v1/wallet/withdrawals/${crashed.json.data.id}`, { token: owner.token }))
      .json.data;
    expect(after).toMatchObject({ status: "CONFIRMED", txHash: crashed.json.data.txHash });
    expect(await balanceOf(chain.config, to2)).toBe(parseUsdc("1.045"));
    expect((await service.http("GET", "/v1/wallet", { token: owner.token })).json.data.balanceUsdc).toBe("0");
  });

  it("a bid on a forum reward slot is recorded EXPIRED and refunded with a BID_REFUND ledger entry; a second bid is 409", async () => {
    const sponsor = await newUser(service);
    const created = await service.http("POST", "/v1/forum/reward-campaigns", {
      token: sponsor.token,
      body: { kind: "REPLY", slots: 1, funding: "SPONSOR" },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data).toMatchObject({ status: "FUNDING", unfundedSlots: 1, availableSlots: 0 });
    const jobs =
      (await service.http("GET", `/v1/jobs?participationMode=AUTOMATIC_FORUM_REWARD&limit=100`)).json.data ?? [];
    const slotRow = await service.db
      .selectFrom("forum_reward_slots")
      .select("job_id")
      .where("campaign_id", "=", created.json.data.id)
      .executeTakeFirstOrThrow();
    void jobs;
    const job = (await service.http("GET", `/v1/jobs/${slotRow.job_id}/public`)).json.data;
    expect(job.forumRewardSlot).toEqual({ campaignId: created.json.data.id, status: "UNFUNDED" });

    const owner = await newUser(service);
    const agent = await claimedAgent(service, owner);
    const bid = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "1" },
    });
    expect(bid.status, JSON.stringify(bid.json)).toBe(201);
    expect(bid.json.data.status).toBe("EXPIRED");
    const ledger = (await service.http("GET", "/v1/wallet/ledger", { token: agent.apiKey })).json.data;
    expect(ledger).toEqual([
      expect.objectContaining({
        kind: "BID_REFUND",
        direction: "CREDIT",
        amountUsdc: "0",
        bidId: bid.json.data.id,
        jobId: job.id,
        agentId: agent.id,
      }),
    ]);
    const again = await service.http("POST", `/v1/jobs/${job.id}/bids`, {
      token: agent.apiKey,
      body: { agentId: agent.id, proposedUsdc: "1" },
    });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("BID_ALREADY_PLACED");
    // Sponsor slots are funded like any job: deposit, then PATCH /v1/jobs/:id/escrow (not exercised further here).
  });

  it("payout settings: checksums, the zero address, scopes, owners and credentials; an agent key cannot change them", async () => {
    expect((await service.http("GET", "/v1/forum/me/payout")).status).toBe(401);
    const owner = await newUser(service);
    const good = randomAddress();
    const broken = `0x${good.slice(2, 41)}${good[41] === good[41]!.toUpperCase() ? good[41]!.toLowerCase() : good[41]!.toUpperCase()}`;
    const mixedWrong =
      good.slice(0, 2) +
      good
        .slice(2)
        .split("")
        .map((ch, i) =>
          i === 0 && /[a-f]/i.test(ch) ? (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) : ch,
        )
        .join("");
    for (const address of [broken, mixedWrong].filter(
      (a) =>
        a !== good && a.toLowerCase() === good.toLowerCase() && /[A-F]/.test(a.slice(2)) && /[a-f]/.test(a.slice(2)),
    )) {
      const res = await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address } });
      expect(res.status, address).toBe(400);
      expect(res.json).toMatchObject({ statusCode: 400, code: "VALIDATION_FAILED" });
    }
    expect(
      (
        await service.http("PUT", "/v1/forum/me/payout", {
          token: owner.token,
          body: { address: "0x0000000000000000000000000000000000000000" },
        })
      ).status,
    ).toBe(400);
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: "0x123" } })).status,
    ).toBe(400);
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: good, extra: 1 } }))
        .status,
    ).toBe(400);
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: good } })).json.data,
    ).toMatchObject({ address: good, target: "ADDRESS" });
    // Only the person moves the person's money: a claimed agent's key reads its owner's address but cannot change it.
    const agent = await claimedAgent(service, owner);
    const other = randomAddress();
    const byAgent = await service.http("PUT", "/v1/forum/me/payout", { token: agent.apiKey, body: { address: other } });
    expect(byAgent.status).toBe(403);
    expect(byAgent.json).toMatchObject({ statusCode: 403, code: "HUMAN_SESSION_REQUIRED" });
    expect((await service.http("GET", "/v1/forum/me/payout", { token: agent.apiKey })).json.data.address).toBe(good);
    expect((await service.http("GET", "/v1/forum/me/payout", { token: owner.token })).json.data.address).toBe(good);
    const unclaimed = await newAgent(service);
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: unclaimed.apiKey, body: { address: other } })).json
        .code,
    ).toBe("MISSING_SCOPE");
    expect((await service.http("GET", "/v1/forum/me/payout", { token: unclaimed.apiKey })).json.code).toBe(
      "NOT_CLAIMED",
    );
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: null } })).json.data,
    ).toMatchObject({ address: null, target: "MANAGED_WALLET" });
  });

  it("campaigns: operator funding is for admins only, agents cannot create them; bad input is 400; lists paginate", async () => {
    const user = await newUser(service);
    expect(
      (
        await service.http("POST", "/v1/forum/reward-campaigns", {
          token: user.token,
          body: { kind: "THREAD", slots: 1 },
        })
      ).status,
    ).toBe(403);
    const agent = await newAgent(service);
    expect(
      (
        await service.http("POST", "/v1/forum/reward-campaigns", {
          token: agent.apiKey,
          body: { kind: "THREAD", slots: 1, funding: "SPONSOR" },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await service.http("POST", "/v1/forum/reward-campaigns", {
          token: admin.token,
          body: { kind: "NOPE", slots: 1 },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await service.http("POST", "/v1/forum/reward-campaigns", {
          token: admin.token,
          body: { kind: "THREAD", slots: 0 },
        })
      ).status,
    ).toBe(400);
    const page = (await service.http("GET", "/v1/forum/reward-campaigns?limit=2")).json;
    expect(page.data).toHaveLength(2);
    expect(page.meta.hasMore).toBe(true);
    const next = (await service.http("GET", `/v1/forum/reward-campaigns?limit=2&cursor=${page.meta.nextCursor}`)).json;
    expect(next.data[0].id).not.toBe(page.data[1].id);
    expect((await service.http("GET", "/v1/forum/reward-campaigns?cursor=zzz")).status).toBe(400);
    expect((await service.http("GET", "/v1/forum/me/rewards?cursor=zzz", { token: user.token })).status).toBe(400);
    expect((await service.http("GET", "/v1/forum/me/rewards")).status).toBe(401);
  });

  it("a post is reviewed from its event by the next round, even one that a crash cut short after the review started", async () => {
    const owner = await newUser(service);
    const thread = await postThread(owner, 100);
    await rewardOf(service, thread.id, "THREAD", (s) => s === "DECLINED");
    // As if the round had crashed after the review's insert and before its event was marked done.
    await service.db.deleteFrom("forum_rewards").where("contribution_id", "=", thread.id).execute();
    await service.db
      .updateTable("domain_events")
      .set({ rewards_done_at: null })
      .where(sql<string>`data->>'id'`, "=", thread.id)
      .execute();
    await runRewardsRound(service.ctx, { onlyAuthors: [owner.id], onlyRewards: [] });
    const row = await service.db
      .selectFrom("forum_rewards")
      .selectAll()
      .where("contribution_id", "=", thread.id)
      .where("kind", "=", "THREAD")
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("DECLINED");
  });

  // ── Rewards go to people, not to key generators (one owner, many keys, one reward) ────────────────────────

  it("three fresh identities paying to one payout address earn one THREAD and one REPLY reward between them, even from different networks; switching to that address later earns nothing", async () => {
    // Nothing in the configuration turns this off: the payout rule is a unique index (forum_rewards_one_per_payout_kind).
    const shared = randomAddress();
    const identities = [];
    for (let i = 0; i < 3; i++) {
      const owner = await newUser(service);
      const agent = await claimedAgent(service, owner);
      const res = await service.http("PUT", "/v1/forum/me/payout", { token: owner.token, body: { address: shared } });
      expect(res.status).toBe(200);
      identities.push({ owner, agent });
    }
    await fund("THREAD", 1);
    await fund("REPLY", 1);
    const before = await balanceOf(chain.config, shared);
    // Each identity posts with its own agent, each agent from its own network (the harness gives every client its own /24).
    const threads: Array<{ id: string }> = [];
    for (const { agent } of identities) threads.push(await postThread(agent, 450));
    const rows = [];
    for (const t of threads)
      rows.push(await rewardOf(service, t.id, "THREAD", (s) => s === "PAID" || s === "NOT_ELIGIBLE"));
    expect(rows.map((r) => r.status)).toEqual(["PAID", "NOT_ELIGIBLE", "NOT_ELIGIBLE"]);
    for (const r of rows.slice(1))
      expect(r.declined_reason).toMatch(/this payout address already earned its one THREAD reward/);
    // Replies: the same, one between them.
    const host = threads[0]!;
    const replies: Array<{ id: string }> = [];
    for (const { agent } of identities)
      replies.push(
        (await agent.client.createReply({ params: { slugOrId: host.id }, body: { body: uniqueText(260) } })).data,
      );
    const replyRows = [];
    for (const r of replies)
      replyRows.push(await rewardOf(service, r.id, "REPLY", (s) => s === "PAID" || s === "NOT_ELIGIBLE"));
    expect(replyRows.map((r) => r.status)).toEqual(["PAID", "NOT_ELIGIBLE", "NOT_ELIGIBLE"]);
    expect((await balanceOf(chain.config, shared)) - before).toBe(parseUsdc("0.095") + parseUsdc("0.0475"));
    // The second identity's rewards page says why, in words.
    const seen = (await myRewards(identities[1]!.owner.token, "?kind=THREAD")).data.find(
      (r: any) => r.contribution.id === threads[1]!.id,
    );
    expect(seen).toMatchObject({ status: "NOT_ELIGIBLE", declinedReason: expect.stringMatching(/payout address/) });

    // A fourth earns with the managed wallet (waiting: no budget), then points its payout at the shared address before it is paid.
    const late = await newUser(service);
    const lateAgent = await claimedAgent(service, late);
    const lateThread = await postThread(lateAgent, 450);
    const waiting = await rewardOf(service, lateThread.id, "THREAD", (s) => s !== "PENDING_REVIEW");
    expect(waiting.status).toBe("WAITING_FOR_BUDGET");
    expect(
      (await service.http("PUT", "/v1/forum/me/payout", { token: late.token, body: { address: shared } })).status,
    ).toBe(200);
    // The next payment round (repeated: a round skips a reward another round holds locked).
    const statusOf = async () =>
      (
        await service.db
          .selectFrom("forum_rewards")
          .select("status")
          .where("id", "=", waiting.id)
          .executeTakeFirstOrThrow()
      ).status;
    for (let i = 0; i < 100 && (await statusOf()) === "WAITING_FOR_BUDGET"; i++) await roundFor(service, [waiting.id]);
    const after = await rewardOf(service, lateThread.id, "THREAD", (s) => s !== "WAITING_FOR_BUDGET");
    expect(after).toMatchObject({ status: "NOT_ELIGIBLE", slot_job_id: null });
    expect(after.declined_reason).toMatch(/payout address already earned its one THREAD reward/);
    expect((await balanceOf(chain.config, shared)) - before).toBe(parseUsdc("0.095") + parseUsdc("0.0475"));
  });

  it("one reward per kind per network (/24) within the window: a second owner on the same network earns nothing, another network does, and after the window the network may earn again", async () => {
    // Addresses no simulated client of the harness uses (its second octet is at most 250).
    const net = Math.floor(Math.random() * 200);
    const sameNetA = `127.251.${net}.10`;
    const sameNetB = `127.251.${net}.200`;
    const otherNet = `127.251.${net + 1}.10`;
    const post = async (token: string, ip: string) => {
      const res = await service.http("POST", "/v1/forum/threads", {
        token,
        ip,
        body: { title: uniqueTitle(), body: uniqueText(450), category: "agent-economics" },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      return res.json.data as { id: string };
    };
    const a = await ownerWithPayout();
    const b = await ownerWithPayout();
    const c = await ownerWithPayout();
    await fund("THREAD", 3);
    const first = await rewardOf(service, (await post(a.owner.token, sameNetA)).id, "THREAD", (s) => s === "PAID");
    expect(first.origin_key).toMatch(/^[0-9a-f]{32}$/);
    const second = await rewardOf(
      service,
      (await post(b.owner.token, sameNetB)).id,
      "THREAD",
      (s) => s !== "PENDING_REVIEW",
    );
    expect(second.status).toBe("NOT_ELIGIBLE");
    expect(second.declined_reason).toMatch(/same network in the last 24 hours/);
    await rewardOf(service, (await post(c.owner.token, otherNet)).id, "THREAD", (s) => s === "PAID");
    // A day later the network's reward is out of the window: b's next thread from it earns.
    await service.db
      .updateTable("forum_rewards")
      .set({ reviewed_at: new Date(Date.now() - 25 * 3_600_000) })
      .where("id", "=", first.id)
      .execute();
    await rewardOf(service, (await post(b.owner.token, sameNetB)).id, "THREAD", (s) => s === "PAID");
    // The raw address is not stored anywhere.
    const stored = await service.db
      .selectFrom("forum_threads")
      .select("origin_key")
      .where("author_principal_id", "=", a.owner.id)
      .execute();
    expect(JSON.stringify(stored)).not.toContain(`127.251.${net}`);
    // IPv6 networks are compared by /64.
    expect(networkPrefix("2001:db8:1:2:aaaa::1")).toBe(networkPrefix("2001:db8:1:2:bbbb::9"));
    expect(networkPrefix("2001:db8:1:3::1")).not.toBe(networkPrefix("2001:db8:1:2::1"));
    expect(networkPrefix("::ffff:10.1.2.3")).toBe(networkPrefix("10.1.2.99"));
  });

  it("a first reward needs a verified email (a claimed agent) or an account 72 hours old; the reason is in words on the rewards list", async () => {
    const fresh = await newUser(service);
    const early = await postThread(fresh, 450);
    const refused = await rewardOf(service, early.id, "THREAD", (s) => s !== "PENDING_REVIEW");
    expect(refused.status).toBe("NOT_ELIGIBLE");
    expect(refused.declined_reason).toMatch(
      /account is new: a first reward needs a verified email .* or an account at least 72 hours old \(this one is 0 hours old\)/,
    );
    expect((await myRewards(fresh.token)).data[0]).toMatchObject({
      status: "NOT_ELIGIBLE",
      declinedReason: refused.declined_reason,
    });
    // Three days later the same person earns without claiming anything.
    await service.db
      .updateTable("users")
      .set({ created_at: new Date(Date.now() - 73 * 3_600_000) } as never)
      .where("id", "=", fresh.id)
      .execute();
    const later = await rewardOf(service, (await postThread(fresh, 450)).id, "THREAD", (s) => s !== "PENDING_REVIEW");
    expect(later.status).toBe("WAITING_FOR_BUDGET");
    // No THREAD budget is left for it: out of the way of later tests.
    await service.db
      .updateTable("forum_rewards")
      .set({ status: "DECLINED", declined_reason: "test cleanup" })
      .where("id", "=", later.id)
      .execute();
  });

  it("word salad, shuffled posts and near-copies of earlier posts are DECLINED with the reason; an original post is not", async () => {
    const { owner } = await ownerWithPayout();
    const copier = await ownerWithPayout();
    const seed = Math.floor(Math.random() * 1e9);
    const thread = async (token: string, body: string) => {
      const res = await service.http("POST", "/v1/forum/threads", {
        token,
        body: { title: uniqueTitle(), body, category: "agent-economics" },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      return rewardOf(service, res.json.data.id, "THREAD", (s) => s !== "PENDING_REVIEW");
    };
    const vocabulary =
      "agent escrow bidding latency retries proofs budgets schemas cursor ledger quotas webhooks wallet payout".split(
        " ",
      );
    const salad =
      Array.from({ length: 90 }, (_, i) => vocabulary[(seed + i * 7919) % vocabulary.length]).join(" ") + ` ${seed}`;
    const saladRow = await thread(owner.token, salad);
    expect(saladRow).toMatchObject({ status: "DECLINED", review_status: "DECLINED" });
    expect(saladRow.declined_reason).toMatch(/does not read as English prose/);

    const shuffled = await thread(owner.token, shuffleWords(REAL_POSTS[3]!, seed));
    expect(shuffled.status).toBe("DECLINED");
    expect(shuffled.declined_reason).toMatch(/word order is scrambled/);

    const original = uniqueText(600);
    const originalRow = await thread(owner.token, original);
    expect(originalRow.status).not.toBe("DECLINED");
    // Another owner posts it with a few words changed.
    let changed = 0;
    const nearCopy = original.replace(/\b\d+\b/g, (n) => (changed++ < 4 ? String(Number(n) + 1) : n));
    expect(nearCopy).not.toBe(original);
    const copyRow = await thread(copier.owner.token, nearCopy);
    expect(copyRow.status).toBe("DECLINED");
    expect(copyRow.declined_reason).toMatch(/not original: \d+% the same as an earlier post/);
    expect(copyRow.declined_reason).toContain(originalRow.url);
    expect((await myRewards(copier.owner.token, "?kind=THREAD")).data[0]).toMatchObject({
      status: "DECLINED",
      declinedReason: copyRow.declined_reason,
    });
    // The original waits for THREAD budget (none left): out of the way of later tests.
    await service.db
      .updateTable("forum_rewards")
      .set({ status: "DECLINED", declined_reason: "test cleanup" })
      .where("id", "=", originalRow.id)
      .execute();
  });
});

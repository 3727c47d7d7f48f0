import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { escrowAbi } from "@/lib/chain/abi";
import { erc20BalanceOf } from "@/lib/chain/escrow/reads";
import { normalizeEscrowJobId } from "@/lib/chain/escrow-id";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import { parseUsdc } from "@/lib/chain/units";
import { GENEROUS_BUDGETS, newUser, startTestService, type TestService, type TestUser } from "../testing/harness";
import { managedWalletAddress } from "./amounts";
import { fundPendingCampaigns } from "./campaigns";

// Creating a reward campaign deposits its slots one by one. A creation that dies midway must not
// leave the rest unfunded for good, nor be made twice when the client posts again.

let chain: TestChain;
let service: TestService;
let admin: TestUser;
const SLOTS = 6;
const CRASH_AFTER = 2;

beforeAll(async () => {
  chain = await startTestChain({ chainId: 31364 });
  service = await startTestService({
    rateBudgets: GENEROUS_BUDGETS,
    chain: chain.config,
    rewardsAdminAddresses: [chain.accounts[9]!.address],
  });
  admin = await newUser(service, chain.accounts[9]!.privateKey);
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await chain?.stop();
});

const create = (key: string) =>
  service.http("POST", "/v1/forum/reward-campaigns", {
    token: admin.token,
    body: { kind: "THREAD", slots: SLOTS },
    headers: { "idempotency-key": key },
  });
const wallet = () => managedWalletAddress(chain.config) as Address;
const slotsOf = (campaignId: string) =>
  service.db
    .selectFrom("forum_reward_slots as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select([
      "s.slot_no",
      "s.fund_status",
      "s.last_error",
      "s.lease_until",
      "s.sent_tx_hash",
      "j.escrow_job_id",
      "j.escrow_tx_hash",
    ])
    .where("s.campaign_id", "=", campaignId)
    .orderBy("s.slot_no")
    .execute();
const funded = (slot: { fund_status: string; escrow_tx_hash: string | null }) =>
  slot.fund_status === "FUNDED" && slot.escrow_tx_hash !== null;
/** Deposits the rewards wallet made into a slot's escrow, read from the chain. */
const depositsInto = async (escrowJobId: string) =>
  (
    await chain.publicClient.getContractEvents({
      address: chain.config.escrowAddress,
      abi: escrowAbi,
      eventName: "Deposited",
      args: { jobId: normalizeEscrowJobId(escrowJobId), payer: wallet() },
      fromBlock: 0n,
    })
  ).length;

describe("POST /v1/forum/reward-campaigns with an Idempotency-Key, and a creation that crashes midway", () => {
  it("a crash after 2 of 6 deposits: the same key answers the same campaign, the worker funds the 4 others once their lease ends, every slot is deposited exactly once", async () => {
    const key = `campaign-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const before = await erc20BalanceOf({ config: chain.config, address: wallet() });

    // The process dies before the third deposit (simulated: the send throws out of the request).
    service.crashPoints.beforeCampaignDeposit = (slotNo) => {
      if (slotNo > CRASH_AFTER) throw new Error("simulated crash before the deposit");
    };
    const crashed = await create(key);
    service.crashPoints.beforeCampaignDeposit = undefined;
    expect(crashed.status).not.toBe(201);
    const [campaign] = await service.db
      .selectFrom("forum_reward_campaigns")
      .selectAll()
      .where("sponsor_user_id", "=", admin.id)
      .where("idempotency_key", "=", key)
      .execute();
    expect(campaign).toBeDefined();
    let slots = await slotsOf(campaign!.id);
    expect(slots.filter(funded)).toHaveLength(CRASH_AFTER);
    // What a crash leaves: slots owed with neither a transaction nor an error, still leased to the dead request.
    expect(
      slots
        .filter((s) => !funded(s))
        .every(
          (s) =>
            s.fund_status === "PENDING" &&
            s.escrow_tx_hash === null &&
            s.sent_tx_hash === null &&
            s.last_error === null &&
            s.lease_until!.getTime() > Date.now(),
        ),
    ).toBe(true);

    // The same key answers the same campaign (not a second one); its unfunded slots wait for their lease.
    const again = await create(key);
    expect(again.status, JSON.stringify(again.json)).toBe(201);
    expect(again.json.data).toMatchObject({
      id: campaign!.id,
      slots: SLOTS,
      status: "PARTIALLY_FUNDED",
      unfundedSlots: SLOTS - CRASH_AFTER,
    });
    await fundPendingCampaigns(service.ctx, { only: [campaign!.id] });
    expect((await slotsOf(campaign!.id)).filter(funded)).toHaveLength(CRASH_AFTER);

    // The lease runs out (moved back, not waited for): the worker funds the rest.
    await service.db
      .updateTable("forum_reward_slots")
      .set({ lease_until: new Date(Date.now() - 1000) })
      .where("campaign_id", "=", campaign!.id)
      .where("fund_status", "=", "PENDING")
      .execute();
    await fundPendingCampaigns(service.ctx, { only: [campaign!.id] });
    await fundPendingCampaigns(service.ctx, { only: [campaign!.id] });
    slots = await slotsOf(campaign!.id);
    expect(slots.every((s) => funded(s) && s.escrow_tx_hash === s.sent_tx_hash)).toBe(true);
    for (const slot of slots) expect(await depositsInto(slot.escrow_job_id)).toBe(1);
    // The wallet paid each slot's gross amount (0.1 USDC) once: 6 slots, 0.6 USDC.
    expect(before - (await erc20BalanceOf({ config: chain.config, address: wallet() }))).toBe(
      parseUsdc("0.1") * BigInt(SLOTS),
    );

    // The key replays its stored answer (the same campaign); the campaign itself is now funded.
    const final = await create(key);
    expect(final.status).toBe(201);
    expect(final.json.data.id).toBe(campaign!.id);
    const now = await service.http("GET", `/v1/forum/reward-campaigns/${campaign!.id}`);
    expect(now.json.data).toMatchObject({
      id: campaign!.id,
      status: "FUNDED",
      unfundedSlots: 0,
      availableSlots: SLOTS,
    });
    const made = await service.db
      .selectFrom("forum_reward_campaigns")
      .select("id")
      .where("sponsor_user_id", "=", admin.id)
      .where("idempotency_key", "=", key)
      .execute();
    expect(made).toHaveLength(1);
  }, 120_000);

  it("a key left pending by a request that never answered is IDEMPOTENCY_IN_PROGRESS, then, once abandoned, answers the campaign it made", async () => {
    const key = `campaign-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    // The first request stops before its second deposit and never answers (its process is stuck or gone).
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    service.crashPoints.beforeCampaignDeposit = async (slotNo) => {
      if (slotNo === 2) await blocked;
    };
    const first = create(key);
    let campaign: { id: string } | undefined;
    for (let i = 0; i < 200 && !campaign; i++) {
      await new Promise((r) => setTimeout(r, 100));
      campaign = await service.db
        .selectFrom("forum_reward_campaigns")
        .select("id")
        .where("sponsor_user_id", "=", admin.id)
        .where("idempotency_key", "=", key)
        .executeTakeFirst();
    }
    expect(campaign).toBeDefined();

    const waiting = await create(key);
    expect(waiting.status).toBe(409);
    expect(waiting.json.code).toBe("IDEMPOTENCY_IN_PROGRESS");

    // 15 minutes later (moved back) the key is taken over; the handler finds the campaign by its key.
    await sql`update idempotency_keys set created_at = now() - interval '16 minutes' where key = ${key}`.execute(
      service.db,
    );
    const resumed = await create(key);
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(201);
    expect(resumed.json.data.id).toBe(campaign!.id);

    unblock();
    service.crashPoints.beforeCampaignDeposit = undefined;
    const late = await first;
    expect(late.json.data?.id ?? campaign!.id).toBe(campaign!.id);
    expect(
      await service.db.selectFrom("forum_reward_campaigns").select("id").where("idempotency_key", "=", key).execute(),
    ).toHaveLength(1);
  }, 120_000);
});

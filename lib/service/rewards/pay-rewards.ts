import { sql, type Kysely } from "kysely";
import type { ChainConfig } from "@/lib/chain/config";
import type { Database } from "../db/schema";
import { getAddress, type Address } from "viem";
import type { ServiceContext } from "../context";
import { completeSettlement, recordSettlement } from "../escrow/settle-job";
import { chainKeyOf, managedWalletAddress } from "./amounts";
import { isUniqueViolation } from "../db/errors";
import { publishEvent } from "../events/publish-event";
import { formatUsdc } from "@/lib/chain/units";
import { log } from "../log";

/**
 * Paying eligible rewards from funded slots, exactly once.
 *
 * 1. reserve (one transaction): the oldest WAITING_FOR_BUDGET reward of this chain (row lock,
 *    SKIP LOCKED), an OPEN slot of its kind whose job is funded (row lock, SKIP LOCKED); the slot
 *    becomes RESERVED for it (slot.reward_id and reward.slot_job_id are unique), the reward PAYING
 *    with its payout address fixed (the owner's payout address now, or the managed wallet), and the
 *    escrow release of the slot job is recorded (escrow_settlements, unique per job) before any
 *    transaction is sent.
 * 2. completeSettlement sends the release (idempotent against the chain) and records its receipt;
 *    the slot job becomes COMPLETED.
 * 3. finalize (one transaction): reward PAID with the release's txHash, slot PAID, and a managed
 *    wallet payout credits the owner's ledger (unique per reward).
 * A crash after 1 or 2 leaves the settlement PENDING or CONFIRMED; finishPayingRewards (the
 * worker) completes the settlement once its lease ran out and finalizes. Money moves once.
 */

export interface PayRound {
  paid: number;
  paying: number;
  waiting: number;
}

export async function payWaitingRewards(
  ctx: ServiceContext,
  options: { only?: string[]; limit?: number } = {},
): Promise<PayRound> {
  const chain = ctx.config.chain;
  const round: PayRound = { paid: 0, paying: 0, waiting: 0 };
  if (!chain) return round;
  const key = chainKeyOf(chain);
  const exhausted = new Set<string>();
  for (let i = 0; i < (options.limit ?? 50); i++) {
    const reserved = await ctx.db.transaction().execute(async (trx) => {
      let q = trx
        .selectFrom("forum_rewards")
        .select(["id", "kind", "owner_user_id", "payout_key"])
        .where("status", "=", "WAITING_FOR_BUDGET")
        .where("chain_key", "=", key);
      if (exhausted.size > 0) q = q.where("kind", "not in", [...exhausted] as Array<"THREAD" | "REPLY" | "REFERRAL">);
      if (options.only) q = options.only.length ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
      const reward = await q.orderBy("created_at").orderBy("id").limit(1).forUpdate().skipLocked().executeTakeFirst();
      if (!reward) return null;
      // The owner may have changed the payout address since the review: the reward now counts
      // against the new destination, which may have earned this kind already (then NOT_ELIGIBLE).
      if (reward.owner_user_id) {
        const key = await payoutKeyOf(trx, reward.owner_user_id);
        if (key !== reward.payout_key && !(await rekeyReward(trx, reward.id, key, reward.kind, ctx.now()))) {
          return { exhaustedKind: undefined, rewardId: undefined, settlementId: undefined };
        }
      }
      const slot = await trx
        .selectFrom("forum_reward_slots as s")
        .innerJoin("jobs as j", "j.id", "s.job_id")
        // A campaign the operator paused lends no slot (lib/service/rewards/campaigns.ts, setCampaignPaused).
        .innerJoin("forum_reward_campaigns as c", (join) =>
          join.onRef("c.id", "=", "s.campaign_id").on("c.paused_at", "is", null),
        )
        .select(["s.job_id", "s.campaign_id"])
        .where("s.chain_key", "=", key)
        .where("s.kind", "=", reward.kind)
        .where("s.status", "=", "OPEN")
        .where("j.escrow_tx_hash", "is not", null)
        .where("j.status", "=", "OPEN")
        .orderBy("s.created_at")
        .orderBy("s.slot_no")
        .limit(1)
        .forUpdate("s")
        .skipLocked()
        .executeTakeFirst();
      if (!slot) return { exhaustedKind: reward.kind, rewardId: undefined, settlementId: undefined };
      // Inside the transaction (trx, not ctx.db): PGlite has one connection, and ctx.db would wait for this transaction.
      const to = await payoutOf(trx, ctx.config.chain, reward.owner_user_id);
      const now = ctx.now();
      await trx
        .updateTable("forum_reward_slots")
        .set({ status: "RESERVED", reward_id: reward.id, updated_at: now })
        .where("job_id", "=", slot.job_id)
        .execute();
      await trx
        .updateTable("jobs")
        .set({ status: "IN_PROGRESS", updated_at: now })
        .where("id", "=", slot.job_id)
        .execute();
      await trx
        .updateTable("forum_rewards")
        .set({
          status: "PAYING",
          slot_job_id: slot.job_id,
          campaign_id: slot.campaign_id,
          payout_target: to.target,
          payout_address: to.address,
          updated_at: now,
        })
        .where("id", "=", reward.id)
        .execute();
      const settlement = await recordSettlement(trx, slot.job_id, "RELEASE", to.address);
      return { exhaustedKind: undefined, rewardId: reward.id, settlementId: settlement.id };
    });
    if (!reserved) break;
    if (reserved.exhaustedKind || !reserved.rewardId || !reserved.settlementId) {
      if (reserved.exhaustedKind) exhausted.add(reserved.exhaustedKind);
      continue;
    }
    await ctx.crashPoints?.afterRewardReserve?.(reserved.rewardId);
    const settled = await completeSettlement(ctx, reserved.settlementId);
    if (settled.status === "CONFIRMED") {
      await finalizeReward(ctx, reserved.rewardId);
      round.paid += 1;
    } else {
      round.paying += 1;
    }
  }
  const waiting = await ctx.db
    .selectFrom("forum_rewards")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("status", "=", "WAITING_FOR_BUDGET")
    .where("chain_key", "=", key)
    .executeTakeFirstOrThrow();
  round.waiting = Number(waiting.n);
  return round;
}

/**
 * The payout destination an owner's reward counts against ("one reward per payout address per
 * kind", forum_rewards_one_per_payout_kind): the payout address, or, for the managed wallet, the
 * owner itself (every owner's managed balance is their own).
 */
export async function payoutKeyOf(db: Kysely<Database>, ownerUserId: string): Promise<string> {
  const user = await db.selectFrom("users").select("payout_address").where("id", "=", ownerUserId).executeTakeFirst();
  return user?.payout_address ? `address:${user.payout_address.toLowerCase()}` : `owner:${ownerUserId}`;
}

/** Where an owner's reward goes now: the payout address, or the managed wallet. */
export async function payoutOf(
  db: Kysely<Database>,
  chain: ChainConfig | null,
  ownerUserId: string | null,
): Promise<{ target: "ADDRESS" | "MANAGED_WALLET"; address: Address }> {
  const user = ownerUserId
    ? await db.selectFrom("users").select("payout_address").where("id", "=", ownerUserId).executeTakeFirst()
    : undefined;
  if (user?.payout_address) return { target: "ADDRESS", address: getAddress(user.payout_address) };
  const managed = managedWalletAddress(chain);
  if (!managed) throw new Error("no managed wallet without a chain");
  return { target: "MANAGED_WALLET", address: managed };
}

/** Moves a waiting reward to its owner's current payout destination; false (and NOT_ELIGIBLE) if that one earned this kind already. */
async function rekeyReward(
  trx: Kysely<Database>,
  rewardId: string,
  key: string,
  kind: string,
  now: Date,
): Promise<boolean> {
  // A savepoint: the unique violation must not abort the reservation's transaction.
  await sql`savepoint rekey_reward`.execute(trx);
  try {
    await trx
      .updateTable("forum_rewards")
      .set({ payout_key: key, updated_at: now })
      .where("id", "=", rewardId)
      .execute();
    await sql`release savepoint rekey_reward`.execute(trx);
    return true;
  } catch (error) {
    if (!isUniqueViolation(error, "forum_rewards_one_per_payout_kind")) throw error;
    await sql`rollback to savepoint rekey_reward`.execute(trx);
    await trx
      .updateTable("forum_rewards")
      .set({
        status: "NOT_ELIGIBLE",
        declined_reason: `the new payout address already earned its one ${kind} reward (one reward per payout address per kind)`,
        updated_at: now,
      })
      .where("id", "=", rewardId)
      .execute();
    return false;
  }
}

/** Records a confirmed release as the reward's receipt (once). */
export async function finalizeReward(ctx: ServiceContext, rewardId: string): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const reward = await trx
      .selectFrom("forum_rewards")
      .selectAll()
      .where("id", "=", rewardId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (reward.status !== "PAYING" || !reward.slot_job_id) return false;
    const settlement = await trx
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", reward.slot_job_id)
      .executeTakeFirst();
    if (!settlement || settlement.status !== "CONFIRMED" || !settlement.tx_hash) return false;
    const now = ctx.now();
    await trx
      .updateTable("forum_rewards")
      .set({
        status: "PAID",
        tx_hash: settlement.tx_hash,
        paid_at: settlement.confirmed_at ?? now,
        net_usdc: sql`${settlement.amount_units}::numeric / 1000000`,
        updated_at: now,
      })
      .where("id", "=", rewardId)
      .execute();
    await trx
      .updateTable("forum_reward_slots")
      .set({ status: "PAID", updated_at: now })
      .where("job_id", "=", reward.slot_job_id)
      .execute();
    // The author (its agent, or the person) and the owner who is paid hear of it with the receipt.
    await publishEvent(trx, {
      type: "reward.paid",
      to: [reward.author_agent_id ?? reward.author_principal_id, reward.owner_user_id],
      data: {
        rewardId: reward.id,
        kind: reward.kind,
        agentId: reward.author_agent_id,
        net: formatUsdc(BigInt(settlement.amount_units ?? "0")),
        txHash: settlement.tx_hash,
        payoutTarget: reward.payout_target,
        url: reward.url,
      },
    });
    if (reward.payout_target === "MANAGED_WALLET") {
      await trx
        .insertInto("wallet_ledger")
        .values({
          owner_user_id: reward.owner_user_id,
          agent_id: null,
          kind: "REWARD_CREDIT",
          direction: "CREDIT",
          amount_usdc: sql`${settlement.amount_units}::numeric / 1000000` as unknown as string,
          reward_id: reward.id,
          withdrawal_id: null,
          bid_id: null,
          job_id: reward.slot_job_id,
          memo: `${reward.kind} reward for ${reward.url}`,
        })
        .onConflict((oc) => oc.column("reward_id").doNothing())
        .execute();
    }
    return true;
  });
}

/**
 * The worker's half: PAYING rewards whose release is confirmed are finalized; those whose release
 * is still PENDING with its lease run out (a crash mid-payment, a chain outage) are completed first.
 * A release the chain refuses for good (FAILED) keeps the reward PAYING on its slot until the
 * operator settles it again to a valid address.
 */
export async function finishPayingRewards(
  ctx: ServiceContext,
  options: { now?: Date; only?: string[] } = {},
): Promise<number> {
  if (!ctx.config.chain) return 0;
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("forum_rewards as r")
    .innerJoin("escrow_settlements as s", "s.job_id", "r.slot_job_id")
    .select(["r.id", "r.slot_job_id", "s.id as settlement_id", "s.status as settlement_status", "s.lease_until"])
    .where("r.status", "=", "PAYING")
    .where("r.chain_key", "=", chainKeyOf(ctx.config.chain))
    // A FAILED release waits for the operator, and a PENDING one backing off after a chain failure
    // waits for its lease: neither may fill the round's 50 ahead of rewards that can move now.
    .where("s.status", "!=", "FAILED")
    .where((eb) =>
      eb.or([eb("s.status", "=", "CONFIRMED"), eb("s.lease_until", "is", null), eb("s.lease_until", "<=", now)]),
    );
  if (options.only) q = options.only.length ? q.where("r.id", "in", options.only) : q.where(sql<boolean>`false`);
  const rows = await q.limit(50).execute();
  let done = 0;
  for (const row of rows) {
    let status = row.settlement_status;
    if (status === "PENDING" && (!row.lease_until || row.lease_until.getTime() <= now.getTime())) {
      try {
        status = (await completeSettlement(ctx, row.settlement_id, options.now ? { now: options.now } : {})).status;
      } catch (error) {
        log.warn({ rewardId: row.id, reason: (error as Error).message }, "reward release failed");
        continue;
      }
    }
    if (status === "CONFIRMED" && (await finalizeReward(ctx, row.id))) done += 1;
    // FAILED (the chain refused the payout address): the reward stays PAYING on its slot, whose
    // money is still in escrow, until the operator settles it again to a valid address
    // (POST /v1/admin/settlements/:id/resettle, by default the owner's payout destination now).
    // Handing the reward another slot would only lock that slot's money the same way.
  }
  return done;
}

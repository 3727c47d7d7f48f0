import type { ServiceContext } from "../context";
import { isUniqueViolation } from "../db/errors";
import { amountsOf } from "./amounts";
import { payoutKeyOf } from "./pay-rewards";

/**
 * A new owner's first useful thread (its THREAD review became eligible, which happens once per
 * owner) earns its referrer a REFERRAL reward. The referrer is the agent the thread named
 * (referredByAgentId), else the one whose referralCode the author agent signed up with. The
 * referrer must have an owner (it earns for that owner), and a different one: a self-referral is
 * recorded as NOT_ELIGIBLE. The referrer's owner gets one REFERRAL reward (one per owner per kind).
 */
export async function recordReferral(ctx: ServiceContext, threadRewardId: string): Promise<void> {
  const thread = await ctx.db
    .selectFrom("forum_rewards")
    .selectAll()
    .where("id", "=", threadRewardId)
    .executeTakeFirstOrThrow();
  if (thread.kind !== "THREAD" || !thread.owner_user_id) return;
  const named = await ctx.db
    .selectFrom("forum_threads")
    .select("referred_by_agent_id")
    .where("id", "=", thread.contribution_id)
    .executeTakeFirst();
  let referrerAgentId = named?.referred_by_agent_id ?? null;
  if (!referrerAgentId && thread.author_agent_id) {
    const author = await ctx.db
      .selectFrom("agents")
      .select("referred_by_agent_id")
      .where("id", "=", thread.author_agent_id)
      .executeTakeFirst();
    referrerAgentId = author?.referred_by_agent_id ?? null;
  }
  if (!referrerAgentId) return;
  const referrer = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", referrerAgentId)
    .executeTakeFirst();
  // An unclaimed referrer has nobody to pay; nothing is recorded.
  if (!referrer?.owner_user_id) return;

  const self = referrer.owner_user_id === thread.owner_user_id;
  const amounts = amountsOf("REFERRAL", ctx.config.chain?.feeBps ?? 0);
  const now = ctx.now();
  const values = {
    kind: "REFERRAL" as const,
    owner_user_id: referrer.owner_user_id,
    author_principal_id: thread.author_principal_id,
    author_agent_id: thread.author_agent_id,
    author_key: thread.author_key,
    contribution_kind: "THREAD" as const,
    contribution_id: thread.contribution_id,
    thread_id: thread.thread_id,
    thread_title: thread.thread_title,
    url: thread.url,
    body_length: thread.body_length,
    content_hash: thread.content_hash,
    published_at: thread.published_at,
    referrer_agent_id: referrer.id,
    referred_agent_id: thread.author_agent_id,
    referred_owner_user_id: thread.owner_user_id,
    review_status: "PASSED" as const,
    gross_usdc: amounts.grossUsdc,
    fee_usdc: amounts.feeUsdc,
    net_usdc: amounts.netUsdc,
    chain_key: thread.chain_key,
    chain_id: thread.chain_id,
    payout_target: null,
    payout_address: null,
    campaign_id: null,
    slot_job_id: null,
    tx_hash: null,
    reviewed_at: now,
  };
  const payoutKey = await payoutKeyOf(ctx.db, referrer.owner_user_id);
  const insert = (status: "WAITING_FOR_BUDGET" | "NOT_ELIGIBLE", reason: string | null) =>
    ctx.db
      .insertInto("forum_rewards")
      .values({
        ...values,
        status,
        declined_reason: reason,
        payout_key: status === "WAITING_FOR_BUDGET" ? payoutKey : null,
      })
      .onConflict((oc) => oc.columns(["kind", "contribution_kind", "contribution_id"]).doNothing())
      .execute();
  if (self) {
    await insert("NOT_ELIGIBLE", "self-referral: the referrer and the referred contributor have the same owner");
    return;
  }
  try {
    await insert("WAITING_FOR_BUDGET", null);
  } catch (error) {
    if (isUniqueViolation(error, "forum_rewards_one_per_owner_kind")) {
      await insert(
        "NOT_ELIGIBLE",
        "the referrer's owner already earned its one REFERRAL reward (one reward per owner per kind)",
      );
      return;
    }
    if (isUniqueViolation(error, "forum_rewards_one_per_payout_kind")) {
      await insert(
        "NOT_ELIGIBLE",
        "the referrer's payout address already earned its one REFERRAL reward (one reward per payout address per kind)",
      );
      return;
    }
    if (isUniqueViolation(error, "forum_rewards_one_referral_per_referred_owner")) return;
    throw error;
  }
}

import type { Selectable } from "kysely";
import type { z } from "zod";
import type { ForumReward, ListMyRewardsQuery } from "@/lib/api/schemas/rewards";
import { REWARD_KINDS } from "@/lib/api/schemas/rewards";
import { normaliseDecimal } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { ForumRewardsTable } from "../db/schema";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { amountsOf, chainKeyOf, explorerTxUrl } from "./amounts";
import { ownerOf } from "./owner";

export function presentReward(ctx: ServiceContext, r: Selectable<ForumRewardsTable>): z.input<typeof ForumReward> {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    reviewStatus: r.review_status,
    declinedReason: r.declined_reason,
    contribution: {
      kind: r.contribution_kind,
      id: r.contribution_id,
      threadId: r.thread_id,
      threadTitle: r.thread_title,
      url: r.url,
      bodyLength: r.body_length,
      authorKey: r.author_key,
      publishedAt: r.published_at.toISOString(),
    },
    referredAgentId: r.kind === "REFERRAL" ? r.referred_agent_id : null,
    grossUsdc: normaliseDecimal(r.gross_usdc),
    feeUsdc: normaliseDecimal(r.fee_usdc),
    netUsdc: normaliseDecimal(r.net_usdc),
    payoutTarget: r.payout_target,
    payoutAddress: r.payout_address,
    campaignId: r.campaign_id,
    slotJobId: r.slot_job_id,
    txHash: r.tx_hash,
    explorerUrl: explorerTxUrl(ctx.config.chain, r.tx_hash),
    chainId: r.chain_id,
    createdAt: r.created_at.toISOString(),
    reviewedAt: r.reviewed_at?.toISOString() ?? null,
    paidAt: r.paid_at?.toISOString() ?? null,
  };
}

/**
 * GET /v1/forum/me/rewards. An owner sees every row it earns (its own posts, its agents' posts,
 * its REFERRAL rewards); an unclaimed agent sees the reviews of its own posts.
 */
export async function listMyRewards(ctx: ServiceContext, actor: Actor, query: z.output<typeof ListMyRewardsQuery>) {
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  const owner = ownerOf(actor);
  let q = ctx.db.selectFrom("forum_rewards").selectAll();
  q = owner
    ? q.where((eb) =>
        eb.or([
          eb("owner_user_id", "=", owner),
          eb.and([eb("owner_user_id", "is", null), eb("author_principal_id", "=", actor.principalId)]),
        ]),
      )
    : q.where("author_principal_id", "=", actor.principalId).where("kind", "!=", "REFERRAL");
  if (query.kind) q = q.where("kind", "=", query.kind);
  if (query.status) q = q.where("status", "=", query.status);
  if (after) q = q.where(keysetAfter(after, "created_at", "id", "desc"));
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  return { items: page.rows.map((r) => presentReward(ctx, r)), meta: page.meta };
}

// GET /v1/forum/rewards
export async function rewardsOverview(ctx: ServiceContext) {
  const chain = ctx.config.chain;
  const key = chainKeyOf(chain);
  const slots = await ctx.db
    .selectFrom("forum_reward_slots as s")
    .innerJoin("jobs as j", "j.id", "s.job_id")
    .select(["s.kind", (eb) => eb.fn.countAll<string>().as("n")])
    .where("s.chain_key", "=", key)
    .where("s.status", "=", "OPEN")
    .where("j.escrow_tx_hash", "is not", null)
    .where("j.status", "=", "OPEN")
    .groupBy("s.kind")
    .execute();
  const waiting = await ctx.db
    .selectFrom("forum_rewards")
    .select(["kind", (eb) => eb.fn.countAll<string>().as("n")])
    .where("chain_key", "=", key)
    .where("status", "=", "WAITING_FOR_BUDGET")
    .groupBy("kind")
    .execute();
  const feeBps = chain?.feeBps ?? 0;
  return {
    chainId: chain?.chainId ?? 0,
    tokenSymbol: chain?.tokenSymbol ?? "USDC",
    feeBps,
    kinds: REWARD_KINDS.map((kind) => ({
      kind,
      ...amountsOf(kind, feeBps),
      remainingSlots: Number(slots.find((s) => s.kind === kind)?.n ?? 0),
      waitingRewards: Number(waiting.find((w) => w.kind === kind)?.n ?? 0),
    })),
  };
}

import { sql } from "kysely";
import type { z } from "zod";
import type { ListReferredQuery, ReferredOwner } from "@/lib/api/schemas/rewards";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { decodeCursor, pageOf } from "../http/pagination";
import { decimal, explorerTxUrl } from "../rewards/amounts";

/**
 * GET /v1/referrals/referred: agents that signed up with one of the caller's referral codes (a
 * human: any agent it owns; an agent key: its own), with the REFERRAL reward each one's owner's
 * first useful thread earned, if any.
 */
export async function listReferredOwners(ctx: ServiceContext, actor: Actor, query: z.output<typeof ListReferredQuery>) {
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor, /^[A-Za-z0-9_-]{1,100}$/);
  const mine = actor.kind === "AGENT"
    ? [actor.agentId]
    : (await ctx.db.selectFrom("agents").select("id").where("owner_user_id", "=", actor.userId).execute()).map((a) => a.id);
  if (mine.length === 0) return { data: [], meta: { nextCursor: null, hasMore: false, limit } };
  let q = ctx.db.selectFrom("agents as a")
    .leftJoin("forum_rewards as r", (join) => join.on("r.kind", "=", "REFERRAL").onRef("r.referred_agent_id", "=", "a.id"))
    .select(["a.id", "a.name", "a.referred_by_agent_id", "a.owner_user_id", "a.created_at", "r.id as reward_id", "r.status", "r.declined_reason", "r.net_usdc", "r.tx_hash"])
    .where("a.referred_by_agent_id", "in", mine);
  if (after) q = q.where(sql<boolean>`(a.created_at, a.id) < (${new Date(after.k)}::timestamptz, ${after.id}::text)`);
  const rows = await q.orderBy("a.created_at", "desc").orderBy("a.id", "desc").limit(limit + 1).execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  const data: Array<z.input<typeof ReferredOwner>> = page.rows.map((r) => ({
    agentId: r.id,
    agentName: r.name,
    referrerAgentId: r.referred_by_agent_id!,
    claimed: r.owner_user_id !== null,
    joinedAt: r.created_at.toISOString(),
    reward: r.reward_id
      ? { id: r.reward_id, status: r.status!, declinedReason: r.declined_reason, netUsdc: decimal(r.net_usdc!), txHash: r.tx_hash, explorerUrl: explorerTxUrl(ctx.config.chain, r.tx_hash) }
      : null,
  }));
  return { data, meta: page.meta };
}

import { sql } from "kysely";
import type { z } from "zod";
import type { ListReferredQuery, ReferredOwner, RewardStatus } from "@/lib/api/schemas/rewards";
import { normaliseDecimal } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { explorerTxUrl } from "./amounts";

interface Row {
  joined_at: Date;
  key: string;
  agent_id: string | null;
  agent_name: string | null;
  referrer_agent_id: string;
  claimed: boolean;
  reward_id: string | null;
  status: RewardStatus | null;
  declined_reason: string | null;
  net_usdc: string | null;
  tx_hash: string | null;
}

/**
 * GET /v1/referrals/referred: who joined through the caller's referral codes (a human: any agent it
 * owns; an agent key: its own), newest first, with the REFERRAL reward each one's owner's first
 * useful thread earned. Two kinds of rows, merged in one keyset order:
 * - agents that signed up with one of those codes (key `agent:<id>`), with their reward if any;
 * - people who named one of those agents (referredByAgentId) on a thread that earned a REFERRAL
 *   reward (key `reward:<id>`; a person who names a referrer is only known once a thread is reviewed).
 */
export async function listReferredOwners(ctx: ServiceContext, actor: Actor, query: z.output<typeof ListReferredQuery>) {
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor, /^(agent|reward):[A-Za-z0-9_-]{1,100}$/);
  const mine =
    actor.kind === "AGENT"
      ? [actor.agentId]
      : (await ctx.db.selectFrom("agents").select("id").where("owner_user_id", "=", actor.userId).execute()).map(
          (a) => a.id,
        );
  if (mine.length === 0) return { items: [], meta: { nextCursor: null, hasMore: false, limit } };
  const ids = sql.join(mine.map((id) => sql`${id}`));
  const position = after ? sql`where ${keysetAfter(after, "x.joined_at", "x.key", "desc", "text")}` : sql``;
  const result = await sql<Row>`
    select * from (
      select a.created_at as joined_at, 'agent:' || a.id as key, a.id as agent_id, a.name as agent_name, a.referred_by_agent_id as referrer_agent_id,
             a.owner_user_id is not null as claimed, r.id as reward_id, r.status, r.declined_reason, r.net_usdc, r.tx_hash
        from agents a
        left join forum_rewards r on r.kind = 'REFERRAL' and r.referred_agent_id = a.id
       where a.referred_by_agent_id in (${ids})
      union all
      select r.created_at, 'reward:' || r.id, null, null, r.referrer_agent_id, true, r.id, r.status, r.declined_reason, r.net_usdc, r.tx_hash
        from forum_rewards r
       where r.kind = 'REFERRAL' and r.referred_agent_id is null and r.referrer_agent_id in (${ids})
    ) x
    ${position}
    order by x.joined_at desc, x.key collate "C" desc
    limit ${limit + 1}`.execute(ctx.db);
  const page = pageOf(result.rows, limit, (r) => ({ k: new Date(r.joined_at).toISOString(), id: r.key }));
  const data: Array<z.input<typeof ReferredOwner>> = page.rows.map((r) => ({
    agentId: r.agent_id,
    agentName: r.agent_name,
    referrerAgentId: r.referrer_agent_id,
    claimed: r.claimed,
    joinedAt: new Date(r.joined_at).toISOString(),
    reward: r.reward_id
      ? {
          id: r.reward_id,
          status: r.status!,
          declinedReason: r.declined_reason,
          netUsdc: normaliseDecimal(r.net_usdc!),
          txHash: r.tx_hash,
          explorerUrl: explorerTxUrl(ctx.config.chain, r.tx_hash),
        }
      : null,
  }));
  return { items: data, meta: page.meta };
}

import { fail } from "../errors";
import type { BidStatus } from "@/lib/api/schemas/bids";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { normaliseDecimal } from "@/lib/chain/units";
import { actsForAgent } from "../auth/acting-for-agent";
import { presentBid } from "./present-bid";
import { validCertificationsOf } from "../evals/certifications";

interface ListQuery {
  status?: BidStatus;
  limit?: number;
  cursor?: string;
}

/** Bids on a job, for its poster only: a bidder must not see competing offers. */
export async function listJobBids(ctx: ServiceContext, actor: Actor, jobId: string, query: ListQuery) {
  const job = await ctx.db.selectFrom("jobs").select(["poster_id"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may read the bids on this job");
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = ctx.db
    .selectFrom("bids")
    .innerJoin("agents", "agents.id", "bids.agent_id")
    .selectAll("bids")
    .select([
      "agents.name as agent_name",
      "agents.vertical as agent_vertical",
      "agents.max_active_jobs as agent_max_active_jobs",
      "agents.wallet_address as agent_wallet_address",
    ])
    .where("bids.job_id", "=", jobId);
  if (query.status) q = q.where("bids.status", "=", query.status);
  if (after) q = q.where(keysetAfter(after, "bids.created_at", "bids.id", "desc"));
  const rows = await q
    .orderBy("bids.created_at", "desc")
    .orderBy("bids.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }));
  const certifications = await validCertificationsOf(ctx, [...new Set(page.rows.map((row) => row.agent_id))]);
  return {
    items: page.rows.map((row) =>
      presentBid(row, {
        id: row.agent_id,
        name: row.agent_name,
        vertical: row.agent_vertical,
        max_active_jobs: row.agent_max_active_jobs,
        wallet_address: row.agent_wallet_address,
        certifications: certifications.get(row.agent_id) ?? [],
      }),
    ),
    meta: page.meta,
  };
}

/** The agent's bid inbox. An agent key reads only its own agent, even beside a sibling of the same owner. */
export async function listAgentBids(ctx: ServiceContext, actor: Actor, agentId: string, query: ListQuery) {
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", agentId)
    .executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (!actsForAgent(actor, agent))
    throw fail("FORBIDDEN", "an agent's bids are readable by its own key or its owner's session only");
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = ctx.db
    .selectFrom("bids")
    .innerJoin("jobs", "jobs.id", "bids.job_id")
    .selectAll("bids")
    .select([
      "jobs.status as job_status",
      "jobs.escrow_tx_hash as job_escrow_tx_hash",
      "jobs.title as job_title",
      "jobs.budget_usdc as job_budget_usdc",
    ])
    .where("bids.agent_id", "=", agentId);
  if (query.status) q = q.where("bids.status", "=", query.status);
  if (after) q = q.where(keysetAfter(after, "bids.created_at", "bids.id", "desc"));
  const rows = await q
    .orderBy("bids.created_at", "desc")
    .orderBy("bids.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }));
  return {
    items: page.rows.map((row) => {
      const funded = row.job_escrow_tx_hash !== null;
      return {
        ...presentBid(row),
        jobStatus: row.job_status,
        funded,
        job: {
          id: row.job_id,
          title: row.job_title,
          budgetUsdc: normaliseDecimal(row.job_budget_usdc),
          status: row.job_status,
          funded,
        },
      };
    }),
    meta: page.meta,
  };
}

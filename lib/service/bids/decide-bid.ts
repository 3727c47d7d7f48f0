import { sql } from "kysely";
import { ACTIVE_JOB_STATUSES } from "@/lib/api/schemas/jobs";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden, notFound } from "../http/errors";
import { getJobRowOrThrow, presentJob } from "../jobs/present-job";
import { presentBid } from "./present-bid";
import type { Transaction } from "kysely";
import type { Database } from "../db/schema";

/**
 * Takes one of the agent's maxActiveJobs places, or refuses. Must run inside the transaction that
 * assigns the job: the agent row lock serialises every assignment of this agent, on any instance,
 * so concurrent accepts and claims cannot overshoot the cap.
 */
export async function reserveAgentCapacity(trx: Transaction<Database>, agentId: string): Promise<void> {
  const agent = await trx.selectFrom("agents").select(["id", "max_active_jobs", "status"]).where("id", "=", agentId).forUpdate().executeTakeFirstOrThrow();
  if (agent.max_active_jobs === null) return;
  const { n } = await trx
    .selectFrom("jobs")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("agent_id", "=", agentId)
    .where("status", "in", [...ACTIVE_JOB_STATUSES])
    .executeTakeFirstOrThrow();
  if (n >= agent.max_active_jobs) {
    const why = agent.max_active_jobs === 0 ? "is paused (maxActiveJobs is 0)" : `is at its maxActiveJobs limit (${n} of ${agent.max_active_jobs} active jobs)`;
    throw conflict("AGENT_AT_CAPACITY", `agent ${agentId} ${why}; it cannot take this job now`, { maxActiveJobs: agent.max_active_jobs, activeJobs: n });
  }
}

export async function acceptBid(ctx: ServiceContext, actor: Actor, jobId: string, bidId: string) {
  await ctx.db.transaction().execute(async (trx) => {
    // Lock order: job, then agent. Every assignment path follows it, so they cannot deadlock.
    const job = await trx.selectFrom("jobs").select(["id", "poster_id", "status"]).where("id", "=", jobId).forUpdate().executeTakeFirst();
    if (!job) throw notFound("job");
    if (job.poster_id !== actor.principalId) throw forbidden("only the poster may accept bids on this job");
    const bid = await trx.selectFrom("bids").selectAll().where("id", "=", bidId).where("job_id", "=", jobId).executeTakeFirst();
    if (!bid) throw notFound("bid");
    if (job.status !== "OPEN") throw conflict("JOB_NOT_OPEN", `the job is ${job.status}; only an OPEN job can be assigned`);
    if (bid.status !== "PENDING") throw conflict("BID_NOT_PENDING", `the bid is ${bid.status}; only a PENDING bid can be accepted`);

    await reserveAgentCapacity(trx, bid.agent_id);

    const now = ctx.now();
    await trx.updateTable("jobs").set({ status: "IN_PROGRESS", agent_id: bid.agent_id, claimed_at: now, updated_at: now }).where("id", "=", jobId).execute();
    await trx.updateTable("bids").set({ status: "ACCEPTED", updated_at: now }).where("id", "=", bidId).execute();
    // The job is taken: the other bids are answered rather than left pending.
    await trx.updateTable("bids").set({ status: "REJECTED", updated_at: now }).where("job_id", "=", jobId).where("status", "=", "PENDING").execute();
  });
  const bid = await ctx.db.selectFrom("bids").selectAll().where("id", "=", bidId).executeTakeFirstOrThrow();
  return { data: { job: presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true }), bid: presentBid(bid) } };
}

export async function rejectBid(ctx: ServiceContext, actor: Actor, jobId: string, bidId: string) {
  const job = await ctx.db.selectFrom("jobs").select(["poster_id"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (job.poster_id !== actor.principalId) throw forbidden("only the poster may reject bids on this job");
  const row = await ctx.db
    .updateTable("bids")
    .set({ status: "REJECTED", updated_at: ctx.now() })
    .where("id", "=", bidId)
    .where("job_id", "=", jobId)
    .where("status", "=", "PENDING")
    .returningAll()
    .executeTakeFirst();
  if (!row) {
    const bid = await ctx.db.selectFrom("bids").select("status").where("id", "=", bidId).where("job_id", "=", jobId).executeTakeFirst();
    if (!bid) throw notFound("bid");
    throw conflict("BID_NOT_PENDING", `the bid is ${bid.status}; only a PENDING bid can be rejected`);
  }
  return { data: presentBid(row) };
}

/** Withdrawing changes the status only: the record stays, and blocks a new bid with other terms. */
export async function withdrawBid(ctx: ServiceContext, actor: Actor, agentId: string, bidId: string) {
  const agent = await ctx.db.selectFrom("agents").select(["id", "owner_user_id"]).where("id", "=", agentId).executeTakeFirst();
  if (!agent) throw notFound("agent");
  const mayAct = actor.kind === "AGENT" ? actor.agentId === agentId : agent.owner_user_id === actor.userId;
  if (!mayAct) throw forbidden("only the agent itself or its owner may withdraw its bids");
  const row = await ctx.db
    .updateTable("bids")
    .set({ status: "WITHDRAWN", updated_at: ctx.now() })
    .where("id", "=", bidId)
    .where("agent_id", "=", agentId)
    .where("status", "=", "PENDING")
    .returningAll()
    .executeTakeFirst();
  if (!row) {
    const bid = await ctx.db.selectFrom("bids").select("status").where("id", "=", bidId).where("agent_id", "=", agentId).executeTakeFirst();
    if (!bid) throw notFound("bid");
    throw conflict("BID_NOT_PENDING", `the bid is ${bid.status}; only a PENDING bid can be withdrawn`);
  }
  return { data: presentBid(row) };
}

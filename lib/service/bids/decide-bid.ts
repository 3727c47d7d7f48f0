import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden, notFound } from "../http/errors";
import { presentJob } from "../jobs/present-job";
import { getJobRowOrThrow } from "../jobs/read-job";
import { presentBid } from "./present-bid";
import { actsForAgent } from "../auth/acting-for-agent";
import { reserveAgentCapacity } from "../agents/capacity";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, posterRecipientId } from "../events/recipients";

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
    const rejected = await trx.updateTable("bids").set({ status: "REJECTED", updated_at: now }).where("job_id", "=", jobId).where("status", "=", "PENDING").returning(["id", "agent_id"]).execute();

    const poster = await posterRecipientId(trx, job.poster_id);
    const actorId = actorIdOf(actor);
    await publishEvent(trx, { type: "bid.accepted", jobId, to: [bid.agent_id], actorId, data: { jobId, bidId, agentId: bid.agent_id, proposedUsdc: bid.proposed_usdc } });
    await publishEvent(trx, { type: "job.assigned", jobId, to: [bid.agent_id, poster], actorId, data: { jobId, agentId: bid.agent_id, via: "BID", bidId } });
    for (const other of rejected) {
      await publishEvent(trx, { type: "bid.rejected", jobId, to: [other.agent_id], actorId, data: { jobId, bidId: other.id, agentId: other.agent_id, reason: "ANOTHER_BID_ACCEPTED" } });
    }
  });
  const bid = await ctx.db.selectFrom("bids").selectAll().where("id", "=", bidId).executeTakeFirstOrThrow();
  return { data: { job: presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true }), bid: presentBid(bid) } };
}

export async function rejectBid(ctx: ServiceContext, actor: Actor, jobId: string, bidId: string) {
  const job = await ctx.db.selectFrom("jobs").select(["poster_id"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (job.poster_id !== actor.principalId) throw forbidden("only the poster may reject bids on this job");
  const row = await ctx.db.transaction().execute(async (trx) => {
    const rejected = await trx
      .updateTable("bids")
      .set({ status: "REJECTED", updated_at: ctx.now() })
      .where("id", "=", bidId)
      .where("job_id", "=", jobId)
      .where("status", "=", "PENDING")
      .returningAll()
      .executeTakeFirst();
    if (rejected) {
      await publishEvent(trx, { type: "bid.rejected", jobId, to: [rejected.agent_id], actorId: actorIdOf(actor), data: { jobId, bidId, agentId: rejected.agent_id, reason: "REJECTED_BY_POSTER" } });
    }
    return rejected;
  });
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
  if (!actsForAgent(actor, agent)) throw forbidden("only the agent itself or its owner may withdraw its bids");
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

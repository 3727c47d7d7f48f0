import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden, notFound } from "../http/errors";
import { presentJob } from "../jobs/present-job";
import { getJobRowOrThrow } from "../jobs/read-job";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";

/**
 * POST /v1/jobs/:id/dispute. The poster or the assigned agent (or its owner) disputes an
 * IN_PROGRESS or REVIEW job; the job becomes DISPUTED (it still holds one of the agent's
 * maxActiveJobs places) and its escrow stays held. Once a release has been recorded the money is
 * on its way and the job can no longer be disputed. A dispute nobody resolves is refunded to the
 * payer after ServiceConfig.disputeTimeoutDays (14 days) by the review worker.
 */
export async function disputeJob(ctx: ServiceContext, actor: Actor, jobId: string, reason: string) {
  const job = await ctx.db.selectFrom("jobs").select(["poster_id", "agent_id"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (job.poster_id !== actor.principalId && !(await isAgentOrItsOwner(ctx, actor, job.agent_id))) {
    throw forbidden("only the poster or the assigned agent may dispute this job");
  }
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await trx.selectFrom("jobs").select(["status"]).where("id", "=", jobId).forUpdate().executeTakeFirstOrThrow();
    if (locked.status !== "IN_PROGRESS" && locked.status !== "REVIEW") {
      throw conflict("INVALID_STATE", `a ${locked.status} job cannot be disputed; only IN_PROGRESS and REVIEW jobs can`);
    }
    const settlement = await trx.selectFrom("escrow_settlements").select(["kind", "status"]).where("job_id", "=", jobId).executeTakeFirst();
    if (settlement) {
      throw conflict("SETTLEMENT_IN_PROGRESS", `the escrow is already being ${settlement.kind === "RELEASE" ? "released to the agent" : "refunded"}; the job can no longer be disputed`);
    }
    const now = ctx.now();
    await trx.updateTable("jobs").set({ status: "DISPUTED", disputed_at: now, dispute_reason: reason, updated_at: now }).where("id", "=", jobId).execute();
  });
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true }) };
}

import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden, notFound } from "../http/errors";
import { getJobRowOrThrow, presentJob } from "./present-job";

/**
 * The poster cancels a job that nobody is working on. Pending bids expire. A funded job's escrow
 * is refunded by the escrow domain (see escrow/refund), which this hands the job to.
 */
export async function cancelJob(ctx: ServiceContext, actor: Actor, jobId: string) {
  await ctx.db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom("jobs").select(["id", "poster_id", "status"]).where("id", "=", jobId).forUpdate().executeTakeFirst();
    if (!job) throw notFound("job");
    if (job.poster_id !== actor.principalId) throw forbidden("only the poster may cancel this job");
    if (job.status !== "OPEN") {
      throw conflict("INVALID_STATE", `a job in status ${job.status} cannot be cancelled; open a dispute instead`);
    }
    const now = ctx.now();
    await trx.updateTable("jobs").set({ status: "CANCELLED", updated_at: now }).where("id", "=", jobId).execute();
    await trx.updateTable("bids").set({ status: "EXPIRED", updated_at: now }).where("job_id", "=", jobId).where("status", "=", "PENDING").execute();
  });
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}

import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden, notFound } from "../http/errors";
import { getJobRowOrThrow, presentJob } from "./present-job";
import { settleJob } from "../escrow/settle-job";

/**
 * The poster cancels a job that nobody is working on. Pending bids expire. A funded job's escrow
 * is refunded to the payer through the escrow settlement path (exactly once).
 */
export async function cancelJob(ctx: ServiceContext, actor: Actor, jobId: string) {
  const funded = await ctx.db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom("jobs").select(["id", "poster_id", "status", "escrow_tx_hash"]).where("id", "=", jobId).forUpdate().executeTakeFirst();
    if (!job) throw notFound("job");
    if (job.poster_id !== actor.principalId) throw forbidden("only the poster may cancel this job");
    if (job.status !== "OPEN") {
      throw conflict("INVALID_STATE", `a job in status ${job.status} cannot be cancelled; open a dispute instead`);
    }
    const now = ctx.now();
    await trx.updateTable("jobs").set({ status: "CANCELLED", updated_at: now }).where("id", "=", jobId).execute();
    await trx.updateTable("bids").set({ status: "EXPIRED", updated_at: now }).where("job_id", "=", jobId).where("status", "=", "PENDING").execute();
    return job.escrow_tx_hash !== null;
  });
  // The refund is recorded as PENDING before it is sent; if the chain is unreachable now, the
  // settlement worker finishes it, so the cancellation itself never waits on the chain.
  if (funded) {
    await settleJob(ctx, jobId, "REFUND").catch((error) => console.error(`[cancel] refund of ${jobId} pending: ${(error as Error).message}`));
  }
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}

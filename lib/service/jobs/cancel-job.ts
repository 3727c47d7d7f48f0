import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden, notFound } from "../http/errors";
import { presentJob } from "./present-job";
import { getJobRowOrThrow } from "./read-job";
import { completeSettlement, recordSettlement } from "../escrow/settle-job";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, posterRecipientId } from "../events/recipients";

/**
 * The poster cancels a job that nobody is working on (OPEN). Pending bids expire. A funded job's
 * escrow is refunded to its payer through the settlement path (exactly once): the refund is
 * recorded in the same transaction as the cancellation, then sent; the answer carries
 * refundTxHash once the receipt is in. If the chain is unreachable the job is CANCELLED with
 * refundTxHash null and the settlement worker sends the refund within seconds of the chain's return.
 */
export async function cancelJob(ctx: ServiceContext, actor: Actor, jobId: string) {
  const settlement = await ctx.db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom("jobs").select(["id", "poster_id", "status", "escrow_tx_hash"]).where("id", "=", jobId).forUpdate().executeTakeFirst();
    if (!job) throw notFound("job");
    if (job.poster_id !== actor.principalId) throw forbidden("only the poster may cancel this job");
    if (job.status !== "OPEN") {
      throw conflict("INVALID_STATE", `a job in status ${job.status} cannot be cancelled; only an OPEN job can (an assigned job can be disputed)`);
    }
    const now = ctx.now();
    await trx.updateTable("jobs").set({ status: "CANCELLED", updated_at: now }).where("id", "=", jobId).execute();
    const expired = await trx.updateTable("bids").set({ status: "EXPIRED", updated_at: now }).where("job_id", "=", jobId).where("status", "=", "PENDING").returning("agent_id").execute();
    // The poster and every agent whose bid it ends (an OPEN job has no assigned agent).
    await publishEvent(trx, {
      type: "job.cancelled",
      jobId,
      to: [await posterRecipientId(trx, job.poster_id), ...expired.map((bid) => bid.agent_id)],
      actorId: actorIdOf(actor),
      data: { jobId, funded: job.escrow_tx_hash !== null },
    });
    return job.escrow_tx_hash !== null ? recordSettlement(trx, jobId, "REFUND", null) : null;
  });
  if (settlement?.status === "PENDING") {
    await completeSettlement(ctx, settlement.id).catch((error: unknown) => {
      console.error(`[cancel] refund of ${jobId} left to the settlement worker: ${(error as Error).message}`);
    });
  }
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true }) };
}

import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { presentJob } from "./present-job";
import { cancellationGround } from "./lifecycle-rules";
import { getJobRowOrThrow } from "./read-job";
import { partsCancellation } from "./parts-cancellation";
import { completeSettlement, recordSettlement } from "../escrow/settle-job";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, posterRecipientId } from "../events/recipients";
import { log } from "../log";

/**
 * The poster cancels a job by cancellationGround: an OPEN one, or an assigned one that is unfunded
 * or late. The assigned agent is told and its place under maxActiveJobs is free (capacity counts
 * jobs by status). Pending bids expire. A funded job's
 * escrow is refunded to its payer through the settlement path (exactly once): the refund is
 * recorded in the same transaction as the cancellation, then sent; the answer carries
 * refundTxHash once the receipt is in. If the chain is unreachable the job is CANCELLED with
 * refundTxHash null and the settlement worker sends the refund within seconds of the chain's return.
 */
export async function cancelJob(ctx: ServiceContext, actor: Actor, jobId: string) {
  const settlement = await ctx.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom("jobs")
      .select([
        "id",
        "poster_id",
        "agent_id",
        "status",
        "escrow_tx_hash",
        "deadline_at",
        "submitted_at",
        "disputed_at",
        "parts_in_flight",
      ])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!job) throw fail("NOT_FOUND", "job not found");
    if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may cancel this job");
    // A job paid in parts may also be cancelled while IN_PROGRESS when no part is in flight (none
    // delivered, approved, disputed or being settled): what the settled parts left is refunded. A
    // part in flight is owed to its agent (lifecycle-rules.ts hasPartsInFlight), whatever the job's
    // status: the refund would take its money, so no cancellation while one is.
    const { parts, inFlight } = await partsCancellation(trx, jobId, { lock: true });
    const partsGround = parts > 0 && job.status === "IN_PROGRESS" && job.escrow_tx_hash !== null && !inFlight;
    if (inFlight) {
      throw fail(
        "INVALID_STATE",
        "a part of this job is delivered, approved, disputed or being settled, and what it is owed is its agent's: approve, dispute or let it settle before cancelling the rest",
      );
    }
    if (!partsGround && cancellationGround(job, ctx.now()) === null) {
      throw fail(
        "INVALID_STATE",
        `a job in status ${job.status} cannot be cancelled: only an OPEN job, or an assigned one that is unfunded or past its deadline with nothing delivered (delivered or disputed work is approved or disputed)`,
      );
    }
    const now = ctx.now();
    await trx.updateTable("jobs").set({ status: "CANCELLED", updated_at: now }).where("id", "=", jobId).execute();
    // The parts not settled go back with the refund of what remains in the escrow (the contract's
    // refund returns exactly what the settled parts left).
    if (parts > 0 && job.escrow_tx_hash !== null) {
      await trx
        .updateTable("job_milestones")
        .set({ status: "REFUNDED", settled_at: now, updated_at: now })
        .where("job_id", "=", jobId)
        .where("status", "=", "OPEN")
        .execute();
    }
    const expired = await trx
      .updateTable("bids")
      .set({ status: "EXPIRED", updated_at: now })
      .where("job_id", "=", jobId)
      .where("status", "=", "PENDING")
      .returning("agent_id")
      .execute();
    // The poster, every agent whose bid it ends, and the assigned agent if there was one.
    await publishEvent(trx, {
      type: "job.cancelled",
      jobId,
      to: [await posterRecipientId(trx, job.poster_id), ...expired.map((bid) => bid.agent_id), job.agent_id],
      actorId: actorIdOf(actor),
      data: { jobId, funded: job.escrow_tx_hash !== null },
    });
    return job.escrow_tx_hash !== null ? recordSettlement(trx, jobId, "REFUND", null) : null;
  });
  if (settlement?.status === "PENDING") {
    await completeSettlement(ctx, settlement.id).catch((error: unknown) => {
      log.warn({ jobId, reason: (error as Error).message }, "refund left to the settlement worker");
    });
  }
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { presentJob } from "./present-job";
import { getJobRowOrThrow, isStalled, reopenClaimedJobs } from "./read-job";
import { hasPartsInFlight } from "./lifecycle-rules";

/**
 * POST /v1/jobs/:id/reopen: the poster takes a stalled job back (read-job.ts isStalled). The job is
 * OPEN again with no agent, so the agent's maxActiveJobs place is free (capacity counts assigned
 * jobs in ACTIVE_JOB_STATUSES); its accepted bid stays as a record, EXPIRED (an existing status:
 * the assignment ran out, neither side rejected or withdrew anything); a bounty claim ends LAPSED.
 * The escrow is not touched: the same funds wait for the next agent, or a cancel refunds them.
 * One transaction; the job row is locked first and is the only row locked (lock order job, agent).
 */
export async function reopenJob(ctx: ServiceContext, actor: Actor, jobId: string) {
  await ctx.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom("jobs")
      .select([
        "id",
        "poster_id",
        "status",
        "agent_id",
        "input_data",
        "claimed_at",
        "last_heartbeat_at",
        "updated_at",
        "changes_requested_at",
        "parts_in_flight",
      ])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!job) throw fail("NOT_FOUND", "job not found");
    if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may reopen this job");
    const now = ctx.now();
    if (!isStalled(job, now)) {
      throw fail(
        "JOB_NOT_STALLED",
        job.status === "IN_PROGRESS"
          ? hasPartsInFlight(job)
            ? "the job is not stalled: a part its agent delivered awaits approval, a ruling or its payment, and is owed to that agent"
            : "the job is not stalled: its agent reported progress (or was assigned) within inputData.stallAfterHours"
          : `the job is ${job.status}; only a stalled IN_PROGRESS job can be reopened`,
      );
    }
    await reopenClaimedJobs(trx, [jobId], now, "LAPSED");
    if (job.agent_id) {
      await trx
        .updateTable("bids")
        .set({ status: "EXPIRED", updated_at: now })
        .where("job_id", "=", jobId)
        .where("agent_id", "=", job.agent_id)
        .where("status", "=", "ACCEPTED")
        .execute();
    }
  });
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

import { fail } from "../errors";
import type { z } from "zod";
import type { JobHeartbeatRequest } from "@/lib/api/schemas/jobs";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";
import { presentJob } from "./present-job";
import { getJobRowOrThrow, isClaimLapsed, lapseExpiredClaims } from "./read-job";

/**
 * POST /v1/jobs/:id/heartbeat: the assigned agent (or its owner) reports progress on an IN_PROGRESS
 * job. Only the latest report is kept (the job row), so reports cost no storage however often they
 * come; each one restarts the stall clock (read-job.ts isStalled).
 */
export async function reportProgress(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  body: z.output<typeof JobHeartbeatRequest>,
) {
  // A bounty claim that ran out is not the agent's any more: lapse it first, so the answer below is the truth.
  const current = await getJobRowOrThrow(ctx, jobId);
  if (isClaimLapsed(current, ctx.now())) await lapseExpiredClaims(ctx, { jobId });

  await ctx.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom("jobs")
      .select(["id", "status", "agent_id"])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!job) throw fail("NOT_FOUND", "job not found");
    // Read through the transaction: a single-connection database (PGlite) would wait on itself otherwise.
    if (!(await isAgentOrItsOwner({ ...ctx, db: trx }, actor, job.agent_id)))
      throw fail("FORBIDDEN", "only the assigned agent (or its owner) may report progress on this job");
    if (job.status !== "IN_PROGRESS")
      throw fail("INVALID_STATE", `the job is ${job.status}; progress is reported on an IN_PROGRESS job`);
    const now = ctx.now();
    await trx
      .updateTable("jobs")
      .set({ progress: body.progress, progress_note: body.note ? body.note : null, last_heartbeat_at: now })
      .where("id", "=", jobId)
      .execute();
  });
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

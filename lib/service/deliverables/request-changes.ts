import { fail } from "../errors";
import type { Transaction } from "kysely";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { Database } from "../db/schema";
import { presentJob } from "../jobs/present-job";
import { getJobRowOrThrow, type JobWithRelations } from "../jobs/read-job";
import { isJobEvaluator, jobRoleOf } from "../jobs/job-viewer";
import { isUniqueViolation } from "../db/errors";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, jobRecipients } from "../events/recipients";

// Sending delivered work back for changes (REVISION_RULE in lib/api/schemas/jobs.ts): who may ask,
// how many rounds a job allows, and the record of each request, for a whole job here and for one
// part in milestones/milestone-actions.ts. The agent then resubmits on the ordinary route: the
// proof check runs again and the proof hold and review window start from the new submission.

type Trx = Transaction<Database>;

/**
 * The poster's side (the poster's credential, or the human who owns a posting agent) or the
 * evaluator the poster named on the job. The assigned agent, other posters and strangers are refused.
 */
export async function assertMayRequestChanges(ctx: ServiceContext, actor: Actor, job: JobWithRelations) {
  const role = jobRoleOf(actor, job);
  if (role === "POSTER" || role === "OWNER_OF_POSTER") return;
  if (await isJobEvaluator(ctx, actor, job.evaluator_address)) return;
  throw fail(
    "FORBIDDEN",
    "only the job's poster (or the evaluator it named) may ask for changes to the delivered work",
  );
}

/** 409 REVISIONS_EXHAUSTED once the job's maxRevisions requests have been made (for the job, or for one part). */
export function assertRoundsLeft(maxRevisions: number, revisionCount: number, what: string) {
  if (revisionCount < maxRevisions) return;
  throw fail(
    "REVISIONS_EXHAUSTED",
    maxRevisions === 0
      ? `this job allows no request for changes: approve ${what} or dispute it`
      : `changes were already asked for ${revisionCount} times, the most this job allows (maxRevisions ${maxRevisions}): approve ${what} or dispute it`,
    { maxRevisions, revisionCount },
  );
}

/**
 * Records one round (unique per job, part and round: of two requests racing for the same round one
 * is refused) and announces job.changes_requested to the parties, in the caller's transaction.
 */
export async function recordChangeRequest(
  trx: Trx,
  actor: Actor,
  job: { id: string; poster_id: string; agent_id: string | null; max_revisions: number },
  request: {
    round: number;
    message: string;
    at: Date;
    delivered: { url: string | null; at: Date | null; proofHash: string | null };
    part?: { id: string; position: number };
  },
) {
  try {
    await trx
      .insertInto("job_change_requests")
      .values({
        job_id: job.id,
        milestone_id: request.part?.id ?? null,
        round: request.round,
        message: request.message,
        requested_by: actor.principalId,
        delivered_url: request.delivered.url,
        delivered_at: request.delivered.at,
        proof_hash: request.delivered.proofHash,
        created_at: request.at,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw fail("INVALID_STATE", "changes were asked for at the same moment by another request; reload the job");
    throw error;
  }
  await publishEvent(trx, {
    type: "job.changes_requested",
    jobId: job.id,
    to: await jobRecipients(trx, job),
    actorId: actorIdOf(actor),
    data: {
      jobId: job.id,
      agentId: job.agent_id,
      round: request.round,
      maxRevisions: job.max_revisions,
      message: request.message,
      requestedAt: request.at.toISOString(),
      ...(request.part ? { milestoneId: request.part.id, position: request.part.position } : {}),
    },
  });
}

/** POST /v1/jobs/:id/request-changes: a job in REVIEW, not approved, goes back to IN_PROGRESS. */
export async function requestChanges(ctx: ServiceContext, actor: Actor, jobId: string, message: string) {
  const job = await getJobRowOrThrow(ctx, jobId);
  await assertMayRequestChanges(ctx, actor, job);
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    // Lock order: job first. An approval or a dispute racing this takes the same lock.
    const locked = await trx
      .selectFrom("jobs")
      .select([
        "id",
        "poster_id",
        "agent_id",
        "status",
        "approved_at",
        "max_revisions",
        "revision_count",
        "output_data",
        "submitted_at",
        "proof_hash",
      ])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (locked.approved_at !== null || locked.status === "COMPLETED")
      throw fail("INVALID_STATE", "the work is approved already: changes can no longer be asked for");
    if (locked.status !== "REVIEW")
      throw fail(
        "INVALID_STATE",
        `a ${locked.status} job has no delivered work to send back; only a job in REVIEW does`,
      );
    assertRoundsLeft(locked.max_revisions, locked.revision_count, "the work");
    const round = locked.revision_count + 1;
    // The delivery stays on the job (the agent sees what was sent back, and submitted_at still says
    // that work was delivered, so the job is not "late with nothing delivered"); the next
    // submission replaces it and starts the proof hold again.
    await trx
      .updateTable("jobs")
      .set({
        status: "IN_PROGRESS",
        revision_count: round,
        change_request_message: message,
        changes_requested_at: now,
        release_held_reason: null,
        updated_at: now,
      })
      .where("id", "=", jobId)
      .execute();
    const url = typeof locked.output_data?.url === "string" ? locked.output_data.url : null;
    await recordChangeRequest(trx, actor, locked, {
      round,
      message,
      at: now,
      delivered: { url, at: locked.submitted_at, proofHash: locked.proof_hash },
    });
  });
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { presentJob } from "../jobs/present-job";
import { getJobOrThrow, getJobRowOrThrow, isClaimLapsed } from "../jobs/read-job";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";
import { assertAgentNotSuspended } from "../auth/suspension";
import { evaluateCriteria } from "../job-modes/evaluate-criteria";
import { refuseOwnUrl } from "../proofs/fetch-policy";
import { checkDeliverable, proofFailureExtra } from "./check-deliverable";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, jobRecipients } from "../events/recipients";
import { log } from "../log";

/**
 * POST /v1/jobs/:id/submit. The assigned agent (or its owner's session) submits outputData.url for
 * a funded IN_PROGRESS job. The URL is probed at once; only LIVE moves the job to REVIEW (with
 * submittedAt, the proof-check fields and proofHash, the SHA-256 of the text the probe read). A
 * failing probe refuses the submission with its status and reason and leaves the job as it was;
 * the attempt stays in the proof-check history. A URL of this marketplace itself is refused with
 * 400 DELIVERABLE_URL_NOT_ALLOWED before any probe.
 */
export async function submitDeliverable(ctx: ServiceContext, actor: Actor, jobId: string, url: string) {
  const job = await getJobOrThrow(ctx.db, jobId);
  if (!(await isAgentOrItsOwner(ctx, actor, job.agent_id)))
    throw fail("FORBIDDEN", "only the agent assigned to this job (or its owner) may submit its deliverable");
  await assertAgentNotSuspended(ctx.db, job.agent_id);
  if (job.escrow_tx_hash === null)
    throw fail(
      "JOB_NOT_FUNDED",
      "the job is not funded yet: work is submitted only once its poster has deposited the budget in escrow (the poster is told; until then the poster may also cancel it)",
    );
  if (job.status !== "IN_PROGRESS")
    throw fail("INVALID_STATE", `a ${job.status} job takes no submission; only an IN_PROGRESS job does`);
  const parts = await ctx.db.selectFrom("job_milestones").select("id").where("job_id", "=", jobId).limit(1).execute();
  if (parts.length > 0)
    throw fail(
      "INVALID_STATE",
      "this job is paid in parts: submit each part with POST /v1/jobs/:id/milestones/:position/submit",
    );
  if (isClaimLapsed(job, ctx.now()))
    throw fail(
      "CLAIM_EXPIRED",
      "the claim on this bounty ran out before the submission; claim it again if it is still open",
    );

  // A page of this marketplace is no proof of work (the job's own page carries its marker): refused
  // before any fetch. Aliases only seen at fetch time (redirects, names resolving here) the probe refuses.
  refuseOwnUrl(ctx.config, url, "DELIVERABLE_URL_NOT_ALLOWED", "the deliverable URL");

  const probe = await checkDeliverable(ctx, job, url, "SUBMISSION", { updateJob: false });
  if (probe.status !== "LIVE") {
    throw fail(
      "PROOF_CHECK_FAILED",
      `the deliverable did not pass the proof check (${probe.status}): ${probe.reason ?? "not live"}`,
      proofFailureExtra(probe),
    );
  }

  const now = ctx.now();
  const moved = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("jobs")
      .set({
        status: "REVIEW",
        output_data: JSON.stringify({ url }),
        submitted_at: now,
        proof_checked_at: new Date(probe.checkedAt),
        proof_check_status: probe.status,
        proof_check_reason: probe.reason,
        proof_hash: probe.contentSha256,
        release_held_reason: null,
        updated_at: now,
      })
      .where("id", "=", jobId)
      .where("status", "=", "IN_PROGRESS")
      .where("agent_id", "=", job.agent_id)
      // The probe takes seconds: a bounty claim may have lapsed meanwhile (and the job been claimed
      // again, by this agent or another). Only a claim still running when we write may submit.
      .where((eb) => eb.or([eb("claim_expires_at", "is", null), eb("claim_expires_at", ">", now)]))
      .returning(["id", "poster_id", "agent_id"])
      .executeTakeFirst();
    if (row) {
      await publishEvent(trx, {
        type: "job.submitted",
        jobId,
        to: await jobRecipients(trx, row),
        actorId: actorIdOf(actor),
        data: { jobId, agentId: row.agent_id, url, proofHash: probe.contentSha256, submittedAt: now.toISOString() },
      });
    }
    return row;
  });
  if (!moved) {
    if (job.claim_expires_at && job.claim_expires_at.getTime() <= now.getTime()) {
      throw fail(
        "CLAIM_EXPIRED",
        "the claim on this bounty ran out while the deliverable was being checked; claim it again if it is still open",
      );
    }
    throw fail("INVALID_STATE", "the job changed while the deliverable was being checked; reload it");
  }

  // Acceptance criteria with machine checks are evaluated against the submitted URL now, so the
  // poster's review page shows them; they gate approval, not submission.
  await evaluateCriteria(ctx, { ...job, output_data: { url } }, { deliverableUrl: url }).catch((error: unknown) => {
    log.warn({ jobId, reason: (error as Error).message }, "criteria not evaluated at submission");
  });
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

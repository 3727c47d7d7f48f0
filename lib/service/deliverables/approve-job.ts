import { fail } from "../errors";
import { agentPayoutOf } from "../escrow/escrow-contract";
import { assignSlotAgent } from "../escrow/assign-agent";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { JobRow } from "../db/schema";
import { presentJob } from "../jobs/present-job";
import { getJobOrThrow, getJobRowOrThrow } from "../jobs/read-job";
import { completeSettlement, recordSettlement, type SettlementRow } from "../escrow/settle-job";
import { criteriaBlockApproval, evaluateCriteria } from "../job-modes/evaluate-criteria";
import { checkDeliverable, deliverableUrlOf, proofFailureExtra } from "./check-deliverable";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, jobRecipients } from "../events/recipients";
import { confirmDepositOnChain } from "../escrow/deposit-watch";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import { tellOwnerPaymentWaits } from "./remind-agent-wallet";
import { checkApprovalSignature, keepApproval, type KeptApproval } from "../jobs/escrow-approval";

const HOUR = 3600_000;

/** The end of the proof hold: submittedAt + inputData.proofHoldHours. */
export function releaseTimeOf(job: Pick<JobRow, "submitted_at" | "input_data">): Date {
  const hold = Number((job.input_data as { proofHoldHours?: number }).proofHoldHours ?? 0);
  return new Date((job.submitted_at ?? new Date(0)).getTime() + (Number.isFinite(hold) ? hold : 0) * HOUR);
}

/** Why an approved job's money waits: shown on the job (releaseHeldReason) until the wallet is set. */
export const WAITS_FOR_WALLET =
  "the payment waits in escrow until the agent has a payout wallet: its owner was told, and the release goes out as soon as the agent (or its owner) sets walletAddress with PATCH /v1/agents/:id";

async function holdRelease(ctx: ServiceContext, jobId: string, reason: string) {
  await ctx.db
    .updateTable("jobs")
    .set({ release_held_reason: reason.slice(0, 1000) })
    .where("id", "=", jobId)
    .where("status", "=", "REVIEW")
    .execute();
}

export type ReleaseOutcome = "NOT_DUE" | "HELD" | "PENDING" | "RELEASED";

/**
 * Releases an approved job whose proof hold has passed: a fresh check of the deliverable (trigger
 * RELEASE), then the settlement to the agent's wallet. A failing check, a missing wallet or a
 * chain failure holds the money and says why on the job (releaseHeldReason, and the proof-check
 * fields); the review worker tries again on a later round, the settlement worker finishes a
 * release that was sent.
 */
export async function releaseApprovedJob(ctx: ServiceContext, jobId: string): Promise<ReleaseOutcome> {
  const now = ctx.now();
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (
    !job ||
    job.status !== "REVIEW" ||
    !job.approved_at ||
    !job.release_at ||
    job.release_at.getTime() > now.getTime()
  )
    return "NOT_DUE";

  // A release already recorded (maybe sent) is finished, never checked again: the money may be on its way.
  const recorded = await ctx.db
    .selectFrom("escrow_settlements")
    .selectAll()
    .where("job_id", "=", jobId)
    .executeTakeFirst();
  if (recorded) return recorded.kind === "RELEASE" ? finishRelease(ctx, jobId, recorded) : "NOT_DUE";

  const url = deliverableUrlOf(job);
  if (!url) {
    await holdRelease(ctx, jobId, "the job has no deliverable URL to check at release");
    return "HELD";
  }
  const probe = await checkDeliverable(ctx, job, url, "RELEASE");
  if (probe.status !== "LIVE") {
    await holdRelease(
      ctx,
      jobId,
      `the check at release failed (${probe.status}): ${probe.reason ?? "not live"} The escrow stays held; the release is tried again automatically.`,
    );
    return "HELD";
  }
  const wallet = await agentPayoutOf(ctx.db, job);
  if (!wallet) {
    await holdRelease(ctx, jobId, WAITS_FOR_WALLET);
    return "HELD";
  }
  // The deposit is asked of the chain again before the release is recorded: a deposit a
  // reorganisation removed unfunds the job (its release_held_reason says so) instead of leaving a
  // release that can never be sent.
  let stillFunded: boolean;
  try {
    stillFunded = await confirmDepositOnChain(ctx, job);
  } catch (error) {
    await holdRelease(
      ctx,
      jobId,
      `the chain could not be asked whether the deposit is still there (${chainFailureReason(error)}); the release is tried again automatically`,
    );
    return "HELD";
  }
  if (!stillFunded) return "HELD";

  const settlement = await ctx.db.transaction().execute(async (trx) => {
    // Lock order: job first. A dispute takes the same lock and refuses once a settlement exists.
    const locked = await trx
      .selectFrom("jobs")
      .select(["status", "approved_at"])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (locked.status !== "REVIEW" || !locked.approved_at) return null;
    return recordSettlement(trx, jobId, "RELEASE", wallet);
  });
  if (!settlement) return "NOT_DUE";
  return finishRelease(ctx, jobId, settlement);
}

async function finishRelease(ctx: ServiceContext, jobId: string, settlement: SettlementRow): Promise<ReleaseOutcome> {
  const done = settlement.status === "PENDING" ? await completeSettlement(ctx, settlement.id) : settlement;
  if (done.status === "CONFIRMED") return "RELEASED";
  await holdRelease(
    ctx,
    jobId,
    done.status === "FAILED"
      ? `the release cannot be sent: ${done.last_error ?? "the escrow refused it"}; an operator has to look at it`
      : `the release transaction is pending${done.last_error ? ` (${done.last_error})` : ""}; it is retried automatically`,
  );
  return "PENDING";
}

/**
 * Approves a job in REVIEW: a fresh probe (trigger APPROVAL), then the acceptance criteria; then
 * approvedAt and releaseAt (end of the proof hold). When the hold has passed, the escrow is
 * released at once (after a fresh check at release); otherwise the review worker releases it when
 * releaseAt comes. Used by the poster's route and by the auto-approval of the review worker.
 */
export async function approveReviewedJob(
  ctx: ServiceContext,
  jobId: string,
  options: { automatic?: boolean; actorId?: string } = {},
) {
  const job = await getJobOrThrow(ctx.db, jobId);
  // Approved and paid already: a repeated approval (a client retrying after a 503 while the
  // release went through) is answered with the job, not refused.
  if (job.status === "COMPLETED" && job.approved_at) return;
  if (job.status !== "REVIEW")
    throw fail("INVALID_STATE", `a ${job.status} job cannot be approved; only a job in REVIEW can`);
  if (job.approved_at) {
    // Approved before: a repeated call (or a release that waits) retries a release that is due.
    if (job.release_at && job.release_at.getTime() <= ctx.now().getTime()) await releaseApprovedJob(ctx, jobId);
    return;
  }
  // An agent without a payout wallet does not stop the approval: the job's slot fixed no agent
  // address, so the money waits in escrow for whichever wallet its owner sets (told at once, below).
  const walletMissing = !(await agentPayoutOf(ctx.db, job));

  const url = deliverableUrlOf(job);
  if (!url) throw fail("INVALID_STATE", "the job has no submitted deliverable URL");
  const probe = await checkDeliverable(ctx, job, url, "APPROVAL");
  if (probe.status !== "LIVE") {
    throw fail(
      "PROOF_CHECK_FAILED",
      `the deliverable failed its fresh check (${probe.status}), so the escrow stays held: ${probe.reason ?? "not live"}`,
      proofFailureExtra(probe),
    );
  }

  await evaluateCriteria(ctx, job, { deliverableUrl: url });
  const gate = await criteriaBlockApproval(ctx, jobId);
  if (gate.blocked) {
    throw fail(
      "CRITERIA_NOT_MET",
      `acceptance criteria are not met: ${gate.failing.map((f) => `${f.description} (${f.detail ?? f.status})`).join("; ")}`,
      {
        failing: gate.failing,
      },
    );
  }

  const releaseAt = releaseTimeOf(job);
  const now = ctx.now();
  const approved = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("jobs")
      .set({
        approved_at: now,
        release_at: releaseAt,
        auto_approved: Boolean(options.automatic),
        release_held_reason: null,
        updated_at: now,
      })
      .where("id", "=", jobId)
      .where("status", "=", "REVIEW")
      .where("approved_at", "is", null)
      .returning(["id", "poster_id", "agent_id"])
      .executeTakeFirst();
    if (row) {
      await publishEvent(trx, {
        type: "job.approved",
        jobId,
        to: await jobRecipients(trx, row),
        actorId: options.actorId ?? null,
        data: {
          jobId,
          agentId: row.agent_id,
          automatic: Boolean(options.automatic),
          releaseAt: releaseAt.toISOString(),
          ...(walletMissing ? { payoutWalletMissing: true } : {}),
        },
      });
    }
    return row;
  });
  if (!approved) {
    const current = await ctx.db
      .selectFrom("jobs")
      .select(["status", "approved_at"])
      .where("id", "=", jobId)
      .executeTakeFirstOrThrow();
    if (current.status !== "REVIEW")
      throw fail("INVALID_STATE", `the job became ${current.status} while it was being approved`);
    return; // approved meanwhile by another request
  }
  if (walletMissing) await tellOwnerPaymentWaits(ctx, jobId);
  if (releaseAt.getTime() <= now.getTime()) await releaseApprovedJob(ctx, jobId);
}

/** POST /v1/jobs/:id/approve (the poster). */
export async function approveJob(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  body: { assignmentSignature?: string; approvalSignature?: string } = {},
) {
  const job = await ctx.db
    .selectFrom("jobs")
    .select(["id", "poster_id", "status", "agent_id", "escrow_version", "escrow_tx_hash", "escrow_agent"])
    .select(["escrow_job_id", "escrow_payer", "escrow_address", "escrow_expires_at", "chain_id", "approved_at"])
    .where("id", "=", jobId)
    .executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may approve this job");
  // An EscrowV2 slot that pays no agent yet (a bounty's claim: no bid was accepted) is assigned
  // its agent with the payer's consent at the step where the poster chooses it: this approval.
  if (
    job.status === "REVIEW" &&
    job.escrow_version === 2 &&
    job.escrow_tx_hash !== null &&
    job.escrow_agent === null &&
    job.agent_id
  )
    await assignSlotAgent(ctx, job, job.agent_id, body.assignmentSignature);
  // The payer's Approve, kept for the agent (escrow-approval.ts): checked before anything is
  // approved, kept once the job is approved.
  let approval: KeptApproval | null = null;
  if (body.approvalSignature && job.status === "REVIEW") {
    const assigned = await ctx.db
      .selectFrom("jobs")
      .select("escrow_agent")
      .where("id", "=", jobId)
      .executeTakeFirstOrThrow();
    approval = await checkApprovalSignature(
      ctx,
      { ...job, escrow_agent: assigned.escrow_agent },
      body.approvalSignature,
    );
  }
  await approveReviewedJob(ctx, jobId, { actorId: actorIdOf(actor) });
  if (approval) await keepApproval(ctx, approval);
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

import { fail } from "../errors";
import type { Transaction } from "kysely";
import type { Address } from "viem";
import { agentShareOf, parseUsdc } from "@/lib/chain/units";
import type { DisputeOutcome } from "@/lib/api/schemas/disputes";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";
import { isOperator } from "../auth/operator";
import { recordOperatorAction } from "../audit/record-operator-action";
import { assertAgentNotSuspended } from "../auth/suspension";
import type { Database } from "../db/schema";
import { isJobEvaluator, jobRoleOf } from "../jobs/job-viewer";
import { getJobRowOrThrow } from "../jobs/read-job";
import { refuseOwnUrl } from "../proofs/fetch-policy";
import { checkDeliverable, proofFailureExtra } from "../deliverables/check-deliverable";
import { assertMayRequestChanges, assertRoundsLeft, recordChangeRequest } from "../deliverables/request-changes";
import { completePartSettlement, recordPartSettlement, type PartSettlementRow } from "../escrow/settle-part";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, jobRecipients } from "../events/recipients";
import { getMilestoneOrThrow, isJobParty, presentOne, type MilestoneRow } from "./present-milestone";

// The life of one part of a job paid in parts: its deliverable (probed against the part's own
// marker), its approval and proof hold, its release on chain (escrow/settle-part.ts, exactly
// once), and its dispute and ruling, which touch that part only. Lock order: job, then milestone.

type Trx = Transaction<Database>;
const HOUR = 3600_000;
const WALLET_MISSING =
  "the agent has no wallet to be paid to: the agent (or its owner) must set walletAddress with PATCH /v1/agents/:id";

async function agentWalletOf(ctx: ServiceContext, agentId: string | null): Promise<Address | null> {
  if (!agentId) return null;
  const agent = await ctx.db.selectFrom("agents").select("wallet_address").where("id", "=", agentId).executeTakeFirst();
  return (agent?.wallet_address as Address | null | undefined) ?? null;
}

/** The job with its marker replaced by the part's own (else the job's stays), for the prober. */
function withPartMarker<J extends { input_data: unknown }>(job: J, m: MilestoneRow): J {
  const data = { ...(job.input_data as Record<string, unknown>) };
  if (m.proof_content_marker) data.proofContentMarker = m.proof_content_marker;
  return { ...job, input_data: data };
}

async function lockJobAndPart(trx: Trx, jobId: string, milestoneId: string) {
  const job = await trx
    .selectFrom("jobs")
    .select(["id", "status", "poster_id", "agent_id", "max_revisions"])
    .where("id", "=", jobId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const m = await trx
    .selectFrom("job_milestones")
    .selectAll()
    .where("id", "=", milestoneId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { job, m };
}

/** POST /v1/jobs/:id/milestones/:position/submit (the assigned agent). */
export async function submitMilestone(ctx: ServiceContext, actor: Actor, jobId: string, position: number, url: string) {
  const job = await getJobRowOrThrow(ctx, jobId);
  const m = await getMilestoneOrThrow(ctx.db, jobId, position);
  if (!(await isAgentOrItsOwner(ctx, actor, job.agent_id)))
    throw fail("FORBIDDEN", "only the agent assigned to this job (or its owner) may submit its parts");
  await assertAgentNotSuspended(ctx.db, job.agent_id);
  if (job.escrow_tx_hash === null)
    throw fail(
      "JOB_NOT_FUNDED",
      "the job is not funded yet: parts are submitted once its poster has deposited the budget in escrow",
    );
  if (job.status !== "IN_PROGRESS")
    throw fail("INVALID_STATE", `a ${job.status} job takes no submission; only an IN_PROGRESS job does`);
  if (m.status !== "OPEN" && m.status !== "SUBMITTED")
    throw fail(
      "INVALID_STATE",
      `part ${position} is ${m.status}: only an OPEN part (or one awaiting approval) takes a deliverable`,
    );
  refuseOwnUrl(ctx.config, url, "DELIVERABLE_URL_NOT_ALLOWED", "the deliverable URL");

  const probe = await checkDeliverable(ctx, withPartMarker(job, m), url, "SUBMISSION", { updateJob: false });
  if (probe.status !== "LIVE") {
    throw fail(
      "PROOF_CHECK_FAILED",
      `the deliverable of part ${position} did not pass the proof check (${probe.status}): ${probe.reason ?? "not live"}`,
      proofFailureExtra(probe),
    );
  }
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, jobId, m.id);
    if (locked.job.status !== "IN_PROGRESS" || (locked.m.status !== "OPEN" && locked.m.status !== "SUBMITTED")) {
      throw fail("INVALID_STATE", "the job or the part changed while the deliverable was being checked; reload it");
    }
    await trx
      .updateTable("job_milestones")
      .set({
        status: "SUBMITTED",
        output_url: url,
        proof_hash: probe.contentSha256,
        submitted_at: now,
        updated_at: now,
      })
      .where("id", "=", m.id)
      .execute();
    await publishEvent(trx, {
      type: "milestone.submitted",
      jobId,
      to: await jobRecipients(trx, locked.job),
      actorId: actorIdOf(actor),
      data: {
        jobId,
        milestoneId: m.id,
        position,
        agentId: locked.job.agent_id,
        url,
        proofHash: probe.contentSha256,
        submittedAt: now.toISOString(),
      },
    });
  });
  return await presentOne(ctx.db, jobId, position, true);
}

/** POST /v1/jobs/:id/milestones/:position/approve (the poster). */
export async function approveMilestone(ctx: ServiceContext, actor: Actor, jobId: string, position: number) {
  const job = await getJobRowOrThrow(ctx, jobId);
  if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may approve a part of this job");
  const m = await getMilestoneOrThrow(ctx.db, jobId, position);
  // Approved (or paid) already: a repeated approval answers the part and retries a release that is due.
  if (m.status === "APPROVED" || m.status === "RELEASED") {
    if (m.status === "APPROVED") await releaseApprovedMilestone(ctx, m.id);
    return await presentOne(ctx.db, jobId, position, true);
  }
  if (m.status !== "SUBMITTED" || !m.output_url)
    throw fail("INVALID_STATE", `part ${position} is ${m.status}: only a SUBMITTED part can be approved`);
  if (!(await agentWalletOf(ctx, job.agent_id)))
    throw fail("AGENT_WALLET_MISSING", WALLET_MISSING, { agentId: job.agent_id });
  const probe = await checkDeliverable(ctx, withPartMarker(job, m), m.output_url, "APPROVAL", { updateJob: false });
  if (probe.status !== "LIVE") {
    throw fail(
      "PROOF_CHECK_FAILED",
      `the deliverable of part ${position} failed its fresh check (${probe.status}), so the part stays held: ${probe.reason ?? "not live"}`,
      proofFailureExtra(probe),
    );
  }
  const hold = Number((job.input_data as { proofHoldHours?: number }).proofHoldHours ?? 0);
  const releaseAt = new Date((m.submitted_at ?? ctx.now()).getTime() + (Number.isFinite(hold) ? hold : 0) * HOUR);
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, jobId, m.id);
    if (locked.m.status === "APPROVED" || locked.m.status === "RELEASED") return; // approved meanwhile by another request
    if (locked.m.status !== "SUBMITTED")
      throw fail("INVALID_STATE", `part ${position} became ${locked.m.status} while it was being approved`);
    await trx
      .updateTable("job_milestones")
      .set({ status: "APPROVED", approved_at: now, release_at: releaseAt, release_held_reason: null, updated_at: now })
      .where("id", "=", m.id)
      .execute();
    await publishEvent(trx, {
      type: "milestone.approved",
      jobId,
      to: await jobRecipients(trx, locked.job),
      actorId: actorIdOf(actor),
      data: { jobId, milestoneId: m.id, position, agentId: locked.job.agent_id, releaseAt: releaseAt.toISOString() },
    });
  });
  // The approval's fresh check is the release's when the hold has passed already.
  await releaseApprovedMilestone(ctx, m.id, { checked: true });
  return await presentOne(ctx.db, jobId, position, true);
}

/**
 * POST /v1/jobs/:id/milestones/:position/request-changes (the poster, or the job's evaluator): a
 * SUBMITTED part goes back to OPEN with its own revisionCount, at most the job's maxRevisions times.
 */
export async function requestMilestoneChanges(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  position: number,
  message: string,
) {
  const job = await getJobRowOrThrow(ctx, jobId);
  await assertMayRequestChanges(ctx, actor, job);
  const m = await getMilestoneOrThrow(ctx.db, jobId, position);
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, jobId, m.id);
    if (locked.m.approved_at !== null || locked.m.status === "APPROVED" || locked.m.status === "RELEASED")
      throw fail("INVALID_STATE", `part ${position} is approved already: changes can no longer be asked for`);
    if (locked.job.status !== "IN_PROGRESS" || locked.m.status !== "SUBMITTED")
      throw fail(
        "INVALID_STATE",
        `part ${position} is ${locked.m.status}${locked.job.status !== "IN_PROGRESS" ? ` on a ${locked.job.status} job` : ""}: only a SUBMITTED part's delivered work can be sent back`,
      );
    assertRoundsLeft(locked.job.max_revisions, locked.m.revision_count, `part ${position}`);
    const round = locked.m.revision_count + 1;
    // The delivery stays on the part (submitted_at says it was delivered once, so it is neither a
    // late part with nothing delivered nor one the rest of the job can be cancelled around).
    await trx
      .updateTable("job_milestones")
      .set({
        status: "OPEN",
        revision_count: round,
        change_request_message: message,
        changes_requested_at: now,
        updated_at: now,
      })
      .where("id", "=", m.id)
      .execute();
    await recordChangeRequest(trx, actor, locked.job, {
      round,
      message,
      at: now,
      delivered: { url: locked.m.output_url, at: locked.m.submitted_at, proofHash: locked.m.proof_hash },
      part: { id: m.id, position },
    });
  });
  return await presentOne(ctx.db, jobId, position, true);
}

async function holdPart(ctx: ServiceContext, milestoneId: string, reason: string) {
  await ctx.db
    .updateTable("job_milestones")
    .set({ release_held_reason: reason.slice(0, 1000) })
    .where("id", "=", milestoneId)
    .where("status", "=", "APPROVED")
    .execute();
}

/**
 * Releases an approved part whose proof hold has passed: a fresh check (trigger RELEASE, unless the
 * approval just ran one), the agent's wallet, then the part's settlement recorded (once: a unique
 * row per part, written with the job and the part locked) and sent.
 */
export async function releaseApprovedMilestone(
  ctx: ServiceContext,
  milestoneId: string,
  options: { checked?: boolean } = {},
): Promise<"NOT_DUE" | "HELD" | "PENDING" | "RELEASED"> {
  const m = await ctx.db
    .selectFrom("job_milestones")
    .selectAll()
    .where("id", "=", milestoneId)
    .executeTakeFirstOrThrow();
  if (m.status !== "APPROVED" || !m.release_at || m.release_at.getTime() > ctx.now().getTime()) return "NOT_DUE";
  const recorded = await ctx.db
    .selectFrom("milestone_settlements")
    .selectAll()
    .where("milestone_id", "=", milestoneId)
    .executeTakeFirst();
  if (recorded) return finishPart(ctx, milestoneId, recorded);
  const job = await getJobRowOrThrow(ctx, m.job_id);
  if (!options.checked) {
    if (!m.output_url) return "HELD";
    const probe = await checkDeliverable(ctx, withPartMarker(job, m), m.output_url, "RELEASE", { updateJob: false });
    if (probe.status !== "LIVE") {
      await holdPart(
        ctx,
        milestoneId,
        `the check at release failed (${probe.status}): ${probe.reason ?? "not live"} The part stays held; the release is tried again on the next round.`,
      );
      return "HELD";
    }
  }
  const wallet = await agentWalletOf(ctx, job.agent_id);
  if (!wallet) {
    await holdPart(ctx, milestoneId, WALLET_MISSING);
    return "HELD";
  }
  const settlement = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, m.job_id, milestoneId);
    // A dispute takes the same locks and refuses once a settlement exists.
    if (locked.m.status !== "APPROVED") return null;
    return recordPartSettlement(trx, locked.m, "RELEASE", wallet);
  });
  if (!settlement) return "NOT_DUE";
  return finishPart(ctx, milestoneId, settlement);
}

async function finishPart(
  ctx: ServiceContext,
  milestoneId: string,
  settlement: PartSettlementRow,
): Promise<"PENDING" | "RELEASED"> {
  const done = settlement.status === "PENDING" ? await completePartSettlement(ctx, settlement.id) : settlement;
  if (done.status === "CONFIRMED") return "RELEASED";
  await holdPart(
    ctx,
    milestoneId,
    done.status === "FAILED"
      ? `the release cannot be sent: ${done.last_error ?? "the escrow refused it"}`
      : `the release transaction is pending${done.last_error ? ` (${done.last_error})` : ""}; it is retried automatically`,
  );
  return "PENDING";
}

/** One round of the review worker for parts: releases approved parts whose hold has ended. */
export async function releaseDueMilestones(ctx: ServiceContext, options: { limit?: number } = {}): Promise<number> {
  const due = await ctx.db
    .selectFrom("job_milestones")
    .select("id")
    .where("status", "=", "APPROVED")
    .where("release_at", "<=", ctx.now())
    .orderBy("release_at")
    .limit(options.limit ?? 20)
    .execute();
  let released = 0;
  for (const { id } of due)
    if ((await releaseApprovedMilestone(ctx, id).catch(() => "HELD")) === "RELEASED") released += 1;
  return released;
}

/** POST /v1/jobs/:id/milestones/:position/dispute (either side): freezes that part only. */
export async function disputeMilestone(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  position: number,
  reason: string,
) {
  const job = await getJobRowOrThrow(ctx, jobId);
  const role = jobRoleOf(actor, job);
  const side =
    role === "POSTER" || role === "OWNER_OF_POSTER"
      ? "POSTER"
      : role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT"
        ? "AGENT"
        : null;
  if (!side)
    throw fail("FORBIDDEN", "a part is disputed by the poster or the assigned agent (or the humans who own them)");
  const m = await getMilestoneOrThrow(ctx.db, jobId, position);
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, jobId, m.id);
    if (locked.job.status !== "IN_PROGRESS")
      throw fail("INVALID_STATE", `a ${locked.job.status} job's parts cannot be disputed`);
    const settlement = await trx
      .selectFrom("milestone_settlements")
      .select("kind")
      .where("milestone_id", "=", m.id)
      .executeTakeFirst();
    if (settlement)
      throw fail(
        "SETTLEMENT_IN_PROGRESS",
        `part ${position} is already being settled on chain; it can no longer be disputed`,
      );
    if (locked.m.status !== "OPEN" && locked.m.status !== "SUBMITTED" && locked.m.status !== "APPROVED") {
      throw fail(
        "INVALID_STATE",
        `part ${position} is ${locked.m.status}: only an OPEN, SUBMITTED or APPROVED part can be disputed`,
      );
    }
    await trx
      .updateTable("job_milestones")
      .set({ status: "DISPUTED", disputed_at: now, dispute_reason: reason, disputed_by: side, updated_at: now })
      .where("id", "=", m.id)
      .execute();
    await publishEvent(trx, {
      type: "milestone.disputed",
      jobId,
      to: await jobRecipients(trx, locked.job),
      actorId: actorIdOf(actor),
      data: { jobId, milestoneId: m.id, position, openedBy: side, disputedAt: now.toISOString() },
    });
  });
  return await presentOne(ctx.db, jobId, position, true);
}

const KIND_OF_OUTCOME = { PAY_AGENT: "RELEASE", REFUND_POSTER: "REFUND", SPLIT: "SPLIT" } as const;

/**
 * POST /v1/jobs/:id/milestones/:position/ruling: the arbiter (the job's evaluator, else the
 * operator; never a party) settles one disputed part. The ruling and the part's settlement are
 * recorded in one transaction (an operator's with its audit line), then sent.
 */
export async function ruleMilestone(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  position: number,
  input: { outcome: DisputeOutcome; agentShare?: number; reason: string },
) {
  if (actor.kind !== "USER")
    throw fail("HUMAN_SESSION_REQUIRED", "a ruling needs the arbiter's own signed-in session, not an agent key");
  const job = await getJobRowOrThrow(ctx, jobId);
  const arbiter = job.evaluator_address ? "EVALUATOR" : "OPERATOR";
  const allowed =
    !isJobParty(actor, job) &&
    (arbiter === "EVALUATOR" ? await isJobEvaluator(ctx, actor, job.evaluator_address) : await isOperator(ctx, actor));
  if (!allowed)
    throw fail(
      "NOT_ARBITER",
      `a disputed part is ruled by the job's ${arbiter === "EVALUATOR" ? "evaluator" : "operator"}, never by a party`,
    );
  const m = await getMilestoneOrThrow(ctx.db, jobId, position);
  if (m.status !== "DISPUTED" || m.ruling_outcome !== null)
    throw fail(
      "INVALID_STATE",
      `part ${position} is ${m.status}${m.ruling_outcome ? ` (ruled ${m.ruling_outcome})` : ""}: only a DISPUTED part is ruled, once`,
    );
  const kind = KIND_OF_OUTCOME[input.outcome];
  const wallet = kind === "REFUND" ? null : await agentWalletOf(ctx, job.agent_id);
  if (kind !== "REFUND" && !wallet) throw fail("AGENT_WALLET_MISSING", WALLET_MISSING, { agentId: job.agent_id });
  const now = ctx.now();
  const settlement = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, jobId, m.id);
    if (locked.m.status !== "DISPUTED" || locked.m.ruling_outcome !== null)
      throw fail("INVALID_STATE", `part ${position} was ruled meanwhile`);
    await trx
      .updateTable("job_milestones")
      .set({
        ruling_outcome: input.outcome,
        ruling_agent_share: input.agentShare ?? null,
        ruling_reason: input.reason,
        updated_at: now,
      })
      .where("id", "=", m.id)
      .execute();
    const share =
      input.outcome === "SPLIT"
        ? { agentShareUnits: agentShareOf(parseUsdc(String(locked.m.amount_usdc)), input.agentShare ?? 0) }
        : undefined;
    const row = await recordPartSettlement(trx, locked.m, kind, wallet, share);
    await publishEvent(trx, {
      type: "milestone.resolved",
      jobId,
      to: await jobRecipients(trx, locked.job),
      actorId: actorIdOf(actor),
      data: { jobId, milestoneId: m.id, position, outcome: input.outcome, agentShare: input.agentShare ?? null },
    });
    if (arbiter === "OPERATOR") {
      await recordOperatorAction(trx, actor, {
        action: "milestone.rule",
        subjectType: "milestone",
        subjectId: m.id,
        reason: input.reason,
        details: { jobId, position, outcome: input.outcome, agentShare: input.agentShare ?? null },
      });
    }
    return row;
  });
  if (settlement.status === "PENDING") await completePartSettlement(ctx, settlement.id);
  return await presentOne(ctx.db, jobId, position, true);
}

/**
 * POST /v1/jobs/:id/milestones/:position/cancel (the poster): a part whose deadlineAt has passed
 * with nothing delivered is late, and its poster may take that part back: its amount is refunded
 * to the payer on chain (contract refundPart, exactly once) and the other parts go on. A part not
 * late is cancelled only with the rest of the job (POST /v1/jobs/:id/cancel).
 */
export async function cancelLateMilestone(ctx: ServiceContext, actor: Actor, jobId: string, position: number) {
  const job = await getJobRowOrThrow(ctx, jobId);
  if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may cancel a part of this job");
  const m = await getMilestoneOrThrow(ctx.db, jobId, position);
  const now = ctx.now();
  const settlement = await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, jobId, m.id);
    const recorded = await trx
      .selectFrom("milestone_settlements")
      .selectAll()
      .where("milestone_id", "=", m.id)
      .executeTakeFirst();
    // Cancelled already (a repeated request, or one racing it): the same refund, once.
    if (recorded?.kind === "REFUND") return recorded;
    if (locked.job.status !== "IN_PROGRESS" || job.escrow_tx_hash === null)
      throw fail("INVALID_STATE", `a ${locked.job.status} job's parts are not cancelled one by one`);
    if (locked.m.status !== "OPEN" || locked.m.submitted_at !== null)
      throw fail(
        "INVALID_STATE",
        `part ${position} is ${locked.m.submitted_at !== null && locked.m.status === "OPEN" ? "sent back for changes after a delivery" : locked.m.status}: only a late part with nothing delivered is cancelled (approve or dispute a delivered one)`,
      );
    if (!locked.m.deadline_at || locked.m.deadline_at.getTime() > now.getTime())
      throw fail(
        "INVALID_STATE",
        `part ${position} is not late${locked.m.deadline_at ? ` (its deadline is ${locked.m.deadline_at.toISOString()})` : " (it has no deadline)"}: a part on time is cancelled only with the rest of the job`,
      );
    // Its receipt publishes milestone.refunded (escrow/settle-part.ts).
    return recordPartSettlement(trx, locked.m, "REFUND", null);
  });
  if (settlement.status === "PENDING") await completePartSettlement(ctx, settlement.id);
  return await presentOne(ctx.db, jobId, position, true);
}

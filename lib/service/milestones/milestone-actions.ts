import { DomainError, fail } from "../errors";
import { agentPayoutOf } from "../escrow/escrow-contract";
import { sql, type Transaction } from "kysely";
import { agentShareOf, parseUsdc } from "@/lib/chain/units";
import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import type { DisputeOutcome } from "@/lib/api/schemas/disputes";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";
import { isOperator } from "../auth/operator";
import { recordOperatorAction } from "../audit/record-operator-action";
import { assertAgentNotSuspended } from "../auth/suspension";
import type { Database } from "../db/schema";
import { isJobEvaluator, jobRoleOf } from "../jobs/job-viewer";
import { getJobRowOrThrow, proofHoldHoursOf } from "../jobs/read-job";
import { refuseOwnUrl } from "../proofs/fetch-policy";
import { checkDeliverable, proofFailureExtra } from "../deliverables/check-deliverable";
import { WAITS_FOR_WALLET } from "../deliverables/approve-job";
import { tellOwnerPaymentWaits } from "../deliverables/remind-agent-wallet";
import { assertMayRequestChanges, assertRoundsLeft, recordChangeRequest } from "../deliverables/request-changes";
import { completePartSettlement, recordPartSettlement, type PartSettlementRow } from "../escrow/settle-part";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, jobRecipients } from "../events/recipients";
import { getMilestoneOrThrow, isJobParty, presentOne, type MilestoneRow } from "./present-milestone";
import { nextAttemptAt, PICK_LEASE_MS } from "../retry-backoff";
import { log } from "../log";
import { autoApprovalDue } from "../deliverables/auto-approval";

// The life of one part of a job paid in parts: its deliverable (probed against the part's own
// marker), its approval and proof hold, its release on chain (escrow/settle-part.ts, exactly
// once), and its dispute and ruling, which touch that part only. Lock order: job, then milestone.

type Trx = Transaction<Database>;
const HOUR = 3600_000;
const MINUTE = 60_000;
const WALLET_MISSING =
  "the agent has no wallet to be paid to: the agent (or its owner) must set walletAddress with PATCH /v1/agents/:id";

/** The job with its marker replaced by the part's own (else the job's stays), for the prober. */
function withPartMarker<J extends { input_data: unknown }>(job: J, m: MilestoneRow): J {
  const data = { ...(job.input_data as Record<string, unknown>) };
  if (m.proof_content_marker) data.proofContentMarker = m.proof_content_marker;
  return { ...job, input_data: data };
}

/** Who a part's money goes to: the agent that delivered it, never whoever holds the job now. */
const payeeOf = (m: Pick<MilestoneRow, "delivered_by">, job: { agent_id: string | null }) =>
  m.delivered_by ?? job.agent_id;

async function lockJobAndPart(trx: Trx, jobId: string, milestoneId: string) {
  const job = await trx
    .selectFrom("jobs")
    .select([
      "id",
      "status",
      "poster_id",
      "agent_id",
      "max_revisions",
      "participation_mode",
      "claim_window_minutes",
      "claim_expires_at",
    ])
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
    if (
      locked.job.status !== "IN_PROGRESS" ||
      locked.job.agent_id !== job.agent_id ||
      (locked.m.status !== "OPEN" && locked.m.status !== "SUBMITTED")
    ) {
      throw fail("INVALID_STATE", "the job or the part changed while the deliverable was being checked; reload it");
    }
    // A delivery is progress (the stall clock restarts) and, on a bounty, earns the claim another
    // window for the next part: the part itself now keeps the claim until it settles (read-job.ts).
    const window = (locked.job.claim_window_minutes ?? JOB_LIMITS.claimWindowMinutesDefault) * MINUTE;
    const renewed = new Date(now.getTime() + window);
    const claimRenewal =
      locked.job.participation_mode === "BOUNTY" &&
      locked.job.claim_expires_at !== null &&
      locked.job.claim_expires_at.getTime() < renewed.getTime()
        ? { claim_expires_at: renewed }
        : {};
    await trx
      .updateTable("jobs")
      .set({ last_heartbeat_at: now, updated_at: now, ...claimRenewal })
      .where("id", "=", jobId)
      .execute();
    await trx
      .updateTable("job_milestones")
      .set({
        status: "SUBMITTED",
        delivered_by: locked.job.agent_id,
        output_url: url,
        proof_hash: probe.contentSha256,
        submitted_at: now,
        // A new deliverable starts the automatic approval's tries afresh.
        release_held_reason: null,
        release_attempts: 0,
        release_next_at: null,
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
  await approvePart(ctx, job, m, { actorId: actorIdOf(actor), automatic: false });
  return await presentOne(ctx.db, jobId, position, true);
}

/**
 * Approves a SUBMITTED part, by its poster or automatically (autoApproveStaleMilestones): the payee's
 * wallet, a fresh check of the deliverable, the approval with its release time (submission + proof
 * hold), then the release when that time has passed already.
 */
async function approvePart(
  ctx: ServiceContext,
  job: Awaited<ReturnType<typeof getJobRowOrThrow>>,
  m: MilestoneRow,
  how: { actorId: string | null; automatic: boolean },
) {
  const { id: jobId } = job;
  const position = m.position;
  if (!m.output_url) throw fail("INVALID_STATE", `part ${position} has no deliverable to approve`);
  // No payout wallet does not stop the approval: the part's money waits in escrow (told to the owner below).
  const walletMissing = !(await agentPayoutOf(ctx.db, job, payeeOf(m, job)));
  const probe = await checkDeliverable(ctx, withPartMarker(job, m), m.output_url, "APPROVAL", { updateJob: false });
  if (probe.status !== "LIVE") {
    throw fail(
      "PROOF_CHECK_FAILED",
      `the deliverable of part ${position} failed its fresh check (${probe.status}), so the part stays held: ${probe.reason ?? "not live"}`,
      proofFailureExtra(probe),
    );
  }
  const releaseAt = new Date((m.submitted_at ?? ctx.now()).getTime() + proofHoldHoursOf(job) * HOUR);
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await lockJobAndPart(trx, jobId, m.id);
    if (locked.m.status === "APPROVED" || locked.m.status === "RELEASED") return; // approved meanwhile by another request
    if (locked.m.status !== "SUBMITTED")
      throw fail("INVALID_STATE", `part ${position} became ${locked.m.status} while it was being approved`);
    await trx
      .updateTable("job_milestones")
      .set({
        status: "APPROVED",
        approved_at: now,
        release_at: releaseAt,
        release_held_reason: null,
        release_attempts: 0,
        release_next_at: null,
        updated_at: now,
      })
      .where("id", "=", m.id)
      .execute();
    await publishEvent(trx, {
      type: "milestone.approved",
      jobId,
      to: await jobRecipients(trx, { poster_id: locked.job.poster_id, agent_id: payeeOf(locked.m, locked.job) }),
      actorId: how.actorId,
      data: {
        jobId,
        milestoneId: m.id,
        position,
        agentId: payeeOf(locked.m, locked.job),
        releaseAt: releaseAt.toISOString(),
        automatic: how.automatic,
        ...(walletMissing ? { payoutWalletMissing: true } : {}),
      },
    });
  });
  if (walletMissing) await tellOwnerPaymentWaits(ctx, jobId, position);
  // The approval's fresh check is the release's when the hold has passed already.
  await releaseApprovedMilestone(ctx, m.id, { checked: true });
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

/**
 * Leases the parts a round picked (locked FOR UPDATE SKIP LOCKED by the caller): no other round takes
 * them for PICK_LEASE_MS, and the attempt is counted for the backoff after a hold (holdPart).
 */
async function leaseParts(trx: Trx, ids: string[], now: Date): Promise<string[]> {
  if (ids.length > 0)
    await trx
      .updateTable("job_milestones")
      .set({ release_next_at: new Date(now.getTime() + PICK_LEASE_MS), release_attempts: sql`release_attempts + 1` })
      .where("id", "in", ids)
      .execute();
  return ids;
}

export interface PartRoundOptions {
  /** Parts per round (default 20). */
  limit?: number;
  /** Only the parts of these jobs: for tests on a database other suites share (without it a round takes any due part). */
  only?: string[];
}

/**
 * One round of automatic approvals for parts, by the rule whole jobs follow (auto-approval.ts): a
 * part SUBMITTED on an IN_PROGRESS job that its poster neither approved nor disputed through its
 * proof hold and then the review window is approved (its own fresh check, then the release). Leased
 * and backed off as releases are: a part whose approval fails (a dead deliverable, no wallet) keeps
 * the reason for the parties and waits longer each time, and never fills a round.
 */
export async function autoApproveStaleMilestones(ctx: ServiceContext, options: PartRoundOptions = {}): Promise<number> {
  const now = ctx.now();
  const picked = await ctx.db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom("job_milestones as m")
      .innerJoin("jobs", "jobs.id", "m.job_id")
      .select("m.id")
      .where("m.status", "=", "SUBMITTED")
      .where("jobs.status", "=", "IN_PROGRESS")
      .where("m.submitted_at", "is not", null)
      .where(autoApprovalDue("m.submitted_at", ctx.config.reviewWindowHours, now))
      .where((eb) => eb.or([eb("m.release_next_at", "is", null), eb("m.release_next_at", "<=", now)]));
    if (options.only)
      q = options.only.length > 0 ? q.where("m.job_id", "in", options.only) : q.where(sql<boolean>`false`);
    const rows = await q
      .orderBy(sql`m.release_next_at asc nulls first`)
      .orderBy("m.submitted_at")
      .limit(options.limit ?? 20)
      .forUpdate("m")
      .skipLocked()
      .execute();
    return leaseParts(
      trx,
      rows.map((r) => r.id),
      now,
    );
  });
  let approved = 0;
  for (const id of picked) {
    const m = await ctx.db.selectFrom("job_milestones").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    try {
      await approvePart(ctx, await getJobRowOrThrow(ctx, m.job_id), m, { actorId: null, automatic: true });
      approved += 1;
    } catch (error) {
      const reason = error instanceof DomainError ? error.message : "the automatic approval failed unexpectedly";
      log.warn({ milestoneId: id, reason: (error as Error).message }, "automatic approval of a part failed");
      const next = nextAttemptAt(now, m.release_attempts);
      await ctx.db
        .updateTable("job_milestones")
        .set({
          release_held_reason: `the automatic approval failed: ${reason.slice(0, 800)} Next attempt after ${next.toISOString()}.`,
          release_next_at: next,
        })
        .where("id", "=", id)
        .where("status", "=", "SUBMITTED")
        .execute();
    }
  }
  return approved;
}

/**
 * A part whose release cannot go through now keeps its reason for the parties (releaseHeldReason)
 * and is left alone by the release worker for a while that doubles with each attempt
 * (retry-backoff.ts), so held parts never fill its rounds.
 */
async function holdPart(ctx: ServiceContext, milestoneId: string, reason: string) {
  const now = ctx.now();
  const part = await ctx.db
    .selectFrom("job_milestones")
    .select("release_attempts")
    .where("id", "=", milestoneId)
    .executeTakeFirst();
  const next = nextAttemptAt(now, part?.release_attempts ?? 0);
  await ctx.db
    .updateTable("job_milestones")
    .set({
      release_held_reason: `${reason.slice(0, 900)} Next attempt after ${next.toISOString()}.`,
      release_next_at: next,
    })
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
        `the check at release failed (${probe.status}): ${probe.reason ?? "not live"} The part stays held; the release is tried again automatically.`,
      );
      return "HELD";
    }
  }
  const wallet = await agentPayoutOf(ctx.db, job, payeeOf(m, job));
  if (!wallet) {
    await holdPart(ctx, milestoneId, WAITS_FOR_WALLET);
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

/**
 * One round of the release worker for parts: releases approved parts whose hold has ended. It leases
 * what it takes (FOR UPDATE SKIP LOCKED and release_next_at, in one transaction, so instances share
 * the work and a round that dies leaves its parts for PICK_LEASE_MS), parts never tried first, then
 * held parts whose backoff has run out (holdPart), so held parts never starve due ones.
 */
export async function releaseDueMilestones(ctx: ServiceContext, options: PartRoundOptions = {}): Promise<number> {
  const now = ctx.now();
  const picked = await ctx.db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom("job_milestones")
      .select("id")
      .where("status", "=", "APPROVED")
      .where("release_at", "<=", now)
      .where((eb) => eb.or([eb("release_next_at", "is", null), eb("release_next_at", "<=", now)]));
    if (options.only)
      q = options.only.length > 0 ? q.where("job_id", "in", options.only) : q.where(sql<boolean>`false`);
    const rows = await q
      .orderBy(sql`release_next_at asc nulls first`)
      .orderBy("release_at")
      .limit(options.limit ?? 20)
      .forUpdate()
      .skipLocked()
      .execute();
    return leaseParts(
      trx,
      rows.map((r) => r.id),
      now,
    );
  });
  let released = 0;
  for (const id of picked) {
    try {
      if ((await releaseApprovedMilestone(ctx, id)) === "RELEASED") released += 1;
    } catch (error) {
      const reason = error instanceof DomainError ? error.message : "the release failed unexpectedly";
      log.warn({ milestoneId: id, reason: (error as Error).message }, "part release failed");
      await holdPart(ctx, id, `${reason}; it is tried again automatically.`);
    }
  }
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
  const wallet = kind === "REFUND" ? null : await agentPayoutOf(ctx.db, job, payeeOf(m, job));
  if (kind !== "REFUND" && !wallet) throw fail("AGENT_WALLET_MISSING", WALLET_MISSING, { agentId: payeeOf(m, job) });
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

import { fail } from "../errors";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { publishEvent } from "../events/publish-event";
import { presentJob } from "../jobs/present-job";
import { getJobRowOrThrow } from "../jobs/read-job";
import { caseAccessOf } from "./case-access";
import { disputeRecipients } from "./recipients";
import { actorIdOf } from "../events/recipients";

const HOUR = 3600_000;

/**
 * POST /v1/jobs/:id/dispute. The poster or the assigned agent (its key or its owner's session)
 * disputes an IN_PROGRESS or REVIEW job; the job becomes DISPUTED (it still holds one of the
 * agent's maxActiveJobs places), its escrow stays held, and a case opens (dispute_cases, one per
 * job) with the evaluator named on the job as its arbiter, else the operator. Both sides may then
 * add statements until answerDeadlineAt; a case nobody rules on by rulingDeadlineAt escalates to
 * the operator. The named evaluator and the operators are told at once (inbox and mail): the one who
 * must rule now, and the one who rules if the evaluator does not. Nothing moves the money but a ruling. Once a release has been recorded the money
 * is on its way and the job can no longer be disputed.
 */
export async function disputeJob(ctx: ServiceContext, actor: Actor, jobId: string, reason: string) {
  const job = await getJobRowOrThrow(ctx, jobId);
  const access = await caseAccessOf(ctx, actor, job, { evaluator_address: null });
  if (access.side === null) throw fail("FORBIDDEN", "only the poster or the assigned agent may dispute this job");
  const opener: DisputeOpener = { side: access.side, kind: actor.kind, id: actorIdOf(actor) };
  await ctx.db.transaction().execute((trx) => openDisputeCase(ctx, trx as unknown as Db, jobId, reason, opener));
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

/** Who opened a case: a party (its side), or the operator suspending the agent (side null). */
export interface DisputeOpener {
  side: "POSTER" | "AGENT" | null;
  kind: "USER" | "AGENT";
  id: string;
}

/**
 * The core of a dispute, without the caller check, in the caller's transaction: the job becomes
 * DISPUTED, its case opens and job.disputed is announced. POST /v1/jobs/:id/dispute and the
 * operator's suspension of the assigned agent (lib/service/admin/suspend-principal.ts) both open
 * disputes here, so a dispute opened either way is the same dispute.
 */
export async function openDisputeCase(
  ctx: ServiceContext,
  trx: Db,
  jobId: string,
  reason: string,
  opener: DisputeOpener,
): Promise<void> {
  const locked = await trx
    .selectFrom("jobs")
    .select(["status", "poster_id", "agent_id", "evaluator_address"])
    .where("id", "=", jobId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (locked.status !== "IN_PROGRESS" && locked.status !== "REVIEW") {
    throw fail("INVALID_STATE", `a ${locked.status} job cannot be disputed; only IN_PROGRESS and REVIEW jobs can`);
  }
  // A job paid in parts is disputed part by part (POST /v1/jobs/:id/milestones/:position/dispute);
  // only the operator's suspension of the agent disputes it whole, and only before any part moved.
  const parts = await trx.selectFrom("job_milestones").select("id").where("job_id", "=", jobId).limit(1).execute();
  if (parts.length > 0) {
    const partMoved = await trx
      .selectFrom("milestone_settlements")
      .select("id")
      .where("job_id", "=", jobId)
      .limit(1)
      .execute();
    if (opener.side !== null || partMoved.length > 0) {
      throw fail(
        "INVALID_STATE",
        "this job is paid in parts: dispute one part with POST /v1/jobs/:id/milestones/:position/dispute",
      );
    }
  }
  const settlement = await trx
    .selectFrom("escrow_settlements")
    .select(["kind", "status"])
    .where("job_id", "=", jobId)
    .executeTakeFirst();
  if (settlement) {
    throw fail(
      "SETTLEMENT_IN_PROGRESS",
      `the escrow is already being ${settlement.kind === "RELEASE" ? "released to the agent" : "refunded"}; the job can no longer be disputed`,
    );
  }
  const now = ctx.now();
  await trx
    .updateTable("jobs")
    .set({ status: "DISPUTED", disputed_at: now, dispute_reason: reason, updated_at: now })
    .where("id", "=", jobId)
    .execute();
  // job_id is unique: a job is disputed once (the job lock above orders two attempts).
  const kase = await trx
    .insertInto("dispute_cases")
    .values({
      job_id: jobId,
      opened_by_side: opener.side,
      opened_by_kind: opener.kind,
      opened_by_id: opener.id,
      reason,
      evaluator_address: locked.evaluator_address,
      answer_deadline_at: new Date(now.getTime() + ctx.config.disputeAnswerHours * HOUR),
      ruling_deadline_at: new Date(now.getTime() + ctx.config.disputeRulingHours * HOUR),
      created_at: now,
      updated_at: now,
    })
    .returning(["id", "answer_deadline_at", "ruling_deadline_at"])
    .executeTakeFirstOrThrow();
  await publishEvent(trx, {
    type: "job.disputed",
    jobId,
    to: await disputeRecipients(trx, ctx.config, locked, locked, { evaluator: true, operators: true }),
    actorId: opener.id,
    data: {
      jobId,
      agentId: locked.agent_id,
      disputedAt: now.toISOString(),
      caseId: kase.id,
      openedBy: opener.side ?? "OPERATOR",
      arbiter: locked.evaluator_address ? "EVALUATOR" : "OPERATOR",
      answerDeadlineAt: kase.answer_deadline_at.toISOString(),
      rulingDeadlineAt: kase.ruling_deadline_at.toISOString(),
    },
  });
}

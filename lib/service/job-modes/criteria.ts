import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { JobRow } from "../db/schema";
import { ACTIVE_JOB_STATUSES } from "@/lib/api/schemas/jobs";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";
import { getJobRowWithLapse } from "../jobs/read-job";
import {
  blockingCriteria,
  criteriaOf,
  evaluateCriteria,
  presentCriteria,
  statusKeepingOverride,
  type JobCriterion,
} from "./evaluate-criteria";

// The routes of acceptance criteria: read (poster and assigned agent), evaluate now, tick a manual
// criterion and override any criterion (poster only).

type Role = "POSTER" | "AGENT";

async function loadJobFor(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  allowed: Role[],
): Promise<{ job: JobRow; role: Role }> {
  const job = await getJobRowWithLapse(ctx, jobId);
  if (allowed.includes("POSTER") && job.poster_id === actor.principalId) return { job, role: "POSTER" };
  if (allowed.includes("AGENT") && (await isAgentOrItsOwner(ctx, actor, job.agent_id))) return { job, role: "AGENT" };
  throw fail(
    "FORBIDDEN",
    allowed.includes("AGENT")
      ? "a job's acceptance criteria results are visible to its poster and its assigned agent"
      : "only the poster may tick or override the job's acceptance criteria",
  );
}

function assertJudgeable(job: JobRow) {
  if (!(ACTIVE_JOB_STATUSES as readonly string[]).includes(job.status)) {
    throw fail(
      "INVALID_STATE",
      `the job is ${job.status}; criteria are judged while the job is IN_PROGRESS, REVIEW or DISPUTED`,
    );
  }
}

function criterionOf(job: JobRow, criterionId: string): JobCriterion {
  const criterion = criteriaOf(job).find((c) => c.id === criterionId);
  if (!criterion) throw fail("NOT_FOUND", "criterion not found");
  return criterion;
}

async function criteriaView(ctx: ServiceContext, job: JobRow) {
  const rows = await ctx.db.selectFrom("job_criteria_results").selectAll().where("job_id", "=", job.id).execute();
  const criteria = presentCriteria(criteriaOf(job), rows);
  const blocking = blockingCriteria(criteria).map((c) => c.id);
  return { jobId: job.id, criteria, approvalBlocked: blocking.length > 0, blocking };
}

/** GET /v1/jobs/:id/criteria */
export async function listJobCriteria(ctx: ServiceContext, actor: Actor, jobId: string) {
  const { job } = await loadJobFor(ctx, actor, jobId, ["POSTER", "AGENT"]);
  return await criteriaView(ctx, job);
}

/** POST /v1/jobs/:id/criteria/evaluate: runs the checks now (poster or assigned agent). */
export async function evaluateJobCriteriaNow(ctx: ServiceContext, actor: Actor, jobId: string) {
  const { job } = await loadJobFor(ctx, actor, jobId, ["POSTER", "AGENT"]);
  assertJudgeable(job);
  await evaluateCriteria(ctx, job);
  return await criteriaView(ctx, job);
}

async function presentOne(ctx: ServiceContext, job: JobRow, criterionId: string) {
  const rows = await ctx.db
    .selectFrom("job_criteria_results")
    .selectAll()
    .where("job_id", "=", job.id)
    .where("criterion_id", "=", criterionId)
    .execute();
  return presentCriteria([criterionOf(job, criterionId)], rows)[0]!;
}

/** PUT /v1/jobs/:id/criteria/:criterionId {ticked}: the poster ticks (or unticks) a manual criterion. */
export async function tickCriterion(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  criterionId: string,
  ticked: boolean,
) {
  const { job } = await loadJobFor(ctx, actor, jobId, ["POSTER"]);
  const criterion = criterionOf(job, criterionId);
  if ((criterion.check?.type ?? "manual") !== "manual") {
    throw fail(
      "CRITERION_NOT_MANUAL",
      `criterion ${criterionId} is a ${criterion.check.type} check: it is evaluated, not ticked (override it instead)`,
    );
  }
  assertJudgeable(job);
  const now = ctx.now();
  const checkStatus = ticked ? "PASS" : "PENDING";
  const detail = ticked ? "ticked by the poster" : "waiting for the poster's tick";
  await ctx.db
    .insertInto("job_criteria_results")
    .values({
      job_id: job.id,
      criterion_id: criterionId,
      status: checkStatus,
      check_status: checkStatus,
      detail,
      evaluated_at: now,
      ticked,
      ticked_by: actor.principalId,
      ticked_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["job_id", "criterion_id"]).doUpdateSet((eb) => ({
        check_status: eb.ref("excluded.check_status"),
        status: statusKeepingOverride,
        detail: eb.ref("excluded.detail"),
        evaluated_at: eb.ref("excluded.evaluated_at"),
        ticked: eb.ref("excluded.ticked"),
        ticked_by: eb.ref("excluded.ticked_by"),
        ticked_at: eb.ref("excluded.ticked_at"),
        updated_at: eb.ref("excluded.updated_at"),
      })),
    )
    .execute();
  return await presentOne(ctx, job, criterionId);
}

/** POST /v1/jobs/:id/criteria/:criterionId/override {reason}: the poster accepts a criterion whatever its check says. */
export async function overrideCriterion(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  criterionId: string,
  reason: string,
) {
  const { job } = await loadJobFor(ctx, actor, jobId, ["POSTER"]);
  criterionOf(job, criterionId);
  assertJudgeable(job);
  const now = ctx.now();
  await ctx.db
    .insertInto("job_criteria_results")
    .values({
      job_id: job.id,
      criterion_id: criterionId,
      status: "OVERRIDDEN",
      check_status: "PENDING",
      detail: "not evaluated yet",
      overridden_by: actor.principalId,
      override_reason: reason,
      overridden_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(["job_id", "criterion_id"]).doUpdateSet((eb) => ({
        status: "OVERRIDDEN" as const,
        overridden_by: eb.ref("excluded.overridden_by"),
        override_reason: eb.ref("excluded.override_reason"),
        overridden_at: eb.ref("excluded.overridden_at"),
        updated_at: eb.ref("excluded.updated_at"),
      })),
    )
    .execute();
  return await presentOne(ctx, job, criterionId);
}

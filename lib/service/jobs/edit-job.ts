import { fail } from "../errors";
import { assertDeadlinesAhead } from "./deadlines";
import type { z } from "zod";
import type { CriterionCheck, UpdateJobRequest } from "@/lib/api/schemas/jobs";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { JobRow } from "../db/schema";
import { publishEvent } from "../events/publish-event";
import { actorIdOf } from "../events/recipients";
import { refuseOwnUrl } from "../proofs/fetch-policy";
import { presentJob } from "./present-job";
import { getJobRowOrThrow } from "./read-job";
import { isClosedToEdits, mayLengthenProofHold } from "./lifecycle-rules";
import { assertPlanFitsBudget, planAmountsOf, writeMilestonePlan } from "./milestone-plan";
import { recordEscrowExpiryNeeded } from "./escrow-expiry";

type EditInput = z.output<typeof UpdateJobRequest>;
type StoredCriterion = { id: string; check: CriterionCheck; description: string };

/** The brief's fields: they change only while the job is OPEN (the proof hold has its own rule). */
const BRIEF_FIELDS = [
  "title",
  "description",
  "acceptanceCriteria",
  "budget",
  "proofContentMarker",
  "deadlineAt",
  "requiredSkills",
  "preferredSkills",
  "maxRevisions",
] as const;

function criteriaOf(job: JobRow): StoredCriterion[] {
  return (
    typeof job.acceptance_criteria === "string" ? JSON.parse(job.acceptance_criteria) : job.acceptance_criteria
  ) as StoredCriterion[];
}

function newCriteria(input: NonNullable<EditInput["acceptanceCriteria"]>): StoredCriterion[] {
  return input.map((criterion, index) => {
    const c: { description: string; check?: CriterionCheck } =
      typeof criterion === "string" ? { description: criterion } : criterion;
    return { id: `ac-${index + 1}`, check: c.check ?? { type: "manual" as const }, description: c.description };
  });
}

const sameCriterion = (a: StoredCriterion, b: StoredCriterion) =>
  a.description === b.description && JSON.stringify(a.check) === JSON.stringify(b.check);

/**
 * Once an agent has bid, its bid rests on the brief as it was: only what adds to it may change, and
 * the bidders are told. Returns the fields that would take something away.
 */
function refusedAfterBids(job: JobRow, input: EditInput, criteria: StoredCriterion[] | null): string[] {
  const refused: string[] = [];
  if (input.title !== undefined && input.title !== job.title) refused.push("title");
  if (input.description !== undefined && !input.description.startsWith(job.description.trim()))
    refused.push("description");
  if (criteria) {
    const current = criteriaOf(job);
    if (criteria.length < current.length || current.some((c, i) => !sameCriterion(c, criteria[i]!)))
      refused.push("acceptanceCriteria");
  }
  if (input.budget !== undefined && Number(input.budget) !== Number(job.budget_usdc)) refused.push("budget");
  if (
    input.proofContentMarker !== undefined &&
    (input.proofContentMarker ?? undefined) !== (job.input_data as { proofContentMarker?: string }).proofContentMarker
  ) {
    refused.push("proofContentMarker");
  }
  if (
    input.deadlineAt !== undefined &&
    job.deadline_at !== null &&
    input.deadlineAt !== null &&
    Date.parse(input.deadlineAt) < job.deadline_at.getTime()
  )
    refused.push("deadlineAt");
  if (input.deadlineAt !== undefined && job.deadline_at === null && input.deadlineAt !== null)
    refused.push("deadlineAt");
  // Skills may be added (a wider net), never taken away.
  const keepsAll = (next: string[] | undefined, current: string[]) =>
    next === undefined || current.every((skill) => next.includes(skill));
  if (!keepsAll(input.requiredSkills, job.required_skills)) refused.push("requiredSkills");
  if (!keepsAll(input.preferredSkills, job.preferred_skills)) refused.push("preferredSkills");
  // Bidders priced the work with the rounds of changes it allowed: fewer may be promised, never more.
  if (input.maxRevisions !== undefined && input.maxRevisions > job.max_revisions) refused.push("maxRevisions");
  return refused;
}

/** The fields whose sent value differs from the job's: a whole form sent back changes (and announces) only what was edited. */
function changedFields(job: JobRow, input: EditInput, criteria: StoredCriterion[] | null): string[] {
  const data = job.input_data as { proofHoldHours?: number; proofContentMarker?: string };
  const sameList = (a: string[] | undefined, b: string[]) =>
    a === undefined || (a.length === b.length && a.every((x, i) => x === b[i]));
  const current = criteriaOf(job);
  const changes: Record<string, boolean> = {
    title: input.title !== undefined && input.title !== job.title,
    description: input.description !== undefined && input.description !== job.description,
    acceptanceCriteria:
      criteria !== null &&
      (criteria.length !== current.length || criteria.some((c, i) => !sameCriterion(c, current[i]!))),
    budget: input.budget !== undefined && Number(input.budget) !== Number(job.budget_usdc),
    proofContentMarker:
      input.proofContentMarker !== undefined && (input.proofContentMarker ?? undefined) !== data.proofContentMarker,
    proofHoldHours: input.proofHoldHours !== undefined && input.proofHoldHours !== Number(data.proofHoldHours ?? 0),
    deadlineAt:
      input.deadlineAt !== undefined &&
      (input.deadlineAt === null
        ? job.deadline_at !== null
        : job.deadline_at?.getTime() !== Date.parse(input.deadlineAt)),
    requiredSkills: !sameList(input.requiredSkills, job.required_skills),
    preferredSkills: !sameList(input.preferredSkills, job.preferred_skills),
    maxRevisions: input.maxRevisions !== undefined && input.maxRevisions !== job.max_revisions,
  };
  return Object.keys(changes).filter((field) => changes[field]);
}

/**
 * PATCH /v1/jobs/:id: the poster edits a job by JOB_EDIT_RULE (lib/api/schemas/jobs.ts). The job
 * row is locked for the decision, so a bid placed at the same moment either sees the old brief and
 * is told of the change, or comes after it and reads the new one.
 */
export async function editJob(ctx: ServiceContext, actor: Actor, jobId: string, input: EditInput) {
  const criteria = input.acceptanceCriteria ? newCriteria(input.acceptanceCriteria) : null;
  criteria?.forEach((c, index) => {
    if (c.check.type === "http_status" && c.check.url)
      refuseOwnUrl(ctx.config, c.check.url, "CRITERION_URL_NOT_ALLOWED", `acceptanceCriteria.${index}.check.url`);
  });

  await ctx.db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom("jobs").selectAll().where("id", "=", jobId).forUpdate().executeTakeFirst();
    if (!job) throw fail("NOT_FOUND", "job not found");
    if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may edit this job");
    if (isClosedToEdits(job))
      throw fail(
        "INVALID_STATE",
        `a ${job.participation_mode === "AUTOMATIC_FORUM_REWARD" ? "forum reward slot" : `${job.status} job`} takes no edit`,
      );
    const changed = changedFields(job, input, criteria);
    // A deadline sent back as it is (the whole form) is no change and is not judged again.
    assertDeadlinesAhead(ctx.now(), {
      deadlineAt: changed.includes("deadlineAt") ? input.deadlineAt : undefined,
      milestones: input.milestones,
    });
    const briefFields = BRIEF_FIELDS.filter((field) => changed.includes(field));
    if (job.status !== "OPEN" && briefFields.length > 0) {
      throw fail(
        "INVALID_STATE",
        `the job is ${job.status}: its brief is settled (${briefFields.join(", ")}); only the proof hold may still be shortened`,
      );
    }
    const refused = job.bid_count > 0 ? refusedAfterBids(job, input, criteria) : [];
    // Every mode alike (a bounty is claimed, not bid on): see mayLengthenProofHold.
    const hold = Number((job.input_data as { proofHoldHours?: number }).proofHoldHours ?? 0);
    const lengthensHold = input.proofHoldHours !== undefined && input.proofHoldHours > hold;
    if (lengthensHold && !mayLengthenProofHold(job)) refused.push("proofHoldHours");
    if (
      input.budget !== undefined &&
      job.escrow_tx_hash !== null &&
      Number(input.budget) !== Number(job.budget_usdc) &&
      !refused.includes("budget")
    )
      refused.push("budget");
    // The milestone plan: the whole plan, before any bid and while unfunded; amounts fit the budget.
    if (input.milestones !== undefined) {
      if (job.status !== "OPEN") throw fail("INVALID_STATE", `the job is ${job.status}: its milestones are settled`);
      if (job.bid_count > 0 || job.escrow_tx_hash !== null) refused.push("milestones");
      else assertPlanFitsBudget(input.milestones, input.budget ?? String(job.budget_usdc));
    } else if (input.budget !== undefined && Number(input.budget) !== Number(job.budget_usdc)) {
      assertPlanFitsBudget(
        await planAmountsOf(trx, jobId),
        input.budget,
        "the job's milestones (send milestones with the new budget)",
      );
    }
    if (changed.length === 0 && input.milestones === undefined) return;
    if (refused.length > 0) {
      const why =
        refused.includes("milestones") && job.bid_count === 0
          ? "the plan is locked in the escrow once funded"
          : job.bid_count > 0
            ? "agents have bid on the job as it is: only additions are possible (extend the description, append criteria, a later deadline, a shorter proof hold, fewer rounds of changes)"
            : refused.includes("proofHoldHours")
              ? "an agent has taken the job as it is: its proof hold may be shortened, never lengthened"
              : "the budget is locked in the escrow";
      throw fail("JOB_EDIT_NOT_ALLOWED", `${refused.join(", ")} cannot change: ${why}`, { fields: refused });
    }

    const inputData = { ...(job.input_data as Record<string, unknown>) };
    if (input.description !== undefined) inputData.generalDescription = input.description;
    if (criteria) inputData.acceptanceCriteria = criteria.map((c) => ({ description: c.description }));
    if (input.proofHoldHours !== undefined) inputData.proofHoldHours = input.proofHoldHours;
    if (input.proofContentMarker === null) delete inputData.proofContentMarker;
    else if (input.proofContentMarker !== undefined) inputData.proofContentMarker = input.proofContentMarker;
    const now = ctx.now();
    await trx
      .updateTable("jobs")
      .set({
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(criteria ? { acceptance_criteria: JSON.stringify(criteria) } : {}),
        ...(input.budget !== undefined ? { budget_usdc: input.budget } : {}),
        ...(input.deadlineAt !== undefined
          ? { deadline_at: input.deadlineAt === null ? null : new Date(input.deadlineAt) }
          : {}),
        ...(input.requiredSkills !== undefined ? { required_skills: input.requiredSkills } : {}),
        ...(input.preferredSkills !== undefined ? { preferred_skills: input.preferredSkills } : {}),
        ...(input.maxRevisions !== undefined ? { max_revisions: input.maxRevisions } : {}),
        input_data: JSON.stringify(inputData),
        updated_at: now,
      })
      .where("id", "=", jobId)
      .execute();
    if (input.milestones !== undefined) await writeMilestonePlan(trx, jobId, input.milestones);
    // A later deadline (or a new plan) needs the money in escrow longer: a version 2 deposit that no
    // longer covers it asks for an extension (escrow-expiry.ts) before the job takes bids again.
    if (changed.includes("deadlineAt") || changed.includes("proofHoldHours") || input.milestones !== undefined)
      await recordEscrowExpiryNeeded(trx, ctx.config, jobId);

    // Everyone whose bid or work rests on the job hears of the change: pending bidders and the assigned agent.
    const bidders = await trx
      .selectFrom("bids")
      .select("agent_id")
      .where("job_id", "=", jobId)
      .where("status", "=", "PENDING")
      .execute();
    const told = [...bidders.map((b) => b.agent_id), job.agent_id];
    if (changed.length > 0 && told.some((id) => id !== null)) {
      await publishEvent(trx, {
        type: "job.updated",
        jobId,
        to: told,
        actorId: actorIdOf(actor),
        data: { jobId, fields: changed },
      });
    }
  });
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

import { fail } from "../errors";
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { JOB_LIMITS, type CreateJobRequest, type CriterionCheck } from "@/lib/api/schemas/jobs";
import type { ServiceContext } from "../context";
import { matchSavedSearches } from "./saved-searches";
import { escrowExpiryNeededForPlan } from "./escrow-expiry";
import { requireChain } from "../context";
import type { Actor } from "../auth/actor";
import { assertNotSuspended } from "../auth/suspension";
import { presentJob } from "./present-job";
import { getJobRowOrThrow, lapseExpiredClaims } from "./read-job";
import { resolveRequiredPackId } from "../evals/packs";
import { assertSubcontractDepth } from "./job-chain";
import { resolveForumSource } from "./forum-source";
import { refuseOwnUrl } from "../proofs/fetch-policy";
import { assertPlanFitsBudget, writeMilestonePlan } from "./milestone-plan";
import { assertDeadlinesAhead } from "./deadlines";

const DEFAULT_PROOF_HOLD_HOURS = JOB_LIMITS.proofHoldHoursDefault;
const DEFAULT_CLAIM_WINDOW_MINUTES = JOB_LIMITS.claimWindowMinutesDefault;

type CreateJobInput = z.output<typeof CreateJobRequest>;

/**
 * The job's description, criteria and mode from the top-level fields and their inputData copies,
 * by CREATE_JOB_INPUT_DATA_RULE: the top-level field wins, the copy fills an omitted one. A client
 * may send a job's own inputData back with a new description, so a disagreeing copy is no error.
 */
function resolveTopLevelTwins(input: CreateJobInput) {
  const description = input.description ?? input.inputData.generalDescription;
  const criteria = input.acceptanceCriteria ?? input.inputData.acceptanceCriteria;
  const mode = input.participationMode ?? input.inputData.participationMode ?? "BID";
  const problems: string[] = [];
  if (description === undefined)
    problems.push("description should not be empty (send description or inputData.generalDescription)");
  if (criteria === undefined)
    problems.push("acceptanceCriteria should not be empty (send acceptanceCriteria or inputData.acceptanceCriteria)");
  if (mode === "AUTOMATIC_FORUM_REWARD") {
    const field = input.participationMode ? "participationMode" : "inputData.participationMode";
    problems.push(
      `${field} AUTOMATIC_FORUM_REWARD is not posted here: forum reward slots are created by POST /v1/forum/reward-campaigns; send BID or BOUNTY`,
    );
  }
  if (description === undefined || criteria === undefined || mode === "AUTOMATIC_FORUM_REWARD")
    throw fail("VALIDATION_FAILED", problems);
  return { description, criteria, mode };
}

export async function createJob(ctx: ServiceContext, actor: Actor, input: CreateJobInput) {
  const chain = requireChain(ctx);
  // Before anything is read or written: bad input changes nothing.
  const { description, criteria: criteriaInput, mode } = resolveTopLevelTwins(input);
  if (input.milestones) assertPlanFitsBudget(input.milestones, input.budget);
  assertDeadlinesAhead(ctx.now(), input);
  await assertNotSuspended(ctx.db, actor.principalId);

  // A child job may only be posted by the agent working on a parent that allows subcontracting.
  if (input.parentJobId) {
    // A parent bounty whose claim ran out is no longer the caller's to subcontract.
    await lapseExpiredClaims(ctx, { jobId: input.parentJobId });
    const parent = await ctx.db
      .selectFrom("jobs")
      .select(["id", "allow_subcontracting", "agent_id", "status"])
      .where("id", "=", input.parentJobId)
      .executeTakeFirst();
    if (!parent) throw fail("NOT_FOUND", "parent job not found");
    if (!parent.allow_subcontracting)
      throw fail("SUBCONTRACTING_NOT_ALLOWED", "the parent job does not allow subcontracting");
    if (actor.kind !== "AGENT" || actor.agentId !== parent.agent_id)
      throw fail("FORBIDDEN", "only the agent assigned to the parent job may subcontract it");
    if (parent.status !== "IN_PROGRESS")
      throw fail("INVALID_STATE", "subcontracting needs the parent job to be in progress");
    // Chains of subcontracts stop at MAX_SUBCONTRACT_DEPTH (409 SUBCONTRACT_TOO_DEEP).
    await assertSubcontractDepth(ctx, input.parentJobId);
  }
  // The forum thread or reply a job came from must exist (404), and a reply must be in that thread.
  const forumSource = await resolveForumSource(ctx, input);

  // A required certification pack must exist (400 PACK_NOT_FOUND); a slug is stored as the pack's id.
  const requiredPackId = input.requiredPackId ? await resolveRequiredPackId(ctx, input.requiredPackId) : null;

  // Ids are assigned anew: a criterion id sent back from another job names nothing here.
  const criteria = criteriaInput.map((criterion, index) => {
    const c: { description: string; check?: CriterionCheck } =
      typeof criterion === "string" ? { description: criterion } : criterion;
    return { id: `ac-${index + 1}`, check: c.check ?? { type: "manual" as const }, description: c.description };
  });
  // A machine check against this marketplace's own pages would pass on our word, not the agent's work.
  criteria.forEach((c, index) => {
    if (c.check.type === "http_status" && c.check.url) {
      refuseOwnUrl(ctx.config, c.check.url, "CRITERION_URL_NOT_ALLOWED", `acceptanceCriteria.${index}.check.url`);
    }
  });
  // The arbiter of a dispute (disputes/arbiter.ts), compared in lower case like session addresses.
  const evaluatorAddress = (input.evaluatorAddress ?? input.inputData.evaluatorAddress)?.toLowerCase() ?? null;
  // The stored copies always agree with the job itself; forumRewardCampaignId is never kept (see the rule).
  const inputData = {
    budgetType: input.inputData.budgetType,
    proofHoldHours: input.inputData.proofHoldHours ?? DEFAULT_PROOF_HOLD_HOURS,
    stallAfterHours: input.inputData.stallAfterHours ?? JOB_LIMITS.stallAfterHoursDefault,
    participationMode: mode,
    generalDescription: description,
    acceptanceCriteria: criteria.map((c) => ({ description: c.description })),
    ...(input.inputData.proofContentMarker ? { proofContentMarker: input.inputData.proofContentMarker } : {}),
    ...(evaluatorAddress ? { evaluatorAddress } : {}),
  };

  // The job and the saved searches it matches are told in one transaction (saved-searches.ts).
  const inserted = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto("jobs")
      .values({
        poster_id: actor.principalId,
        parent_job_id: input.parentJobId ?? null,
        allow_subcontracting: input.allowSubcontracting ?? false,
        source_forum_thread_id: forumSource.threadId,
        source_forum_reply_id: forumSource.replyId,
        agent_id: null,
        status: "OPEN",
        participation_mode: mode,
        claim_window_minutes: mode === "BOUNTY" ? (input.claimWindowMinutes ?? DEFAULT_CLAIM_WINDOW_MINUTES) : null,
        claimed_at: null,
        claim_expires_at: null,
        template_id: input.templateId,
        title: input.title,
        description,
        budget_usdc: input.budget,
        input_data: JSON.stringify(inputData),
        evaluator_address: evaluatorAddress,
        max_revisions: input.maxRevisions ?? JOB_LIMITS.maxRevisionsDefault,
        output_data: null,
        proof_hash: null,
        deadline_at: input.deadlineAt ?? null,
        escrow_expiry_needed_at: escrowExpiryNeededForPlan(
          ctx.config,
          {
            created_at: ctx.now(),
            deadline_at: input.deadlineAt ? new Date(input.deadlineAt) : null,
            input_data: inputData,
          },
          input.milestones ?? [],
        ),
        submitted_at: null,
        completed_at: null,
        // A random 32-byte id names the job in the escrow contract; it reveals nothing about the job.
        escrow_job_id: `0x${randomBytes(32).toString("hex")}`,
        escrow_tx_hash: null,
        escrow_payer: null,
        funded_at: null,
        release_tx_hash: null,
        refund_tx_hash: null,
        chain_id: chain.chainId,
        token_symbol: chain.tokenSymbol,
        token_address: chain.tokenAddress,
        payment_provider: "ON_CHAIN_USDC",
        payment_status: null,
        acceptance_criteria: JSON.stringify(criteria),
        required_pack_id: requiredPackId,
        required_skills: input.requiredSkills ?? [],
        preferred_skills: input.preferredSkills ?? [],
        is_publicly_shareable: input.isPubliclyShareable ?? true,
        last_shared_at: null,
        forum_reward_campaign_id: null,
        proof_checked_at: null,
        proof_check_status: null,
        proof_check_reason: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (input.milestones) await writeMilestonePlan(trx, row.id, input.milestones);
    await matchSavedSearches(trx, row.id);
    return row;
  });

  return presentJob(await getJobRowOrThrow(ctx, inserted.id), actor, { detail: true });
}

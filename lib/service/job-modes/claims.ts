import { fail } from "../errors";
import { sql } from "kysely";
import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { presentJob } from "../jobs/present-job";
import {
  getJobOrThrow,
  getJobRowOrThrow,
  isClaimLapsed,
  lapseExpiredClaims,
  reopenClaimedJobs,
} from "../jobs/read-job";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, jobRecipients } from "../events/recipients";
import { reserveAgentCapacity } from "../agents/capacity";
import { assertCertifiedForPack } from "../evals/certifications";
import { isAgentOrItsOwner, ownAgentOrThrow } from "../auth/acting-for-agent";
import { assertNotSuspended } from "../auth/suspension";
import { hasPartsInFlight } from "../jobs/lifecycle-rules";

/**
 * Bounties: a job in participationMode BOUNTY takes no bids; the first ACTIVE agent to claim it
 * gets it for claimWindowMinutes. A claim that reaches claimExpiresAt without a submission lapses
 * (jobs/read-job.ts: the job reopens and the agent's maxActiveJobs place is free again).
 */

export const DEFAULT_CLAIM_WINDOW_MINUTES = JOB_LIMITS.claimWindowMinutesDefault;
const MINUTE = 60_000;

/** Closes the claim history rows of claims that ended in a submission (the worker's second task). */
export async function closeSubmittedClaims(ctx: ServiceContext): Promise<number> {
  const rows = await ctx.db
    .updateTable("job_claims")
    .set({ ended_at: sql<Date>`jobs.submitted_at`, outcome: "SUBMITTED" })
    .from("jobs")
    .whereRef("jobs.id", "=", "job_claims.job_id")
    .whereRef("jobs.agent_id", "=", "job_claims.agent_id")
    .where("job_claims.ended_at", "is", null)
    .where("jobs.submitted_at", "is not", null)
    .returning("job_claims.id")
    .execute();
  return rows.length;
}

/**
 * POST /v1/jobs/:id/claim. The same atomic capacity rule as bid acceptance: inside one
 * transaction the job row is locked, then the agent row (reserveAgentCapacity), so concurrent
 * claims of one bounty give one winner and an agent never exceeds maxActiveJobs.
 */
export async function claimJob(ctx: ServiceContext, actor: Actor, jobId: string, input: { agentId: string }) {
  const agent = await ownAgentOrThrow(ctx, actor, input.agentId);
  await assertNotSuspended(ctx.db, agent.principal_id);
  const job = await getJobOrThrow(ctx.db, jobId);
  if (job.participation_mode !== "BOUNTY") {
    throw fail(
      "JOB_NOT_CLAIMABLE",
      `this job is in participationMode ${job.participation_mode}; only BOUNTY jobs are claimed (bid with POST /v1/jobs/:id/bids)`,
    );
  }
  if (job.poster_id === agent.principal_id || job.poster_id === actor.principalId)
    throw fail("OWN_JOB", "an agent cannot claim its own poster's job");
  if (agent.status !== "ACTIVE")
    throw fail(
      "AGENT_NOT_ACTIVE",
      "the agent is PENDING_PROOF; send POST /v1/agents/heartbeat to activate it before claiming",
    );
  if (job.required_pack_id !== null) await assertCertifiedForPack(ctx, agent.id, job.required_pack_id);

  // The agent's own expired claims must not hold places against its cap.
  await lapseExpiredClaims(ctx, { agentId: agent.id });

  await ctx.db.transaction().execute(async (trx) => {
    // Lock order: job, then agent (reserveAgentCapacity), like every assignment path.
    const locked = await trx
      .selectFrom("jobs")
      .select([
        "id",
        "status",
        "participation_mode",
        "submitted_at",
        "claim_expires_at",
        "claim_window_minutes",
        "agent_id",
        "parts_in_flight",
      ])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const now = ctx.now();
    if (isClaimLapsed(locked, now)) {
      await reopenClaimedJobs(trx, [jobId], now, "LAPSED");
      locked.status = "OPEN";
      locked.agent_id = null;
    }
    if (locked.status === "IN_PROGRESS") {
      const mine = locked.agent_id === agent.id;
      throw fail(
        "ALREADY_CLAIMED",
        mine
          ? `agent ${agent.id} already holds the claim on this bounty (until ${locked.claim_expires_at?.toISOString()})`
          : `this bounty is claimed by another agent until ${locked.claim_expires_at?.toISOString()}; it reopens if no work is submitted by then`,
        { claimExpiresAt: locked.claim_expires_at?.toISOString() ?? null },
      );
    }
    if (locked.status !== "OPEN")
      throw fail("JOB_NOT_OPEN", `the job is ${locked.status}; only an OPEN bounty can be claimed`);

    await reserveAgentCapacity(trx, agent.id);

    const windowMinutes = locked.claim_window_minutes ?? DEFAULT_CLAIM_WINDOW_MINUTES;
    const expiresAt = new Date(now.getTime() + windowMinutes * MINUTE);
    await trx
      .updateTable("jobs")
      .set({ status: "IN_PROGRESS", agent_id: agent.id, claimed_at: now, claim_expires_at: expiresAt, updated_at: now })
      .where("id", "=", jobId)
      .execute();
    await trx
      .insertInto("job_claims")
      .values({ job_id: jobId, agent_id: agent.id, claimed_at: now, expires_at: expiresAt })
      .execute();
    await publishEvent(trx, {
      type: "job.assigned",
      jobId,
      to: await jobRecipients(trx, { poster_id: job.poster_id, agent_id: agent.id }),
      actorId: actorIdOf(actor),
      data: { jobId, agentId: agent.id, via: "BOUNTY_CLAIM", claimExpiresAt: expiresAt.toISOString() },
    });
  });
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

/**
 * POST /v1/jobs/:id/release-claim: the claimant gives an unsubmitted bounty back early; the job
 * reopens at once and the agent's place is free.
 */
export async function releaseJobClaim(ctx: ServiceContext, actor: Actor, jobId: string) {
  const job = await ctx.db
    .selectFrom("jobs")
    .select(["id", "agent_id", "participation_mode"])
    .where("id", "=", jobId)
    .executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.participation_mode !== "BOUNTY") {
    throw fail(
      "JOB_NOT_CLAIMABLE",
      "only a bounty claim can be released; an assignment from an accepted bid ends by submission, dispute or cancellation",
    );
  }
  if (job.agent_id !== null && !(await isAgentOrItsOwner(ctx, actor, job.agent_id))) {
    throw fail("FORBIDDEN", "only the agent holding the claim (or its owner) may release it");
  }
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom("jobs")
      .select(["status", "agent_id", "submitted_at", "parts_in_flight"])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (locked.status === "IN_PROGRESS" && hasPartsInFlight(locked)) {
      throw fail(
        "NOT_CLAIMED",
        "a part of this bounty is delivered and not settled yet: it is owed to the agent that delivered it, so the claim is kept until it settles",
      );
    }
    if (locked.status !== "IN_PROGRESS" || locked.submitted_at !== null || locked.agent_id === null) {
      throw fail("NOT_CLAIMED", `the job is ${locked.status} and holds no claim that can be released`);
    }
    if (locked.agent_id !== job.agent_id)
      throw fail("FORBIDDEN", "only the agent holding the claim (or its owner) may release it");
    await reopenClaimedJobs(trx, [jobId], ctx.now(), "RELEASED");
  });
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

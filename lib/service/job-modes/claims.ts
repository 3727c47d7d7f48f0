import { sql, type Transaction } from "kysely";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { Database, JobRow } from "../db/schema";
import { conflict, forbidden, notFound } from "../http/errors";
import { getJobRowOrThrow, presentJob, type JobWithRelations } from "../jobs/present-job";
import { reserveAgentCapacity } from "../agents/capacity";
import { assertCertifiedForPack } from "../evals/certifications";
import { isAgentOrItsOwner, ownAgentOrThrow } from "../agents/acting-for-agent";

/**
 * Bounties: a job in participationMode BOUNTY takes no bids; the first ACTIVE agent to claim it
 * gets it for claimWindowMinutes. A claim that reaches claimExpiresAt without a submission lapses:
 * the job reopens for anyone and the agent's maxActiveJobs place is free again. Lapses happen
 * lazily (a read or claim of the job, a claim by the agent) and in the claim-lapse worker.
 */

export const DEFAULT_CLAIM_WINDOW_MINUTES = 120;
const MINUTE = 60_000;

type Trx = Transaction<Database>;
type ClaimFields = Pick<JobRow, "status" | "participation_mode" | "submitted_at" | "claim_expires_at">;

/** True when the job holds a bounty claim that has run out without a submission. */
export function isClaimLapsed(job: ClaimFields, now: Date): boolean {
  return (
    job.status === "IN_PROGRESS" &&
    job.participation_mode === "BOUNTY" &&
    job.submitted_at === null &&
    job.claim_expires_at !== null &&
    job.claim_expires_at.getTime() <= now.getTime()
  );
}

/**
 * Reopens jobs whose claim ended (lapsed or given back), in the caller's transaction, with the job
 * rows already locked. Anything the previous claimant left behind (proof-check fields, criterion
 * results and the poster's ticks on them) goes too: the next claimant starts clean.
 */
async function reopenClaimedJobs(trx: Trx, jobIds: string[], now: Date, outcome: "LAPSED" | "RELEASED"): Promise<void> {
  if (jobIds.length === 0) return;
  await trx
    .updateTable("jobs")
    .set({
      status: "OPEN",
      agent_id: null,
      claimed_at: null,
      claim_expires_at: null,
      output_data: null,
      proof_checked_at: null,
      proof_check_status: null,
      proof_check_reason: null,
      updated_at: now,
    })
    .where("id", "in", jobIds)
    .execute();
  await trx.updateTable("job_claims").set({ ended_at: now, outcome }).where("job_id", "in", jobIds).where("ended_at", "is", null).execute();
  await trx.deleteFrom("job_criteria_results").where("job_id", "in", jobIds).execute();
}

export interface LapseOptions {
  /** Only this job. */
  jobId?: string;
  /** Only this agent's claims (before a claim, so that its own lapsed claims do not hold its places). */
  agentId?: string;
  /** At most this many jobs per call (default 100). */
  limit?: number;
}

/**
 * Lapses expired bounty claims: jobs still IN_PROGRESS, never submitted, past claimExpiresAt.
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so several workers (and lazy callers) share the
 * work and never wait on a job another transaction is changing. Returns the ids lapsed.
 */
export async function lapseExpiredClaims(ctx: ServiceContext, options: LapseOptions = {}): Promise<string[]> {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom("jobs")
      .select("id")
      .where("status", "=", "IN_PROGRESS")
      .where("participation_mode", "=", "BOUNTY")
      .where("submitted_at", "is", null)
      .where("claim_expires_at", "is not", null)
      .where("claim_expires_at", "<=", now);
    if (options.jobId) q = q.where("id", "=", options.jobId);
    if (options.agentId) q = q.where("agent_id", "=", options.agentId);
    const rows = await q.orderBy("claim_expires_at").limit(options.limit ?? 100).forUpdate().skipLocked().execute();
    const ids = rows.map((r) => r.id);
    await reopenClaimedJobs(trx, ids, now, "LAPSED");
    return ids;
  });
}

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
 * A job row as any reader should see it: if its claim has run out, the lapse is applied first.
 * Costs nothing extra unless the claim has actually expired.
 */
export async function getJobRowWithLapse(ctx: ServiceContext, jobId: string): Promise<JobWithRelations> {
  const row = await getJobRowOrThrow(ctx, jobId);
  if (!isClaimLapsed(row, ctx.now())) return row;
  await lapseExpiredClaims(ctx, { jobId });
  return getJobRowOrThrow(ctx, jobId);
}

/**
 * POST /v1/jobs/:id/claim. The same atomic capacity rule as bid acceptance: inside one
 * transaction the job row is locked, then the agent row (reserveAgentCapacity), so concurrent
 * claims of one bounty give one winner and an agent never exceeds maxActiveJobs.
 */
export async function claimJob(ctx: ServiceContext, actor: Actor, jobId: string, input: { agentId: string }) {
  const agent = await ownAgentOrThrow(ctx, actor, input.agentId);
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (job.participation_mode !== "BOUNTY") {
    throw conflict("JOB_NOT_CLAIMABLE", `this job is in participationMode ${job.participation_mode}; only BOUNTY jobs are claimed (bid with POST /v1/jobs/:id/bids)`);
  }
  if (job.poster_id === agent.principal_id || job.poster_id === actor.principalId) throw conflict("OWN_JOB", "an agent cannot claim its own poster's job");
  if (agent.status !== "ACTIVE") throw conflict("AGENT_NOT_ACTIVE", "the agent is PENDING_PROOF; send POST /v1/agents/heartbeat to activate it before claiming");
  if (job.required_pack_id !== null) await assertCertifiedForPack(ctx, agent.id, job.required_pack_id);

  // The agent's own expired claims must not hold places against its cap.
  await lapseExpiredClaims(ctx, { agentId: agent.id });

  await ctx.db.transaction().execute(async (trx) => {
    // Lock order: job, then agent (reserveAgentCapacity), like every assignment path.
    const locked = await trx
      .selectFrom("jobs")
      .select(["id", "status", "participation_mode", "submitted_at", "claim_expires_at", "claim_window_minutes", "agent_id"])
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
      throw conflict(
        "ALREADY_CLAIMED",
        mine
          ? `agent ${agent.id} already holds the claim on this bounty (until ${locked.claim_expires_at?.toISOString()})`
          : `this bounty is claimed by another agent until ${locked.claim_expires_at?.toISOString()}; it reopens if no work is submitted by then`,
        { claimExpiresAt: locked.claim_expires_at?.toISOString() ?? null },
      );
    }
    if (locked.status !== "OPEN") throw conflict("JOB_NOT_OPEN", `the job is ${locked.status}; only an OPEN bounty can be claimed`);

    await reserveAgentCapacity(trx, agent.id);

    const windowMinutes = locked.claim_window_minutes ?? DEFAULT_CLAIM_WINDOW_MINUTES;
    const expiresAt = new Date(now.getTime() + windowMinutes * MINUTE);
    await trx
      .updateTable("jobs")
      .set({ status: "IN_PROGRESS", agent_id: agent.id, claimed_at: now, claim_expires_at: expiresAt, updated_at: now })
      .where("id", "=", jobId)
      .execute();
    await trx.insertInto("job_claims").values({ job_id: jobId, agent_id: agent.id, claimed_at: now, expires_at: expiresAt }).execute();
  });
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}

/**
 * POST /v1/jobs/:id/release-claim: the claimant gives an unsubmitted bounty back early; the job
 * reopens at once and the agent's place is free.
 */
export async function releaseJobClaim(ctx: ServiceContext, actor: Actor, jobId: string) {
  const job = await ctx.db.selectFrom("jobs").select(["id", "agent_id", "participation_mode"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (job.participation_mode !== "BOUNTY") {
    throw conflict("JOB_NOT_CLAIMABLE", "only a bounty claim can be released; an assignment from an accepted bid ends by submission, dispute or cancellation");
  }
  if (job.agent_id !== null && !(await isAgentOrItsOwner(ctx, actor, job.agent_id))) {
    throw forbidden("only the agent holding the claim (or its owner) may release it");
  }
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await trx.selectFrom("jobs").select(["status", "agent_id", "submitted_at"]).where("id", "=", jobId).forUpdate().executeTakeFirstOrThrow();
    if (locked.status !== "IN_PROGRESS" || locked.submitted_at !== null || locked.agent_id === null) {
      throw conflict("NOT_CLAIMED", `the job is ${locked.status} and holds no claim that can be released`);
    }
    if (locked.agent_id !== job.agent_id) throw forbidden("only the agent holding the claim (or its owner) may release it");
    await reopenClaimedJobs(trx, [jobId], ctx.now(), "RELEASED");
  });
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}

import { fail } from "../errors";
import { sql, type Transaction } from "kysely";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import type { Database, JobRow, JobsTable } from "../db/schema";
import { publishEvent } from "../events/publish-event";
import { jobRecipients } from "../events/recipients";
import { hasPartsInFlight } from "./lifecycle-rules";

/**
 * Reading a job, the one way every domain does it. A bounty claim that has run out without a
 * submission lapses (the job reopens for anyone and the agent's maxActiveJobs place is free):
 * lazily here, on any read or claim of the job or a claim by the agent, and in the claim-lapse
 * worker (job-modes/worker.ts), so no reader ever sees an expired claim as held.
 */

type Trx = Transaction<Database>;
type ClaimFields = Pick<
  JobRow,
  "status" | "participation_mode" | "submitted_at" | "claim_expires_at" | "parts_in_flight"
>;

/** The job row (no relations), or 404 job. */
export async function getJobOrThrow(db: Db, jobId: string): Promise<JobRow> {
  const job = await db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  return job;
}

/**
 * Every column of a job but its search document: a tsvector that only the board's search reads
 * (list-jobs.ts), costly for the server to write out and never shown. Listed as an object that must
 * name every other column of JobsTable, so a new column cannot be left out by accident.
 */
type JobColumn = Exclude<keyof JobsTable, "search_document">;
export const JOB_COLUMNS = Object.keys({
  id: true,
  bid_count: true,
  parts_in_flight: true,
  poster_id: true,
  parent_job_id: true,
  allow_subcontracting: true,
  source_forum_thread_id: true,
  source_forum_reply_id: true,
  agent_id: true,
  status: true,
  purpose: true,
  participation_mode: true,
  claim_window_minutes: true,
  claimed_at: true,
  claim_expires_at: true,
  template_id: true,
  title: true,
  description: true,
  budget_usdc: true,
  input_data: true,
  output_data: true,
  proof_hash: true,
  deadline_at: true,
  submitted_at: true,
  completed_at: true,
  auto_approved: true,
  escrow_job_id: true,
  escrow_tx_hash: true,
  escrow_payer: true,
  escrow_address: true,
  escrow_version: true,
  escrow_expires_at: true,
  escrow_expiry_needed_at: true,
  escrow_agent: true,
  escrow_agent_block: true,
  escrow_assign_raw_tx: true,
  escrow_assign_tx_hash: true,
  escrow_assign_deadline: true,
  escrow_approval_signature: true,
  escrow_approval_deadline: true,
  escrow_approval_agent: true,
  escrow_outside_checked_at: true,
  escrow_settled_outside: true,
  escrow_auth_payer: true,
  escrow_auth_expires_at: true,
  escrow_auth_valid_before: true,
  escrow_auth_raw_tx: true,
  escrow_auth_tx_hash: true,
  funded_at: true,
  deposit_lost_at: true,
  release_tx_hash: true,
  refund_tx_hash: true,
  chain_id: true,
  token_symbol: true,
  token_address: true,
  payment_provider: true,
  payment_status: true,
  acceptance_criteria: true,
  required_pack_id: true,
  required_skills: true,
  preferred_skills: true,
  is_publicly_shareable: true,
  share_count: true,
  last_shared_at: true,
  forum_reward_campaign_id: true,
  proof_checked_at: true,
  proof_check_status: true,
  proof_check_reason: true,
  approved_at: true,
  release_at: true,
  progress: true,
  progress_note: true,
  last_heartbeat_at: true,
  release_held_reason: true,
  release_attempts: true,
  release_next_at: true,
  disputed_at: true,
  dispute_reason: true,
  evaluator_address: true,
  review_attempted_at: true,
  wallet_reminder_sent_at: true,
  max_revisions: true,
  revision_count: true,
  change_request_message: true,
  changes_requested_at: true,
  created_at: true,
  updated_at: true,
} satisfies Record<JobColumn, true>).map((column) => `jobs.${column}` as `jobs.${JobColumn}`);

/** The job's relations that its wire form reads: the poster, the assigned agent, the agent that posted it. */
function joinJobRelations(db: Db) {
  return (
    db
      .selectFrom("jobs")
      .innerJoin("principals as poster", "poster.id", "jobs.poster_id")
      .leftJoin("agents as agent", "agent.id", "jobs.agent_id")
      // A job posted by an agent: its owner is a party too (job-viewer.ts).
      .leftJoin("agents as poster_agent", "poster_agent.principal_id", "jobs.poster_id")
      .leftJoin("users as poster_user", "poster_user.id", "jobs.poster_id")
  );
}

/** Jobs with their poster and assigned agent, the shape every job read starts from. */
export function selectJobs(db: Db) {
  return joinJobRelations(db)
    .select(JOB_COLUMNS)
    .select([
      "poster.display_name as poster_display_name",
      "poster.avatar_url as poster_avatar_url",
      "poster_user.address as poster_address",
      "agent.name as agent_name",
      "agent.vertical as agent_vertical",
      "agent.owner_user_id as agent_owner_user_id",
      "poster_agent.owner_user_id as poster_owner_user_id",
    ]);
}

/**
 * Which version of a job and of each row its wire form reads (selectJobs' joins): their xmin, the
 * transaction that wrote each row version. Any change of any of them gives another value; the same
 * value is the same rows, as PostgreSQL keeps a row's xmin from version to version only within the
 * transaction that wrote it, which no other reader sees. So a job's public wire form can be kept
 * under it (public-job-text.ts).
 */
export const JOB_VERSION = sql<string>`jobs.xmin::text || '.' || poster.xmin::text || '.' || coalesce(agent.xmin::text, '') || '.' || coalesce(poster_agent.xmin::text, '')`;

/**
 * A job's version, and what it takes to know who may see the job's private fields (job-viewer.ts),
 * without the rest of the row: what a list reads first, before only the jobs it has no wire form of.
 */
export function selectJobVersions(db: Db) {
  return joinJobRelations(db).select([
    "jobs.id",
    "jobs.poster_id",
    "jobs.agent_id",
    "agent.owner_user_id as agent_owner_user_id",
    "poster_agent.owner_user_id as poster_owner_user_id",
    JOB_VERSION.as("version"),
  ]);
}

export type JobWithRelations = JobRow & {
  poster_display_name: string;
  poster_avatar_url: string | null;
  poster_address: string | null;
  agent_name: string | null;
  agent_vertical: string | null;
  agent_owner_user_id: string | null;
  poster_owner_user_id: string | null;
};

export async function getJobRowOrThrow(ctx: ServiceContext, id: string): Promise<JobWithRelations> {
  const row = await selectJobs(ctx.db).where("jobs.id", "=", id).executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "job not found");
  return row;
}

/**
 * True when the job holds a bounty claim that has run out without a submission. A part delivered
 * and not yet settled keeps the claim (lifecycle-rules.ts hasPartsInFlight): it is owed to its agent.
 */
export function isClaimLapsed(job: ClaimFields, now: Date): boolean {
  return (
    job.status === "IN_PROGRESS" &&
    job.participation_mode === "BOUNTY" &&
    job.submitted_at === null &&
    !hasPartsInFlight(job) &&
    job.claim_expires_at !== null &&
    job.claim_expires_at.getTime() <= now.getTime()
  );
}

/**
 * The job's proof hold in hours (inputData.proofHoldHours; 0 where a job has none): how long after its
 * delivery an approved job's escrow is released. PROOF_HOLD_SQL is the same for a query over jobs.
 */
export function proofHoldHoursOf(job: Pick<JobRow, "input_data">): number {
  const hours = Number((job.input_data as { proofHoldHours?: unknown }).proofHoldHours ?? 0);
  return Number.isFinite(hours) ? hours : 0;
}
export const PROOF_HOLD_SQL = sql<number>`coalesce((jobs.input_data->>'proofHoldHours')::int, 0)`;

type StallFields = Pick<
  JobRow,
  | "status"
  | "input_data"
  | "claimed_at"
  | "last_heartbeat_at"
  | "updated_at"
  | "changes_requested_at"
  | "parts_in_flight"
>;

/** The job's inputData.stallAfterHours, or the default for jobs posted before the setting existed. */
export function stallAfterHoursOf(job: Pick<JobRow, "input_data">): number {
  const hours = (job.input_data as { stallAfterHours?: unknown }).stallAfterHours;
  return typeof hours === "number" && Number.isFinite(hours) && hours > 0 ? hours : JOB_LIMITS.stallAfterHoursDefault;
}

/**
 * Stalled: IN_PROGRESS, and neither a progress report nor (before the first report) the assignment
 * is more recent than inputData.stallAfterHours. Computed on every read instead of marked by a
 * worker, so it can never lag; the one home of the rule (the presenter, viewer.can.reopen and
 * reopen-job.ts all ask here). A job with a part delivered and not yet settled waits on its poster,
 * not on its agent: it is never stalled (lifecycle-rules.ts hasPartsInFlight), and each part's
 * delivery counts as a progress report (milestone-actions.ts).
 */
export function isStalled(job: StallFields, now: Date): boolean {
  if (job.status !== "IN_PROGRESS" || hasPartsInFlight(job)) return false;
  // claimed_at is the assignment time on every path; updated_at only covers a row that somehow lacks it.
  // Work sent back for changes starts the agent's clock again: the poster cannot ask for changes and
  // then reopen the job as stalled at once.
  const reported = job.last_heartbeat_at ?? job.claimed_at ?? job.updated_at;
  const since = job.changes_requested_at && job.changes_requested_at > reported ? job.changes_requested_at : reported;
  return now.getTime() - since.getTime() > stallAfterHoursOf(job) * 3_600_000;
}

/**
 * Reopens jobs whose claim ended (lapsed or given back) or whose assigned agent stalled
 * (reopen-job.ts), in the caller's transaction, with the job rows already locked. Anything the
 * previous agent left behind (proof-check fields, progress reports, criterion results and the
 * poster's ticks on them) goes too: the next agent starts clean.
 */
export async function reopenClaimedJobs(
  trx: Trx,
  jobIds: string[],
  now: Date,
  outcome: "LAPSED" | "RELEASED",
): Promise<void> {
  if (jobIds.length === 0) return;
  // Every caller decided on the locked rows by isClaimLapsed or isStalled; a job with a part in
  // flight reaching here would hand that part's money to the next agent, so it never goes through.
  const owed = await trx
    .selectFrom("jobs")
    .select("id")
    .where("id", "in", jobIds)
    .where("parts_in_flight", ">", 0)
    .execute();
  if (owed.length > 0)
    throw fail("INVALID_STATE", "a part of this job is delivered and not settled yet: the job keeps its agent");
  if (outcome === "LAPSED") {
    // A bounty claim whose window ran out (not a poster's reopen of a stalled job before it): the
    // agent and the poster are told, in the transaction that reopens the job.
    const lapsed = await trx
      .selectFrom("jobs")
      .select(["id", "poster_id", "agent_id", "claim_expires_at"])
      .where("id", "in", jobIds)
      .where("participation_mode", "=", "BOUNTY")
      .where("agent_id", "is not", null)
      .where("claim_expires_at", "<=", now)
      .execute();
    for (const job of lapsed) {
      await publishEvent(trx, {
        type: "claim.lapsed",
        jobId: job.id,
        to: await jobRecipients(trx, job),
        data: { jobId: job.id, agentId: job.agent_id, claimExpiresAt: job.claim_expires_at?.toISOString() ?? null },
      });
    }
  }
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
      progress: null,
      progress_note: null,
      last_heartbeat_at: null,
      // Work sent back for changes and then abandoned: the next agent starts from no delivery.
      submitted_at: null,
      proof_hash: null,
      revision_count: 0,
      change_request_message: null,
      changes_requested_at: null,
      updated_at: now,
    })
    .where("id", "in", jobIds)
    .execute();
  await trx
    .updateTable("job_claims")
    .set({ ended_at: now, outcome })
    .where("job_id", "in", jobIds)
    .where("ended_at", "is", null)
    .execute();
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
      // isClaimLapsed's rule: a part in flight keeps the claim.
      .where("parts_in_flight", "=", 0)
      .where("claim_expires_at", "is not", null)
      .where("claim_expires_at", "<=", now);
    if (options.jobId) q = q.where("id", "=", options.jobId);
    if (options.agentId) q = q.where("agent_id", "=", options.agentId);
    const rows = await q
      .orderBy("claim_expires_at")
      .limit(options.limit ?? 100)
      .forUpdate()
      .skipLocked()
      .execute();
    const ids = rows.map((r) => r.id);
    await reopenClaimedJobs(trx, ids, now, "LAPSED");
    return ids;
  });
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

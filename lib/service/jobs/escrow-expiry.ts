import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import { ESCROW_V2_EXPIRY_BOUNDS_SECONDS, MINING_SLACK_SECONDS } from "@/lib/chain/escrow/contracts";
import { SETTLE_MARGIN_SECONDS } from "@/lib/chain/escrow/slot-v2";
import type { ServiceConfig } from "../config";
import type { Db } from "../db/connection";
import type { JobRow } from "../db/schema";
import { fail } from "../errors";
import { proofHoldHoursOf } from "./read-job";

/**
 * How long a job's money must stay in EscrowV2 (docs/escrow-v2.md, step 2). A version 2 slot has an
 * expiry chosen at deposit; from then on anyone may return its money to the payer (claimRefund), and
 * the service settles nothing. So the service chooses it: the job's deadline (for a job paid in
 * parts, the latest part's; without one, the creation plus DEFAULT_WORKING_DAYS), then the proof
 * hold, the review window, the dispute's answer and ruling windows, and a day's margin. That is the
 * job's escrow_expiry_needed_at (migration 0136), written whenever one of them changes
 * (recordEscrowExpiryNeeded); the fund page and agents funding by API deposit with it
 * (Job.escrowExpiryNeededAt), moved into the contract's bounds [1 day, 400 days] from the deposit
 * (lib/chain/escrow/contracts.ts, depositExpiresAt).
 *
 * A registered deposit whose expiry comes before it (a payer who chose its own, or a deadline moved
 * later since) is kept: the job is funded, but takes no bid and accepts none (409
 * ESCROW_EXPIRY_TOO_SHORT) until the payer calls extendExpiry on chain and the service reads the
 * slot again (POST /v1/jobs/:id/escrow/expiry); otherwise an agent could do work whose pay goes
 * back to the poster before it is approved. Version 1 slots never expire: nothing is asked of them.
 */

/** A job without a deadline is given this long to be done, from its creation. */
export const DEFAULT_WORKING_DAYS = 30;
/** Beyond the windows, for a settlement sent late (retries, an outage). */
const MARGIN_HOURS = 24;
const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
/** The contract's longest expiry, from the deposit's block (EscrowV2 MAX_EXPIRY_DELAY). */
const MAX_EXPIRY_MS = ESCROW_V2_EXPIRY_BOUNDS_SECONDS.max * 1000;
/**
 * A job whose deadline lies further than the contract allows is covered by a deposit reaching this
 * close to the 400 days from its funding (the rest is extended later, as the poster is warned):
 * the page computed the capped expiry a little before the deposit was mined and registered.
 */
const CAP_SLACK_MS = DAY_MS;

type Windows = Pick<ServiceConfig, "reviewWindowHours" | "disputeAnswerHours" | "disputeRulingHours">;

/** The expiry a job's escrow must reach: the formula above, from the job's dates and its parts' deadlines. */
export function escrowExpiryNeeded(
  config: Windows,
  job: Pick<JobRow, "created_at" | "deadline_at" | "input_data">,
  partDeadlines: readonly (Date | null | undefined)[] = [],
): Date {
  const parts = partDeadlines.filter((d): d is Date => d instanceof Date).map((d) => d.getTime());
  const workDoneBy =
    parts.length > 0
      ? Math.max(...parts)
      : (job.deadline_at?.getTime() ?? job.created_at.getTime() + DEFAULT_WORKING_DAYS * DAY_MS);
  const hours =
    proofHoldHoursOf(job) +
    config.reviewWindowHours +
    config.disputeAnswerHours +
    config.disputeRulingHours +
    MARGIN_HOURS;
  // Whole seconds, rounded up: the contract takes unix seconds, and the value passed must still cover the need.
  return new Date(Math.ceil((workDoneBy + hours * HOUR_MS) / 1000) * 1000);
}

/** The expiry the job would need with `plan` as its parts (a bid's proposed plan, which becomes the job's at acceptance). */
export function escrowExpiryNeededForPlan(
  config: Windows,
  job: Pick<JobRow, "created_at" | "deadline_at" | "input_data">,
  plan: readonly { deadlineAt?: string | null }[],
): Date {
  return escrowExpiryNeeded(
    config,
    job,
    plan.map((part) => (part.deadlineAt ? new Date(part.deadlineAt) : null)),
  );
}

/** Writes the job's escrow_expiry_needed_at again from its current deadline, proof hold and parts (after an edit or a new plan). */
export async function recordEscrowExpiryNeeded(db: Db, config: Windows, jobId: string): Promise<Date> {
  const job = await db
    .selectFrom("jobs")
    .select(["created_at", "deadline_at", "input_data"])
    .where("id", "=", jobId)
    .executeTakeFirstOrThrow();
  const parts = await db.selectFrom("job_milestones").select("deadline_at").where("job_id", "=", jobId).execute();
  const needed = escrowExpiryNeeded(
    config,
    job,
    parts.map((p) => p.deadline_at),
  );
  await db.updateTable("jobs").set({ escrow_expiry_needed_at: needed }).where("id", "=", jobId).execute();
  return needed;
}

/**
 * Why this service's windows cannot be covered by the expiry it hands out for an EscrowV2 deposit,
 * or [] when they can; asked at startup (app.ts refuses to start otherwise). The shortest lead it
 * gives is a job due as soon as the service allows (JOB_LIMITS.deadlineMinLeadMinutes) with the
 * longest proof hold, funded at once: its expiry must reach the deadline plus the proof hold
 * maximum, the review window, the dispute's answer and ruling windows and the margin, and the
 * contract takes at most 400 days from the deposit (less the mining slack). Past that, a slot could
 * return to the payer by claimRefund while a review or a ruling is still running. The margin must
 * also outlast the time before the expiry in which no settlement is sent (SETTLE_MARGIN_SECONDS).
 */
export function escrowWindowProblems(config: Windows): string[] {
  const problems: string[] = [];
  for (const key of ["reviewWindowHours", "disputeAnswerHours", "disputeRulingHours"] as const)
    if (!Number.isFinite(config[key]) || config[key] < 0)
      problems.push(`${key} is ${config[key]}, not a number of hours`);
  if (problems.length) return problems;
  const windowsHours =
    JOB_LIMITS.proofHoldHoursMax +
    config.reviewWindowHours +
    config.disputeAnswerHours +
    config.disputeRulingHours +
    MARGIN_HOURS;
  const longestMs = ESCROW_V2_EXPIRY_BOUNDS_SECONDS.max * 1000 - MINING_SLACK_SECONDS * 1000;
  const neededMs = JOB_LIMITS.deadlineMinLeadMinutes * 60_000 + windowsHours * HOUR_MS;
  if (neededMs > longestMs)
    problems.push(
      `the escrow windows do not fit the longest expiry EscrowV2 takes: a job due in ${JOB_LIMITS.deadlineMinLeadMinutes} minutes needs its deposit to last ` +
        `${JOB_LIMITS.deadlineMinLeadMinutes / 60} h + proof hold max ${JOB_LIMITS.proofHoldHoursMax} h + review ${config.reviewWindowHours} h + ` +
        `dispute answer ${config.disputeAnswerHours} h (DISPUTE_ANSWER_HOURS) + dispute ruling ${config.disputeRulingHours} h (DISPUTE_RULING_HOURS) + margin ${MARGIN_HOURS} h = ` +
        `${(neededMs / HOUR_MS).toFixed(0)} h, and the contract takes at most ${(longestMs / HOUR_MS).toFixed(0)} h (400 days less an hour to mine): shorten the windows`,
    );
  if (MARGIN_HOURS * 3600 <= Number(SETTLE_MARGIN_SECONDS))
    problems.push(
      `the expiry margin (${MARGIN_HOURS} h) must outlast the no-settlement time before the expiry (${SETTLE_MARGIN_SECONDS} s)`,
    );
  return problems;
}

/** Refuses to start (throws) when escrowWindowProblems finds any: a clear message, before any request is answered. */
export function assertEscrowWindowsFit(config: Windows): void {
  const problems = escrowWindowProblems(config);
  if (problems.length) throw new Error(`the service refuses to start: ${problems.join("; ")}`);
}

/** The job's columns the rules below read (with created_at, deadline_at and input_data for a plan's need). */
export const EXPIRY_COLUMNS = [
  "escrow_version",
  "escrow_expires_at",
  "escrow_expiry_needed_at",
  "funded_at",
  "created_at",
  "input_data",
] as const;
type ExpiryFields = Pick<JobRow, "escrow_version" | "escrow_expires_at" | "escrow_expiry_needed_at" | "funded_at">;

/**
 * The expiry the job's slot must reach, as far as the contract allows: past 400 days from the
 * funding it cannot, and the deposit is taken as covering the job (it is extended later).
 */
function coverNeeded(job: ExpiryFields, neededAt: Date | null = job.escrow_expiry_needed_at): Date | null {
  const fundedAt = job.funded_at?.getTime();
  if (neededAt === null || fundedAt === undefined) return neededAt;
  return new Date(Math.min(neededAt.getTime(), fundedAt + MAX_EXPIRY_MS - CAP_SLACK_MS));
}

/** Whether the job's EscrowV2 slot expires before the job needs it to (false for version 1 and unfunded jobs). */
export function escrowExtensionNeeded(job: ExpiryFields, neededAt?: Date): boolean {
  if (job.escrow_version !== 2 || job.escrow_expires_at === null) return false;
  const needed = coverNeeded(job, neededAt);
  return needed !== null && job.escrow_expires_at.getTime() < needed.getTime();
}

/**
 * Refuses (409 ESCROW_EXPIRY_TOO_SHORT) a bid or an acceptance on a job whose EscrowV2 slot expires
 * before the job needs it: `neededAt` when the step itself changes the need (an accepted bid's plan
 * of parts), else the job's own.
 */
export function assertEscrowExpiryCovers(job: ExpiryFields, neededAt?: Date): void {
  if (!escrowExtensionNeeded(job, neededAt)) return;
  const needed = coverNeeded(job, neededAt)!;
  throw fail(
    "ESCROW_EXPIRY_TOO_SHORT",
    `the job's escrow expires at ${job.escrow_expires_at!.toISOString()}, before ${needed.toISOString()}, when the job may still need its money (deadline, proof hold, review and dispute windows); the payer extends it on chain (extendExpiry(jobId, ${Math.ceil(needed.getTime() / 1000)})) and then POST /v1/jobs/:id/escrow/expiry`,
    { escrowExpiresAt: job.escrow_expires_at!.toISOString(), escrowExpiryNeededAt: needed.toISOString() },
  );
}

import { DomainError } from "../errors";
import { sql, type Selectable } from "kysely";
import type { ServiceContext } from "../context";
import type { JobsTable } from "../db/schema";
import { approveReviewedJob, releaseApprovedJob } from "./approve-job";
import { checkDeliverable, deliverableUrlOf } from "./check-deliverable";
import { log } from "../log";
import { autoApprovalDue } from "./auto-approval";
import { FIRST_RETRY_MS, nextAttemptAt, PICK_LEASE_MS } from "../retry-backoff";

export const RECHECK_INTERVAL_MS = 15 * 60_000;
export const RECHECK_BATCH = 20;
/** Probes of one recheck batch run this many at a time. */
const RECHECK_PARALLELISM = 5;
/** A release that could not be finished is first tried again after this; the wait doubles with each attempt (retry-backoff.ts). */
export const REVIEW_RETRY_MS = FIRST_RETRY_MS;
/** An automatic approval that was refused (criteria not met, no agent wallet) is tried again after this. */
const AUTO_APPROVE_RETRY_MS = RECHECK_INTERVAL_MS;

export interface RecheckOptions {
  /** Jobs claimed per round (default 20). */
  batchSize?: number;
  /** The clock of this round (default ctx.now()). */
  now?: Date;
  /** Only these jobs: for tests on a database other suites share (without it a round takes any due job). */
  only?: string[];
}

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * One round of the review queue (interface: "rechecks artifacts every 15 minutes in batches of
 * 20"). In one transaction it claims up to `batchSize` jobs in REVIEW whose last check is older
 * than 15 minutes (`select … for update skip locked limit n`) and stamps their proof_checked_at,
 * then commits; then it probes each and records the result (trigger RECHECK). Workers on several
 * instances share the queue: a job claimed by one is locked or already stamped for the others, so
 * each due job is checked once per interval. Returns how many jobs it claimed.
 */
export async function runProofRecheckRound(ctx: ServiceContext, options: RecheckOptions = {}): Promise<number> {
  const now = options.now ?? ctx.now();
  const dueBefore = new Date(now.getTime() - RECHECK_INTERVAL_MS);
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom("jobs")
      .select(["id", "input_data", "output_data", "poster_id", "agent_id"])
      .where("status", "=", "REVIEW")
      .where((eb) => eb.or([eb("proof_checked_at", "is", null), eb("proof_checked_at", "<=", dueBefore)]));
    if (options.only) q = options.only.length > 0 ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
    const rows = await q
      .orderBy(sql`proof_checked_at asc nulls first`)
      .limit(options.batchSize ?? RECHECK_BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length > 0) {
      await trx
        .updateTable("jobs")
        .set({ proof_checked_at: now })
        .where(
          "id",
          "in",
          rows.map((r) => r.id),
        )
        .execute();
    }
    return rows;
  });
  await eachLimited(claimed, RECHECK_PARALLELISM, async (job) => {
    const url = deliverableUrlOf(job);
    if (!url) return;
    try {
      await checkDeliverable(ctx, job, url, "RECHECK", options.now ? { now: options.now } : {});
    } catch (error) {
      log.warn({ jobId: job.id, reason: (error as Error).message }, "proof re-check failed");
    }
  });
  return claimed.length;
}

export interface ReviewRoundOptions {
  /** Jobs per kind of work per round (default 20). */
  batchSize?: number;
  /**
   * Only these jobs. For tests that move the clock on a database other suites share: without it
   * a round acts on every due job.
   */
  only?: string[];
}

export interface ReviewRound {
  released: number;
  held: number;
  autoApproved: number;
}

type JobRowSel = Selectable<JobsTable>;

/**
 * Claims due jobs for one kind of review work, like the recheck queue: FOR UPDATE SKIP LOCKED and
 * a stamp (review_attempted_at) in the same transaction, so instances share the work and a job
 * that could not be finished waits `retryMs` before it is tried again.
 */
async function claimDue(
  ctx: ServiceContext,
  now: Date,
  options: ReviewRoundOptions,
  retryMs: number,
  due: (q: ReturnType<typeof baseQuery>) => ReturnType<typeof baseQuery>,
): Promise<JobRowSel[]> {
  const retryBefore = new Date(now.getTime() - retryMs);
  return ctx.db.transaction().execute(async (trx) => {
    let q = due(baseQuery(trx)).where((eb) =>
      eb.or([eb("review_attempted_at", "is", null), eb("review_attempted_at", "<=", retryBefore)]),
    );
    if (options.only) q = options.only.length > 0 ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
    const rows = await q
      .orderBy(sql`review_attempted_at asc nulls first`)
      .limit(options.batchSize ?? 20)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length > 0)
      await trx
        .updateTable("jobs")
        .set({ review_attempted_at: now })
        .where(
          "id",
          "in",
          rows.map((r) => r.id),
        )
        .execute();
    return rows;
  });
}

function baseQuery(db: ServiceContext["db"]) {
  return db.selectFrom("jobs").selectAll();
}

/**
 * Claims approved jobs whose proof hold has ended, for release: a lease (release_next_at, with FOR
 * UPDATE SKIP LOCKED, in one transaction) so instances share them; jobs never tried first, then held
 * ones whose backoff ran out (retry-backoff.ts), so held jobs never starve due ones.
 */
async function claimDueReleases(ctx: ServiceContext, now: Date, options: ReviewRoundOptions): Promise<JobRowSel[]> {
  return ctx.db.transaction().execute(async (trx) => {
    let q = baseQuery(trx)
      .where("status", "=", "REVIEW")
      .where("approved_at", "is not", null)
      .where("release_at", "<=", now)
      .where((eb) => eb.or([eb("release_next_at", "is", null), eb("release_next_at", "<=", now)]));
    if (options.only) q = options.only.length > 0 ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
    const rows = await q
      .orderBy(sql`release_next_at asc nulls first`)
      .orderBy("release_at")
      .limit(options.batchSize ?? 20)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length > 0)
      await trx
        .updateTable("jobs")
        .set({
          release_next_at: new Date(now.getTime() + PICK_LEASE_MS),
          release_attempts: sql`release_attempts + 1`,
          review_attempted_at: now,
        })
        .where(
          "id",
          "in",
          rows.map((r) => r.id),
        )
        .execute();
    return rows;
  });
}

/**
 * A release that did not go through waits longer after each attempt; its reason is on the job
 * already (releaseHeldReason, written by the release), and the parties read there when it is tried next.
 */
async function backOffRelease(ctx: ServiceContext, job: JobRowSel, now: Date) {
  const next = nextAttemptAt(now, job.release_attempts + 1);
  await ctx.db
    .updateTable("jobs")
    .set({
      release_next_at: next,
      release_held_reason: sql<
        string | null
      >`case when release_held_reason is null then null else left(release_held_reason, 900) || ${` Next attempt after ${next.toISOString()}.`} end`,
    })
    .where("id", "=", job.id)
    .where("status", "=", "REVIEW")
    .execute();
}

/**
 * One round of the review worker, so that no money waits forever:
 * - releases approved jobs whose proof hold has ended (releaseAt), after a fresh check at release;
 *   a failing check holds the money, records the reason on the job and is retried next round;
 * - approves automatically (autoApproved) a job in REVIEW the poster left alone for
 *   ServiceConfig.reviewWindowHours (72 h) after its hold ended, when its deliverable is LIVE (the
 *   approval runs its own fresh check and the acceptance criteria, then releases).
 * A DISPUTED job is never settled here: only its arbiter's ruling moves its money
 * (disputes/rule-dispute.ts), and a case nobody rules on escalates to the operator
 * (disputes/escalate-disputes.ts) instead of being refunded by default.
 */
export async function runReleaseAndTimeouts(
  ctx: ServiceContext,
  options: ReviewRoundOptions = {},
): Promise<ReviewRound> {
  const now = ctx.now();
  const round: ReviewRound = { released: 0, held: 0, autoApproved: 0 };

  const releases = await claimDueReleases(ctx, now, options);
  for (const job of releases) {
    try {
      const outcome = await releaseApprovedJob(ctx, job.id);
      if (outcome === "RELEASED") round.released += 1;
      else if (outcome !== "NOT_DUE") {
        round.held += 1;
        await backOffRelease(ctx, job, now);
      }
    } catch (error) {
      round.held += 1;
      log.warn({ jobId: job.id, reason: (error as Error).message }, "release after review failed");
      await backOffRelease(ctx, job, now);
    }
  }

  const windowHours = ctx.config.reviewWindowHours;
  const stale = await claimDue(ctx, now, options, AUTO_APPROVE_RETRY_MS, (q) =>
    q
      .where("status", "=", "REVIEW")
      .where("approved_at", "is", null)
      .where("proof_check_status", "=", "LIVE")
      .where("submitted_at", "is not", null)
      .where(autoApprovalDue("jobs.submitted_at", windowHours, now)),
  );
  for (const job of stale) {
    try {
      await approveReviewedJob(ctx, job.id, { automatic: true });
      round.autoApproved += 1;
    } catch (error) {
      const text = error instanceof DomainError ? `${error.code}: ${error.message}` : (error as Error).message;
      log.warn({ jobId: job.id, reason: text }, "automatic approval failed");
    }
  }

  return round;
}

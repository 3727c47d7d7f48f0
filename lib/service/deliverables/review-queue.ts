import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { settleJob } from "../escrow/settle-job";
import { approveJob, releaseIfDue } from "./approve-job";
import { checkDeliverable } from "./check-deliverable";

export const RECHECK_INTERVAL_MS = 15 * 60_000;
export const RECHECK_BATCH = 20;
/** A poster who does not act is taken to accept LIVE work this long after the hold ends. */
export const AUTO_APPROVE_AFTER_HOLD_MS = 72 * 3600_000;
/** A dispute nobody resolves is refunded to the poster after this long. */
export const DISPUTE_TIMEOUT_MS = 14 * 24 * 3600_000;

/**
 * One round of the review queue: claims up to `batchSize` jobs in REVIEW not checked for 15
 * minutes, with FOR UPDATE SKIP LOCKED, and stamps them in the same transaction, so that several
 * workers (on several instances) share the work and no job is checked twice in a round.
 */
export async function runProofRecheckRound(ctx: ServiceContext, options: { batchSize?: number } = {}): Promise<number> {
  const dueBefore = new Date(ctx.now().getTime() - RECHECK_INTERVAL_MS);
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom("jobs")
      .select(["id", "input_data", "output_data"])
      .where("status", "=", "REVIEW")
      .where((eb) => eb.or([eb("proof_checked_at", "is", null), eb("proof_checked_at", "<=", dueBefore)]))
      .orderBy("proof_checked_at")
      .limit(options.batchSize ?? RECHECK_BATCH)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length > 0) {
      await trx.updateTable("jobs").set({ proof_checked_at: ctx.now() }).where("id", "in", rows.map((r) => r.id)).execute();
    }
    return rows;
  });
  for (const job of claimed) {
    const url = (job.output_data as { url?: string } | null)?.url;
    if (url) await checkDeliverable(ctx, job, url, "RECHECK");
  }
  return claimed.length;
}

/** Releases approved jobs whose hold has passed, and applies the timeouts of the money states. */
export async function runReleaseAndTimeouts(ctx: ServiceContext): Promise<void> {
  const now = ctx.now();
  const due = await ctx.db.selectFrom("jobs").select("id").where("status", "=", "REVIEW").where("approved_at", "is not", null).where("release_at", "<=", now).limit(20).execute();
  for (const job of due) await releaseIfDue(ctx, job.id).catch((e) => console.error(`[release] ${job.id}: ${(e as Error).message}`));

  const stale = await ctx.db
    .selectFrom("jobs")
    .select(["id", "poster_id"])
    .where("status", "=", "REVIEW")
    .where("approved_at", "is", null)
    .where("proof_check_status", "=", "LIVE")
    .where(sql<boolean>`submitted_at + make_interval(hours => coalesce((input_data->>'proofHoldHours')::int, 0)) + ${`${AUTO_APPROVE_AFTER_HOLD_MS / 1000} seconds`}::interval <= ${now}`)
    .limit(20)
    .execute();
  for (const job of stale) {
    const system = { kind: "USER" as const, userId: job.poster_id, principalId: job.poster_id, scopes: [], identityKey: "system" };
    await approveJob(ctx, system, job.id, { automatic: true }).catch((e) => console.error(`[auto-approve] ${job.id}: ${(e as Error).message}`));
  }

  const disputes = await ctx.db
    .selectFrom("jobs")
    .select(["id", "escrow_tx_hash"])
    .where("status", "=", "DISPUTED")
    .where("disputed_at", "<=", new Date(now.getTime() - DISPUTE_TIMEOUT_MS))
    .limit(20)
    .execute();
  for (const job of disputes) {
    await ctx.db.updateTable("jobs").set({ status: "CANCELLED", updated_at: now }).where("id", "=", job.id).where("status", "=", "DISPUTED").execute();
    if (job.escrow_tx_hash) await settleJob(ctx, job.id, "REFUND").catch((e) => console.error(`[dispute-timeout] ${job.id}: ${(e as Error).message}`));
  }
}

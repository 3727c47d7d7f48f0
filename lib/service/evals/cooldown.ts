import type { ServiceConfig } from "../config";
import type { Db as Queryable } from "../db/connection";
import { HttpError } from "../http/errors";

/**
 * Certification is earned, not brute-forced: after a failed attempt the agent waits before the
 * next one, base × 2^(failures − 1) (10 min, 20 min, 40 min, … at most 24 h by default), where
 * failures counts the agent's consecutive failed attempts at the pack. A pass resets the count
 * (it certifies, and a certified agent does not retake). The result of a failed attempt gives the
 * score and pass mark, never which answers were wrong: with the score alone, guessing a pack's key
 * by retries takes many attempts, and the growing wait makes that take days.
 */
export function cooldownSeconds(config: ServiceConfig, failureStreak: number): number {
  if (failureStreak <= 0) return 0;
  return Math.min(config.packCooldownBaseSeconds * 2 ** Math.min(failureStreak - 1, 30), config.packCooldownMaxSeconds);
}

/** When the agent may start its next attempt after this one; null unless it FAILED. */
export function retryAtOf(
  config: ServiceConfig,
  attempt: { status: string; submitted_at: Date | null; failure_streak: number | null },
): Date | null {
  if (attempt.status !== "FAILED" || !attempt.submitted_at) return null;
  return new Date(attempt.submitted_at.getTime() + cooldownSeconds(config, attempt.failure_streak ?? 1) * 1000);
}

/** The agent's latest answered attempt at the pack (the one a new failure streak continues from). */
export async function latestAnswered(db: Queryable, agentId: string, packId: string) {
  return db
    .selectFrom("eval_attempts")
    .select(["id", "status", "submitted_at", "failure_streak"])
    .where("agent_id", "=", agentId)
    .where("pack_id", "=", packId)
    .where("status", "<>", "IN_PROGRESS")
    .orderBy("submitted_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** 429 PACK_COOLDOWN (retryAt, Retry-After) while the latest failed attempt's cooldown runs. */
export async function assertNoCooldown(
  db: Queryable,
  config: ServiceConfig,
  now: Date,
  agentId: string,
  packId: string,
): Promise<void> {
  const last = await latestAnswered(db, agentId, packId);
  const retryAt = last ? retryAtOf(config, last) : null;
  if (!retryAt || retryAt.getTime() <= now.getTime()) return;
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  throw new HttpError(
    429,
    `the agent failed this pack ${last!.failure_streak ?? 1} time(s) in a row; the next attempt may start at ${retryAt.toISOString()} (the wait doubles with each failed attempt)`,
    "PACK_COOLDOWN",
    { retryAt: retryAt.toISOString(), retryAfter: seconds, failedAttempts: last!.failure_streak ?? 1 },
    { "retry-after": String(seconds) },
  );
}

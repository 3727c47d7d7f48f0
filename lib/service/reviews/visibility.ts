import { sql, type RawBuilder } from "kysely";
import { RECORD_LIMITS } from "@/lib/api/schemas/records";

/**
 * The one rule of when a review is public: once the other side of the job has written its own, or
 * RECORD_LIMITS.revealAfterDays after it was written, whichever comes first. Neither side can read
 * the other's review before writing its own, so neither answers the other (no retaliation), and a
 * side that never writes cannot hold the other's review back for ever. `alias` is the job_reviews
 * alias of the query.
 */
export function reviewIsVisible(alias: string, now: Date): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.created_at`)} <= ${revealCutoff(now)} or exists (
    select 1 from job_reviews other where other.job_id = ${sql.ref(`${alias}.job_id`)} and other.author_side <> ${sql.ref(`${alias}.author_side`)}
  ))`;
}

function revealCutoff(now: Date): Date {
  return new Date(now.getTime() - RECORD_LIMITS.revealAfterDays * 86_400_000);
}

/** When a review becomes public: the other side's writing, or the reveal delay, whichever is first. */
export function visibleFrom(createdAt: Date, otherCreatedAt: Date | null): Date {
  const byDelay = new Date(createdAt.getTime() + RECORD_LIMITS.revealAfterDays * 86_400_000);
  if (!otherCreatedAt) return byDelay;
  const byOther = new Date(Math.max(createdAt.getTime(), otherCreatedAt.getTime()));
  return byOther < byDelay ? byOther : byDelay;
}

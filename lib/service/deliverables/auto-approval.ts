import { sql } from "kysely";
import { PROOF_HOLD_SQL } from "../jobs/read-job";

/**
 * No money waits forever: a delivery (a whole job's or one part's) that its poster neither approved
 * nor disputed is approved automatically once its proof hold (inputData.proofHoldHours, PROOF_HOLD_SQL)
 * and then ServiceConfig.reviewWindowHours have passed since it was submitted. The one home of the
 * rule, as a condition over the delivery's submitted_at in a query that reads `jobs` (unaliased), for
 * the review worker (whole jobs, review-queue.ts) and the release worker for parts
 * (milestones/milestone-actions.ts).
 */
export function autoApprovalDue(submittedAt: string, windowHours: number, now: Date) {
  return sql<boolean>`${sql.ref(submittedAt)} + make_interval(hours => ${PROOF_HOLD_SQL} + ${windowHours}::int) <= ${now}::timestamptz`;
}

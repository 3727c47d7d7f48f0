import { sql } from "kysely";

/**
 * No money waits forever: a delivery (a whole job's or one part's) that its poster neither approved
 * nor disputed is approved automatically once its proof hold (inputData.proofHoldHours) and then
 * ServiceConfig.reviewWindowHours have passed since it was submitted. The one home of the rule, as a
 * condition over the delivery's submitted_at and its job's input_data, for the review worker (whole
 * jobs, review-queue.ts) and the release worker for parts (milestones/milestone-actions.ts).
 */
export function autoApprovalDue(submittedAt: string, inputData: string, windowHours: number, now: Date) {
  return sql<boolean>`${sql.ref(submittedAt)} + make_interval(hours => coalesce((${sql.ref(inputData)}->>'proofHoldHours')::int, 0) + ${windowHours}::int) <= ${now}::timestamptz`;
}

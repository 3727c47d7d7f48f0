import { fail } from "../errors";
import type { Actor } from "../auth/actor";
import { isOperator } from "../auth/operator";
import type { ServiceContext } from "../context";
import type { DisputeCasesTable, DisputeSide } from "../db/schema";
import type { Selectable } from "kysely";
import { isJobEvaluator, jobRoleOf, type JobPartiesRow } from "../jobs/job-viewer";

export type DisputeCaseRow = Selectable<DisputeCasesTable>;

/**
 * Who the caller is to a dispute case, the one home of that question: a side (the poster's, or
 * the assigned agent's, each with the humans who own them), the evaluator the poster named, the
 * operator. The case is read by all of them; statements come from the sides; the ruling from the
 * arbiter of the moment (arbiterOf), who must not be a party.
 */
export interface CaseAccess {
  side: DisputeSide | null;
  evaluator: boolean;
  operator: boolean;
}

export async function caseAccessOf(
  ctx: ServiceContext,
  actor: Actor | null,
  job: JobPartiesRow,
  kase: Pick<DisputeCaseRow, "evaluator_address">,
): Promise<CaseAccess> {
  const role = jobRoleOf(actor, job);
  const side: DisputeSide | null =
    role === "POSTER" || role === "OWNER_OF_POSTER"
      ? "POSTER"
      : role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT"
        ? "AGENT"
        : null;
  return {
    side,
    evaluator: await isJobEvaluator(ctx, actor, kase.evaluator_address),
    operator: await isOperator(ctx, actor),
  };
}

/**
 * Who decides the case now: the evaluator named on the job while the case is OPEN; the operator
 * when no evaluator was named, or once the case escalated (nobody ruled by its deadline).
 */
export function arbiterOf(
  kase: Pick<DisputeCaseRow, "evaluator_address" | "status" | "escalated_at">,
): "EVALUATOR" | "OPERATOR" {
  return kase.evaluator_address && kase.escalated_at === null ? "EVALUATOR" : "OPERATOR";
}

/** May this caller rule on the case now? Never a party (a poster who named itself, an owner of both sides). */
export function canRule(
  access: CaseAccess,
  kase: Pick<DisputeCaseRow, "evaluator_address" | "status" | "escalated_at">,
): boolean {
  if (kase.status === "RULED" || access.side !== null) return false;
  return arbiterOf(kase) === "EVALUATOR" ? access.evaluator : access.operator;
}

export function requireCaseReader(access: CaseAccess): void {
  if (access.side === null && !access.evaluator && !access.operator) {
    throw fail("FORBIDDEN", "a dispute is read by its parties, the job's evaluator and the operator only");
  }
}

export async function getCaseRowOrThrow(ctx: ServiceContext, jobId: string): Promise<DisputeCaseRow> {
  const kase = await ctx.db.selectFrom("dispute_cases").selectAll().where("job_id", "=", jobId).executeTakeFirst();
  if (!kase) throw fail("NOT_FOUND", "dispute not found");
  return kase;
}

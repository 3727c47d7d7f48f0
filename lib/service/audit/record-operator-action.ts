import type { Db } from "../db/connection";
import type { ServiceContext } from "../context";
import { requireOperator } from "../auth/operator";
import type { Actor } from "../auth/actor";

type DbOrTransaction = Pick<Db, "insertInto" | "selectFrom">;

export interface OperatorAction {
  /** A verb-noun name of what was done: "agent.suspend", "post.hide", "dispute.rule", "pack.approve", … */
  action: string;
  subjectType: string;
  subjectId: string;
  /** Why: required, shown in the console and (where it concerns them) to the people affected. */
  reason: string;
  details?: Record<string, unknown>;
}

/**
 * Writes one line of the operator's audit log (who, what, on what, why, when), in the caller's
 * transaction so that an action and its record commit together. Every operator action goes
 * through here; the console's audit page reads operator_actions.
 */
export async function recordOperatorAction(
  db: DbOrTransaction,
  operator: { userId: string },
  action: OperatorAction,
): Promise<void> {
  const user = await db
    .selectFrom("users")
    .select("address")
    .where("id", "=", operator.userId)
    .executeTakeFirstOrThrow();
  await db
    .insertInto("operator_actions")
    .values({
      operator_user_id: operator.userId,
      operator_address: user.address.toLowerCase(),
      action: action.action,
      subject_type: action.subjectType,
      subject_id: action.subjectId,
      reason: action.reason,
      details: JSON.stringify(action.details ?? {}),
    })
    .execute();
}

/**
 * The usual shape of an operator action: check the caller is the operator, then run the change and
 * its audit line in one transaction.
 */
export async function asOperator<T>(
  ctx: ServiceContext,
  actor: Actor | null,
  action: OperatorAction,
  change: (trx: Db, operator: Extract<Actor, { kind: "USER" }>) => Promise<T>,
): Promise<T> {
  const operator = await requireOperator(ctx, actor);
  return ctx.db.transaction().execute(async (trx) => {
    const result = await change(trx as unknown as Db, operator);
    await recordOperatorAction(trx, operator, action);
    return result;
  });
}

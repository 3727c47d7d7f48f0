import { fail } from "../errors";
import type { Db } from "../db/connection";

type Queryable = Pick<Db, "selectFrom">;

/**
 * The one home of "is this agent (or person) suspended": the operator suspends a principal (an
 * agent's or a person's, lib/service/admin/suspend-principal.ts) and every action a suspended
 * principal may not take asks here first: bids, bounty claims, submissions, job posting and forum
 * posts. Refused with 403 AGENT_SUSPENDED (an agent, whether its key or its owner acts for it) or
 * USER_SUSPENDED (a person), with the operator's reason.
 */
export async function assertNotSuspended(db: Queryable, principalId: string): Promise<void> {
  const row = await db
    .selectFrom("principals")
    .select(["kind", "suspended_at", "suspension_reason"])
    .where("id", "=", principalId)
    .executeTakeFirst();
  if (row) assertPrincipalNotSuspended(row);
}

/** The rule of assertNotSuspended, for a caller that read the principal's row with something else. */
export function assertPrincipalNotSuspended(row: {
  kind: string;
  suspended_at: Date | null;
  suspension_reason: string | null;
}): void {
  if (!row.suspended_at) return;
  const reason = row.suspension_reason ?? null;
  if (row.kind === "AGENT") {
    throw fail("AGENT_SUSPENDED", `the operator suspended this agent${reason ? `: ${reason}` : ""}`, {
      reason,
    });
  }
  throw fail("USER_SUSPENDED", `the operator suspended this account${reason ? `: ${reason}` : ""}`, {
    reason,
  });
}

/** For a job's assigned agent, known by agent id. */
export async function assertAgentNotSuspended(db: Queryable, agentId: string | null): Promise<void> {
  if (!agentId) return;
  const agent = await db.selectFrom("agents").select("principal_id").where("id", "=", agentId).executeTakeFirst();
  if (agent) await assertNotSuspended(db, agent.principal_id);
}

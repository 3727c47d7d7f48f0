import { fail } from "../errors";
import { sql } from "kysely";
import { ACTIVE_JOB_STATUSES } from "@/lib/api/schemas/jobs";
import type { Db } from "../db/connection";

/**
 * An agent's capacity: the jobs it holds in ACTIVE_JOB_STATUSES (IN_PROGRESS, REVIEW, DISPUTED)
 * count against its maxActiveJobs (null: no limit, 0: paused). One count serves the agent's
 * activeJobs field and the check at assignment, so what the agent shows is what is enforced.
 */
export async function countActiveJobs(db: Db, agentId: string): Promise<number> {
  const row = await db
    .selectFrom("jobs")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("agent_id", "=", agentId)
    .where("status", "in", [...ACTIVE_JOB_STATUSES])
    .executeTakeFirstOrThrow();
  return row.n;
}

/**
 * Takes one of the agent's maxActiveJobs places, or refuses (409 AGENT_AT_CAPACITY). Must run
 * inside the transaction that assigns the job, after that job's row is locked: lock order is job,
 * then agent, on every assignment path (bid acceptance, bounty claim), so they cannot deadlock.
 * The agent row lock serialises every assignment of this agent, on any instance, so concurrent
 * accepts and claims cannot overshoot the cap.
 */
export async function reserveAgentCapacity(trx: Db, agentId: string): Promise<void> {
  const agent = await trx
    .selectFrom("agents")
    .select(["id", "max_active_jobs", "status"])
    .where("id", "=", agentId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (agent.max_active_jobs === null) return;
  const n = await countActiveJobs(trx, agentId);
  if (n >= agent.max_active_jobs) {
    const why =
      agent.max_active_jobs === 0
        ? "is paused (maxActiveJobs is 0)"
        : `is at its maxActiveJobs limit (${n} of ${agent.max_active_jobs} active jobs)`;
    throw fail("AGENT_AT_CAPACITY", `agent ${agentId} ${why}; it cannot take this job now`, {
      maxActiveJobs: agent.max_active_jobs,
      activeJobs: n,
    });
  }
}

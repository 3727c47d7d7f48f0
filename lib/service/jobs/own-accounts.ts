import { sql } from "kysely";
import type { JobWithRelations } from "./read-job";

/**
 * "A job between one person's own accounts": the human who posted it (or who owns the posting agent)
 * also owns the agent that works it. Paying oneself costs only the fee, so such a job earns no review
 * (reviews/write-review.ts) and counts for neither side's track record (records/compute-records.ts):
 * a record cannot be built by moving one's own money around.
 */
export function isBetweenOwnAccounts(
  job: Pick<JobWithRelations, "poster_id" | "poster_owner_user_id" | "agent_owner_user_id">,
): boolean {
  const posterHuman = job.poster_owner_user_id ?? job.poster_id;
  return job.agent_owner_user_id !== null && job.agent_owner_user_id === posterHuman;
}

/** The same rule inside a query over jobs as `j`. */
export const BETWEEN_OWN_ACCOUNTS = sql<boolean>`exists (
  select 1 from agents worker
  where worker.id = j.agent_id
    and worker.owner_user_id = coalesce((select poster_agent.owner_user_id from agents poster_agent where poster_agent.principal_id = j.poster_id), j.poster_id)
)`;

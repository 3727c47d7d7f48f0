import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { getAgentRowOrThrow } from "./present-agent";
import { actsForAgent } from "../auth/acting-for-agent";
import { presentJob } from "../jobs/present-job";
import { lapseExpiredClaims, selectJobs } from "../jobs/read-job";

/** The agent's assigned work, active and past, for its own key or its owner. */
export async function listAgentJobs(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  query: { status?: string; limit?: number; cursor?: string },
) {
  const agent = await getAgentRowOrThrow(ctx, agentId);
  if (!actsForAgent(actor, agent))
    throw fail("FORBIDDEN", "an agent's assigned work is visible to its own key and its owner only");
  // Claims whose window ran out are not the agent's work any more, whether or not the worker ran yet.
  await lapseExpiredClaims(ctx, { agentId });
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = selectJobs(ctx.db).where("jobs.agent_id", "=", agentId);
  if (query.status) q = q.where("jobs.status", "=", query.status as never);
  if (after) q = q.where(keysetAfter(after, "jobs.created_at", "jobs.id", "desc"));
  const rows = await q
    .orderBy("jobs.created_at", "desc")
    .orderBy("jobs.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }));
  return { items: page.rows.map((row) => presentJob(row, actor, { detail: true })), meta: page.meta };
}

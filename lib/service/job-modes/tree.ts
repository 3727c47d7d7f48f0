import { fail } from "../errors";
import { sql } from "kysely";
import { MAX_SUBCONTRACT_DEPTH, type JobTreeNode } from "@/lib/api/schemas/job-modes";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { chainUp, NODE_COLUMNS, WALK_LIMIT, type NodeRow } from "../jobs/job-chain";
import { normaliseDecimal } from "@/lib/chain/units";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";

/**
 * Subcontracting: the agent working on a job that allows it may post child jobs
 * (POST /v1/jobs with parentJobId). parentJobId chains up to a root; a chain is at most
 * MAX_SUBCONTRACT_DEPTH deep (root 0, child 1, …), so a tree stays small enough to show whole.
 */

/** A tree answer never carries more than this many descendants. */
const MAX_DESCENDANTS = 500;

function node(row: NodeRow, depth: number): JobTreeNode {
  return {
    id: row.id,
    parentJobId: row.parent_job_id,
    depth,
    title: row.title,
    status: row.status,
    funded: row.escrow_tx_hash !== null,
    budgetUsdc: normaliseDecimal(row.budget_usdc),
    participationMode: row.participation_mode,
    posterId: row.poster_id,
    agentId: row.agent_id,
    allowSubcontracting: row.allow_subcontracting,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/**
 * GET /v1/jobs/:id/children: the job, its chain up to the root and every job below it, each with
 * status and funded. Visible to the poster and the assigned agent (or its owner) of the job or of
 * any job above it in the chain; everyone else gets 403.
 */
export async function getJobTree(ctx: ServiceContext, actor: Actor, jobId: string) {
  const chain = await chainUp(ctx, jobId);
  if (chain.length === 0) throw fail("NOT_FOUND", "job not found");
  let allowed = false;
  for (const row of chain) {
    if (row.poster_id === actor.principalId || (await isAgentOrItsOwner(ctx, actor, row.agent_id))) {
      allowed = true;
      break;
    }
  }
  if (!allowed)
    throw fail(
      "FORBIDDEN",
      "a job's subcontracting tree is visible to the poster and the assigned agent of the job or of a job above it",
    );

  const depth = chain.length - 1;
  const below = await sql<NodeRow & { level: number }>`
    with recursive tree as (
      select ${NODE_COLUMNS}, 1 as level from jobs where parent_job_id = ${jobId}::uuid
      union all
      select j.id, j.parent_job_id, j.title, j.status, j.escrow_tx_hash, j.budget_usdc::text, j.participation_mode, j.poster_id,
             j.agent_id, j.allow_subcontracting, j.created_at, t.level + 1
      from jobs j join tree t on j.parent_job_id = t.id
      where t.level < ${WALK_LIMIT}
    )
    select * from tree order by level, created_at, id limit ${MAX_DESCENDANTS + 1}`.execute(ctx.db);

  const [self, ...above] = chain;
  return {
    job: node(self!, depth),
    ancestors: above.reverse().map((row, index) => node(row, index)),
    descendants: below.rows.slice(0, MAX_DESCENDANTS).map((row) => node(row, depth + Number(row.level))),
    truncated: below.rows.length > MAX_DESCENDANTS,
    maxDepth: MAX_SUBCONTRACT_DEPTH,
  };
}

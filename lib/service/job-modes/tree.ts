import { sql } from "kysely";
import { MAX_SUBCONTRACT_DEPTH, type JobTreeNode } from "@/lib/api/schemas/job-modes";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import type { JobStatus, ParticipationMode } from "../db/schema";
import { conflict, forbidden, notFound } from "../http/errors";
import { normaliseDecimal } from "@/lib/chain/units";
import { isAgentOrItsOwner } from "../agents/acting-for-agent";

/**
 * Subcontracting: the agent working on a job that allows it may post child jobs
 * (POST /v1/jobs with parentJobId). parentJobId chains up to a root; a chain is at most
 * MAX_SUBCONTRACT_DEPTH deep (root 0, child 1, …), so a tree stays small enough to show whole.
 */

/** Guards the walk up a chain against a cycle in bad data; real chains stop at MAX_SUBCONTRACT_DEPTH. */
const WALK_LIMIT = 20;
/** A tree answer never carries more than this many descendants. */
const MAX_DESCENDANTS = 500;

interface NodeRow {
  id: string;
  parent_job_id: string | null;
  title: string;
  status: JobStatus;
  escrow_tx_hash: string | null;
  budget_usdc: string;
  participation_mode: ParticipationMode;
  poster_id: string;
  agent_id: string | null;
  allow_subcontracting: boolean;
  created_at: Date;
}

const NODE_COLUMNS = sql.raw(
  "id, parent_job_id, title, status, escrow_tx_hash, budget_usdc::text as budget_usdc, participation_mode, poster_id, agent_id, allow_subcontracting, created_at",
);

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

/** The job and the chain above it: [job, parent, grandparent, …, root]. Empty when the job does not exist. */
async function chainUp(ctx: ServiceContext, jobId: string): Promise<NodeRow[]> {
  const result = await sql<NodeRow & { up: number }>`
    with recursive chain as (
      select ${NODE_COLUMNS}, 0 as up from jobs where id = ${jobId}::uuid
      union all
      select j.id, j.parent_job_id, j.title, j.status, j.escrow_tx_hash, j.budget_usdc::text, j.participation_mode, j.poster_id,
             j.agent_id, j.allow_subcontracting, j.created_at, c.up + 1
      from jobs j join chain c on j.id = c.parent_job_id
      where c.up < ${WALK_LIMIT}
    )
    select * from chain order by up`.execute(ctx.db);
  return result.rows;
}

/** Depth of a job in its chain (a root job is 0). */
export async function subcontractDepthOf(ctx: ServiceContext, jobId: string): Promise<number> {
  const chain = await chainUp(ctx, jobId);
  if (chain.length === 0) throw notFound("job");
  return chain.length - 1;
}

/**
 * For POST /v1/jobs with parentJobId (called from createJob after its own parent checks): a child
 * would sit one level below its parent; deeper than MAX_SUBCONTRACT_DEPTH is refused with 409.
 */
export async function assertSubcontractDepth(ctx: ServiceContext, parentJobId: string): Promise<void> {
  const parentDepth = await subcontractDepthOf(ctx, parentJobId);
  if (parentDepth + 1 > MAX_SUBCONTRACT_DEPTH) {
    throw conflict(
      "SUBCONTRACT_TOO_DEEP",
      `the parent job is already at depth ${parentDepth} of a subcontracting chain; chains are at most ${MAX_SUBCONTRACT_DEPTH} deep`,
      { maxDepth: MAX_SUBCONTRACT_DEPTH },
    );
  }
}

/**
 * GET /v1/jobs/:id/children: the job, its chain up to the root and every job below it, each with
 * status and funded. Visible to the poster and the assigned agent (or its owner) of the job or of
 * any job above it in the chain; everyone else gets 403.
 */
export async function getJobTree(ctx: ServiceContext, actor: Actor, jobId: string) {
  const chain = await chainUp(ctx, jobId);
  if (chain.length === 0) throw notFound("job");
  let allowed = false;
  for (const row of chain) {
    if (row.poster_id === actor.principalId || (await isAgentOrItsOwner(ctx, actor, row.agent_id))) {
      allowed = true;
      break;
    }
  }
  if (!allowed) throw forbidden("a job's subcontracting tree is visible to the poster and the assigned agent of the job or of a job above it");

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
    data: {
      job: node(self!, depth),
      ancestors: above.reverse().map((row, index) => node(row, index)),
      descendants: below.rows.slice(0, MAX_DESCENDANTS).map((row) => node(row, depth + Number(row.level))),
      truncated: below.rows.length > MAX_DESCENDANTS,
      maxDepth: MAX_SUBCONTRACT_DEPTH,
    },
  };
}

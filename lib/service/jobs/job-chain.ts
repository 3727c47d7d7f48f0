import { fail } from "../errors";
import { sql } from "kysely";
import { MAX_SUBCONTRACT_DEPTH } from "@/lib/api/schemas/job-modes";
import type { ServiceContext } from "../context";
import type { JobStatus, ParticipationMode } from "../db/schema";

/**
 * The subcontracting chain of a job: parentJobId links up to a root. Job creation checks the depth
 * here (a chain is at most MAX_SUBCONTRACT_DEPTH deep: root 0, child 1, …) and the job tree
 * (job-modes/tree.ts) shows the chain, so both read it the same way.
 */

/** Guards the walk up a chain against a cycle in bad data; real chains stop at MAX_SUBCONTRACT_DEPTH. */
export const WALK_LIMIT = 20;
export interface NodeRow {
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

export const NODE_COLUMNS = sql.raw(
  "id, parent_job_id, title, status, escrow_tx_hash, budget_usdc::text as budget_usdc, participation_mode, poster_id, agent_id, allow_subcontracting, created_at",
);

/** The job and the chain above it: [job, parent, grandparent, …, root]. Empty when the job does not exist. */
export async function chainUp(ctx: ServiceContext, jobId: string): Promise<NodeRow[]> {
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
  if (chain.length === 0) throw fail("NOT_FOUND", "job not found");
  return chain.length - 1;
}

/**
 * For POST /v1/jobs with parentJobId (called from createJob after its own parent checks): a child
 * would sit one level below its parent; deeper than MAX_SUBCONTRACT_DEPTH is refused with 409.
 */
export async function assertSubcontractDepth(ctx: ServiceContext, parentJobId: string): Promise<void> {
  const parentDepth = await subcontractDepthOf(ctx, parentJobId);
  if (parentDepth + 1 > MAX_SUBCONTRACT_DEPTH) {
    throw fail(
      "SUBCONTRACT_TOO_DEEP",
      `the parent job is already at depth ${parentDepth} of a subcontracting chain; chains are at most ${MAX_SUBCONTRACT_DEPTH} deep`,
      { maxDepth: MAX_SUBCONTRACT_DEPTH },
    );
  }
}

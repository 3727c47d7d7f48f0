import { sql } from "kysely";
import type { z } from "zod";
import type { ListJobsQuery } from "@/lib/api/schemas/jobs";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { decodeCursor, pageOf } from "../http/pagination";
import { presentJob } from "./present-job";
import { selectJobs } from "./read-job";

const DEFAULT_LIMIT = 20;

/**
 * The board: newest first, keyset-paginated on (created_at, id) so that page 5,000 costs what page
 * 1 does. Rows are presented for the caller: its own jobs carry their private fields, others not.
 */
export async function listJobs(ctx: ServiceContext, actor: Actor | null, query: z.output<typeof ListJobsQuery>) {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const after = decodeCursor(query.cursor);
  let q = selectJobs(ctx.db);
  if (query.status) q = q.where("jobs.status", "=", query.status);
  if (query.participationMode) q = q.where("jobs.participation_mode", "=", query.participationMode);
  if (query.posterId) q = q.where("jobs.poster_id", "=", query.posterId);
  if (query.funded === true) q = q.where("jobs.escrow_tx_hash", "is not", null);
  if (query.funded === false) q = q.where("jobs.escrow_tx_hash", "is", null);
  if (query.excludeBidBy) {
    const agentId = query.excludeBidBy;
    q = q.where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("bids").select(sql`1`.as("one")).whereRef("bids.job_id", "=", "jobs.id").where("bids.agent_id", "=", agentId))),
    );
  }
  if (after) {
    q = q.where(sql<boolean>`(jobs.created_at, jobs.id) < (${new Date(after.k)}::timestamptz, ${after.id}::uuid)`);
  }
  const rows = await q.orderBy("jobs.created_at", "desc").orderBy("jobs.id", "desc").limit(limit + 1).execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }), "/v1/jobs/:id/public");
  return { data: page.rows.map((row) => presentJob(row, actor)), meta: page.meta };
}

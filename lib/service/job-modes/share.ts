import { fail } from "../errors";
import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { normaliseDecimal } from "@/lib/chain/units";
import { getJobRowWithLapse } from "../jobs/read-job";

/**
 * Sharing. A job whose isPubliclyShareable is false has no share page: both share routes answer
 * 404 JOB_NOT_SHAREABLE (distinct from NOT_FOUND, so a client can tell "no such job" from "not
 * shareable"). The job itself stays readable at /v1/jobs/:id/public as every job is.
 */

const notShareable = () => fail("JOB_NOT_SHAREABLE", "this job is not publicly shareable");

export function jobPageUrl(siteUrl: string, jobId: string): string {
  return `${siteUrl.replace(/\/$/, "")}/jobs/${jobId}`;
}

/** POST /v1/jobs/:id/share: counts one share (public; the router charges it to the caller's write budget). */
export async function shareJob(ctx: ServiceContext, jobId: string, siteUrl: string) {
  const now = ctx.now();
  // updated_at is left alone: a share is not a change of the job.
  const row = await ctx.db
    .updateTable("jobs")
    .set({ share_count: sql`share_count + 1`, last_shared_at: now })
    .where("id", "=", jobId)
    .where("is_publicly_shareable", "=", true)
    .returning(["id", "share_count", "last_shared_at"])
    .executeTakeFirst();
  if (!row) {
    const exists = await ctx.db.selectFrom("jobs").select("id").where("id", "=", jobId).executeTakeFirst();
    throw exists ? notShareable() : fail("NOT_FOUND", "job not found");
  }
  return {
    jobId: row.id,
    shareCount: row.share_count,
    lastSharedAt: (row.last_shared_at ?? now).toISOString(),
    url: jobPageUrl(siteUrl, row.id),
  };
}

/** GET /v1/jobs/:id/share-card: the share page's Open Graph and Twitter card data (public). */
export async function getShareCard(ctx: ServiceContext, jobId: string, siteUrl: string) {
  const row = await getJobRowWithLapse(ctx, jobId);
  if (!row.is_publicly_shareable) throw notShareable();
  const description = row.description.length > 200 ? `${row.description.slice(0, 199).trimEnd()}…` : row.description;
  return {
    id: row.id,
    title: row.title,
    description,
    budgetUsdc: normaliseDecimal(row.budget_usdc),
    tokenSymbol: row.token_symbol,
    funded: row.escrow_tx_hash !== null,
    status: row.status,
    participationMode: row.participation_mode,
    posterName: row.poster_display_name,
    shareCount: row.share_count,
    url: jobPageUrl(siteUrl, row.id),
  };
}

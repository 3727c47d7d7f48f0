import { sql } from "kysely";
import type { z } from "zod";
import type { Review } from "@/lib/api/schemas/records";
import type { ServiceContext } from "../context";
import { reviewIsVisible, visibleFrom } from "./visibility";

type ReviewDto = z.input<typeof Review>;

interface ReviewRow {
  id: string;
  job_id: string;
  job_title: string;
  author_side: "POSTER" | "AGENT";
  author_kind: "USER" | "AGENT";
  author_ref: string;
  author_name: string;
  subject_kind: "AGENT" | "POSTER";
  subject_id: string;
  rating: number;
  body: string;
  created_at: Date;
  other_created_at: Date | null;
}

export type ReviewFilter = { jobId: string } | { subjectKind: "AGENT" | "POSTER"; subjectId: string } | { id: string };

/**
 * Reviews with their job's title, their author's name (an agent writing for its side, or the
 * poster: a human, or an agent that posts) and when each is or becomes public. `visibleOnly`
 * applies the reveal rule (visibility.ts); without it, the caller has already decided the rows are
 * its own to read.
 */
export async function selectReviews(
  ctx: ServiceContext,
  filter: ReviewFilter,
  options: { visibleOnly: boolean; limit?: number },
): Promise<ReviewDto[]> {
  const where =
    "jobId" in filter
      ? sql`r.job_id = ${filter.jobId}`
      : "id" in filter
        ? sql`r.id = ${filter.id}`
        : sql`r.subject_kind = ${filter.subjectKind} and r.subject_id = ${filter.subjectId}`;
  const { rows } = await sql<ReviewRow>`
    select r.id, r.job_id, j.title as job_title, r.author_side, r.subject_kind, r.subject_id, r.rating, r.body, r.created_at,
           other.created_at as other_created_at,
           case when r.author_side = 'AGENT' or pa.id is not null then 'AGENT' else 'USER' end as author_kind,
           coalesce(case when r.author_side = 'AGENT' then r.author_id end, pa.id, r.author_id) as author_ref,
           coalesce(aa.name, pa.name, pp.display_name, 'unknown') as author_name
      from job_reviews r
      join jobs j on j.id = r.job_id
      left join job_reviews other on other.job_id = r.job_id and other.author_side <> r.author_side
      left join agents aa on r.author_side = 'AGENT' and aa.id = r.author_id
      left join agents pa on r.author_side = 'POSTER' and pa.principal_id::text = r.author_id
      left join principals pp on r.author_side = 'POSTER' and pp.id::text = r.author_id
     where ${where} ${options.visibleOnly ? sql`and ${reviewIsVisible("r", ctx.now())}` : sql``}
     order by r.created_at desc, r.id desc
     limit ${options.limit ?? 50}
  `.execute(ctx.db);
  return rows.map(presentReview);
}

function presentReview(row: ReviewRow): ReviewDto {
  const created = new Date(row.created_at);
  return {
    id: row.id,
    jobId: row.job_id,
    jobTitle: row.job_title,
    authorSide: row.author_side,
    author: { kind: row.author_kind, id: row.author_ref, name: row.author_name },
    subject: { kind: row.subject_kind, id: row.subject_id },
    rating: row.rating,
    body: row.body,
    createdAt: created.toISOString(),
    visibleFrom: visibleFrom(created, row.other_created_at ? new Date(row.other_created_at) : null).toISOString(),
  };
}

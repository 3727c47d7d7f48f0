import { fail } from "../errors";
import type { z } from "zod";
import type { CreateReviewRequest, JobReviews } from "@/lib/api/schemas/records";
import type { Actor } from "../auth/actor";
import type { ServiceContext } from "../context";
import { isUniqueViolation } from "../db/errors";
import { isReleasedOnChain } from "../escrow/released";
import { getJobRowOrThrow, type JobWithRelations } from "../jobs/read-job";
import { jobRoleOf } from "../jobs/job-viewer";
import { isBetweenOwnAccounts } from "../jobs/own-accounts";
import { selectReviews } from "./present-review";

type Side = "POSTER" | "AGENT";

/**
 * Which side of the job the caller writes for: the poster (its own credential, or the human who
 * owns the posting agent) reviews the agent; the assigned agent (its key, or its owner's session)
 * reviews the poster. Everyone else: none.
 */
function reviewSideOf(actor: Actor | null, job: JobWithRelations): Side | null {
  const role = jobRoleOf(actor, job);
  if (role === "POSTER" || role === "OWNER_OF_POSTER") return "POSTER";
  if (role === "ASSIGNED_AGENT" || role === "OWNER_OF_ASSIGNED_AGENT") return "AGENT";
  return null;
}

/**
 * POST /v1/jobs/:id/reviews. A rating exists only where money settled: the job's escrow must have
 * been released on chain to its agent (escrow/released.ts), so reviews cannot be bought with fresh
 * accounts and unfunded jobs. One per side per job, held by the unique (job_id, author_side).
 */
export async function writeReview(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  input: z.output<typeof CreateReviewRequest>,
) {
  const job = await getJobRowOrThrow(ctx, jobId);
  const side = reviewSideOf(actor, job);
  if (!side || job.agent_id === null)
    throw fail(
      "NOT_JOB_PARTY",
      "only the job's poster and its assigned agent (or the humans who own them) review each other",
    );
  if (isBetweenOwnAccounts(job)) {
    throw fail(
      "NOT_JOB_PARTY",
      "the poster and the agent of this job belong to the same person: a job between one's own accounts earns no review",
    );
  }
  if (!(await isReleasedOnChain(ctx.db, job.id))) {
    throw fail(
      "REVIEW_NOT_SETTLED",
      "a review needs the job's escrow released on chain to the agent; this job's money has not been released (yet)",
    );
  }
  try {
    const row = await ctx.db
      .insertInto("job_reviews")
      .values({
        job_id: job.id,
        author_side: side,
        author_id: side === "POSTER" ? job.poster_id : job.agent_id,
        written_by_user_id: actor.kind === "USER" ? actor.userId : null,
        subject_kind: side === "POSTER" ? "AGENT" : "POSTER",
        subject_id: side === "POSTER" ? job.agent_id : job.poster_id,
        rating: input.rating,
        body: input.body,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const [review] = await selectReviews(ctx, { id: row.id }, { visibleOnly: false });
    return review!;
  } catch (error) {
    if (isUniqueViolation(error))
      throw fail(
        "REVIEW_ALREADY_WRITTEN",
        `the ${side === "POSTER" ? "poster's" : "agent's"} side has already reviewed this job; each side writes one review`,
      );
    throw error;
  }
}

/** GET /v1/jobs/:id/reviews: the job's public reviews, and for a party its own (public or not) and whether it may write. */
export async function listJobReviews(
  ctx: ServiceContext,
  actor: Actor | null,
  jobId: string,
): Promise<z.input<typeof JobReviews>> {
  const job = await getJobRowOrThrow(ctx, jobId);
  const side = job.agent_id === null ? null : reviewSideOf(actor, job);
  const visible = await selectReviews(ctx, { jobId: job.id }, { visibleOnly: true });
  let mine = null;
  let otherSideWritten = false;
  let canWrite = false;
  if (side) {
    const all = await selectReviews(ctx, { jobId: job.id }, { visibleOnly: false });
    mine = all.find((r) => r.authorSide === side) ?? null;
    otherSideWritten = all.some((r) => r.authorSide !== side);
    canWrite = mine === null && !isBetweenOwnAccounts(job) && (await isReleasedOnChain(ctx.db, job.id));
  }
  return { data: visible, viewer: { side, mine, otherSideWritten, canWrite } };
}

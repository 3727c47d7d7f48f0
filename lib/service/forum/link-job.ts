import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { notAuthor } from "./edit-post";
import { markOwnActivityRead } from "./posting-rules";
import { getThreadOrThrow, presentThread, type Queryable } from "./present";

/**
 * The owner a principal answers to: a human is their own owner; an agent answers to the human who
 * claimed it, and an unclaimed agent only to itself.
 */
async function ownerOf(db: Queryable, principalId: string): Promise<string> {
  const agent = await db
    .selectFrom("agents")
    .select("owner_user_id")
    .where("principal_id", "=", principalId)
    .executeTakeFirst();
  return agent?.owner_user_id ?? principalId;
}

/**
 * PUT /v1/forum/threads/:id/job {jobId}: the thread's author attaches a hiring job. The job must
 * belong to the same owner: posted by the author, or by the author's owner, or by another agent of
 * that owner (a human author may likewise link a job posted by one of their agents). Linking sets
 * linkedJobId, contextJobId and jobContextKind HIRING; it never touches escrow, so an unfunded job
 * stays unfunded. The job, if it names no source discussion yet, names this thread.
 * Locks: the job row first, then the thread (the service's lock order).
 */
export async function linkJob(ctx: ServiceContext, actor: Actor, threadId: string, jobId: string, siteUrl: string) {
  const thread = await getThreadOrThrow(ctx, threadId);
  if (thread.author_principal_id !== actor.principalId) throw notAuthor("link a job to this thread");
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom("jobs")
      .select(["id", "poster_id", "status", "source_forum_thread_id"])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!job) throw fail("NOT_FOUND", "job not found");
    if ((await ownerOf(trx, job.poster_id)) !== (await ownerOf(trx, thread.author_principal_id))) {
      throw fail("JOB_OWNER_MISMATCH", "the job must belong to the same owner as the thread's author");
    }
    if (job.status === "CANCELLED" || job.status === "COMPLETED") {
      throw fail("JOB_NOT_OPEN", `the job is ${job.status}; link a job that is still open`);
    }
    const updated = await trx
      .updateTable("forum_threads")
      .set({ linked_job_id: job.id, context_job_id: job.id, job_context_kind: "HIRING", last_activity_at: now })
      .where("id", "=", thread.id)
      .where("status", "=", "VISIBLE")
      .returning("id")
      .executeTakeFirst();
    if (!updated) throw fail("NOT_FOUND", "thread not found");
    if (!job.source_forum_thread_id) {
      await trx
        .updateTable("jobs")
        .set({ source_forum_thread_id: thread.id, updated_at: now })
        .where("id", "=", job.id)
        .execute();
    }
    await markOwnActivityRead(trx, actor.principalId, thread.id, now);
  });
  return presentThread(await getThreadOrThrow(ctx, thread.id), siteUrl);
}

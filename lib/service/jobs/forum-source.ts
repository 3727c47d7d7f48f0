import { fail } from "../errors";
import type { ServiceContext } from "../context";

/**
 * POST /v1/jobs with sourceForumThreadId / sourceForumReplyId: the job came out of a forum
 * discussion. Both must name visible forum posts, and a reply must belong to the named thread; a
 * reply alone implies its thread. (Linking a thread to a job from the forum side,
 * PUT /v1/forum/threads/:id/job, belongs to the forum domain.)
 */
export async function resolveForumSource(
  ctx: ServiceContext,
  input: { sourceForumThreadId?: string; sourceForumReplyId?: string },
): Promise<{ threadId: string | null; replyId: string | null }> {
  let threadId = input.sourceForumThreadId ?? null;
  const replyId = input.sourceForumReplyId ?? null;
  if (replyId) {
    const reply = await ctx.db
      .selectFrom("forum_replies")
      .select(["id", "thread_id", "status"])
      .where("id", "=", replyId)
      .executeTakeFirst();
    if (!reply || reply.status !== "VISIBLE") throw fail("NOT_FOUND", "source forum reply not found");
    if (threadId && reply.thread_id !== threadId)
      throw fail("VALIDATION_FAILED", ["sourceForumReplyId must be a reply in sourceForumThreadId"]);
    threadId = reply.thread_id;
  }
  if (threadId) {
    const thread = await ctx.db
      .selectFrom("forum_threads")
      .select(["id", "status"])
      .where("id", "=", threadId)
      .executeTakeFirst();
    if (!thread || thread.status !== "VISIBLE") throw fail("NOT_FOUND", "source forum thread not found");
  }
  return { threadId, replyId };
}

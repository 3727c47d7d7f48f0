import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { notFound } from "../http/errors";
import { notAuthor } from "./edit-post";
import { getReplyOrThrow, getThreadOrThrow } from "./present";
import { notifyContributionRemoved } from "./publish-hooks";
import { recountThreadReplies } from "./recount-thread";

/**
 * DELETE /v1/forum/threads/:id: a soft delete by the author. The row stays (status DELETED) for
 * the record, votes and rewards; every read treats the thread and its replies as gone.
 */
export async function deleteThread(ctx: ServiceContext, actor: Actor, id: string) {
  const thread = await getThreadOrThrow(ctx, id);
  if (thread.author_principal_id !== actor.principalId) throw notAuthor("delete this thread");
  const deleted = await ctx.db
    .updateTable("forum_threads")
    .set({ status: "DELETED" })
    .where("id", "=", thread.id)
    .where("status", "=", "VISIBLE")
    .returning("id")
    .executeTakeFirst();
  // Two deletes at once: the second finds nothing to delete, as if it came later.
  if (!deleted) throw notFound("thread");
  await notifyContributionRemoved(ctx, { kind: "THREAD", id: thread.id, threadId: thread.id, authorPrincipalId: thread.author_principal_id });
  return { data: { id: thread.id, status: "DELETED" as const } };
}

/**
 * DELETE /v1/forum/replies/:id: a soft delete by the author. In the same transaction, with the
 * thread row locked, the thread's replyCount and lastReplyAt are recounted from its visible replies
 * and an accepted answer on this reply is cleared.
 */
export async function deleteReply(ctx: ServiceContext, actor: Actor, id: string) {
  const reply = await getReplyOrThrow(ctx, id);
  if (reply.author_principal_id !== actor.principalId) throw notAuthor("delete this reply");
  await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom("forum_threads").select("id").where("id", "=", reply.thread_id).forUpdate().execute();
    const deleted = await trx
      .updateTable("forum_replies")
      .set({ status: "DELETED" })
      .where("id", "=", reply.id)
      .where("status", "=", "VISIBLE")
      .returning("id")
      .executeTakeFirst();
    if (!deleted) throw notFound("reply");
    await recountThreadReplies(trx, reply.thread_id, reply.id);
  });
  await notifyContributionRemoved(ctx, { kind: "REPLY", id: reply.id, threadId: reply.thread_id, authorPrincipalId: reply.author_principal_id });
  return { data: { id: reply.id, status: "DELETED" as const } };
}

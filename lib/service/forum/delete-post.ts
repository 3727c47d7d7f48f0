import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { notAuthor } from "./edit-post";
import { getReplyOrThrow, getThreadOrThrow } from "./present";
import { publishContributionRemoved } from "./contributions";
import { actorIdOf } from "../events/recipients";
import { recountThreadReplies } from "./recount-thread";

/**
 * DELETE /v1/forum/threads/:id: a soft delete by the author. The row stays (status DELETED) for
 * the record, votes and rewards; every read treats the thread and its replies as gone.
 */
export async function deleteThread(ctx: ServiceContext, actor: Actor, id: string) {
  const thread = await getThreadOrThrow(ctx, id);
  if (thread.author_principal_id !== actor.principalId) throw notAuthor("delete this thread");
  await ctx.db.transaction().execute(async (trx) => {
    const deleted = await trx
      .updateTable("forum_threads")
      .set({ status: "DELETED" })
      .where("id", "=", thread.id)
      .where("status", "=", "VISIBLE")
      .returning("id")
      .executeTakeFirst();
    // Two deletes at once: the second finds nothing to delete, as if it came later.
    if (!deleted) throw fail("NOT_FOUND", "thread not found");
    await publishContributionRemoved(trx, actorIdOf(actor), {
      kind: "THREAD",
      id: thread.id,
      threadId: thread.id,
      authorPrincipalId: thread.author_principal_id,
    });
  });
  return { id: thread.id, status: "DELETED" as const };
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
    if (!deleted) throw fail("NOT_FOUND", "reply not found");
    await recountThreadReplies(trx, reply.thread_id, reply.id);
    await publishContributionRemoved(trx, actorIdOf(actor), {
      kind: "REPLY",
      id: reply.id,
      threadId: reply.thread_id,
      authorPrincipalId: reply.author_principal_id,
    });
  });
  return { id: reply.id, status: "DELETED" as const };
}

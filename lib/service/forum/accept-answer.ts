import { fail } from "../errors";
import { sql } from "kysely";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { notAuthor } from "./edit-post";
import { markOwnActivityRead } from "./posting-rules";
import { getThreadOrThrow, presentThread } from "./present";

/**
 * PUT /v1/forum/threads/:id/answer {replyId | null}. Only the thread's author chooses; the reply
 * must be a visible reply of this very thread (checked with the thread row locked, so a reply
 * deleted at the same moment cannot end up accepted). null clears the answer.
 */
export async function acceptAnswer(
  ctx: ServiceContext,
  actor: Actor,
  threadId: string,
  replyId: string | null,
  siteUrl: string,
) {
  const thread = await getThreadOrThrow(ctx, threadId);
  if (thread.author_principal_id !== actor.principalId) throw notAuthor("accept an answer on this thread");
  const now = ctx.now();
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom("forum_threads")
      .select("id")
      .where("id", "=", thread.id)
      .where("status", "=", "VISIBLE")
      .forUpdate()
      .executeTakeFirst();
    if (!locked) throw fail("NOT_FOUND", "thread not found");
    if (replyId) {
      const reply = await trx
        .selectFrom("forum_replies")
        .select("id")
        .where("id", "=", replyId)
        .where("thread_id", "=", thread.id)
        .where("status", "=", "VISIBLE")
        .executeTakeFirst();
      if (!reply) throw fail("VALIDATION_FAILED", ["replyId must be a visible reply of this thread"]);
    }
    await trx
      .updateTable("forum_threads")
      .set({ accepted_reply_id: replyId, last_activity_at: sql`greatest(last_activity_at, ${now}::timestamptz)` })
      .where("id", "=", thread.id)
      .execute();
    await markOwnActivityRead(trx, actor.principalId, thread.id, now);
  });
  return presentThread(await getThreadOrThrow(ctx, thread.id), siteUrl);
}

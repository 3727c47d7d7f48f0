import { fail } from "../errors";
import { sql } from "kysely";
import { originKeyOf } from "../http/client-origin";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { assertNotSuspended } from "../auth/suspension";
import { assertWithinHourlyLimit, lockAuthorPosting, markOwnActivityRead } from "./posting-rules";
import { UUID, getReplyOrThrow, presentReply } from "./present";
import { publishContribution } from "./contributions";
import { publishEvent } from "../events/publish-event";
import type { Queryable } from "./present";
import { actorIdOf } from "../events/recipients";
import { publishMentions } from "./mentions";

/**
 * POST /v1/forum/threads/:slugOrId/replies. Under the author's posting lock: the hourly limit,
 * then the insert and the thread's counters (replyCount, lastReplyAt, lastActivityAt) in the same
 * transaction, with the thread row locked so that a concurrent delete or count cannot interleave.
 */
export async function createReply(
  ctx: ServiceContext,
  actor: Actor,
  slugOrId: string,
  body: string,
  siteUrl: string,
  clientIp: string | null = null,
  idempotencyKey: string | null = null,
) {
  const originKey = originKeyOf(clientIp, ctx.config.originHashSecret);
  await assertNotSuspended(ctx.db, actor.principalId);
  const reply = await ctx.db.transaction().execute(async (trx) => {
    await lockAuthorPosting(trx, actor.principalId);
    // A retry whose first run committed but never answered (its process died): that reply is the answer.
    if (idempotencyKey) {
      const earlier = await trx
        .selectFrom("forum_replies")
        .select(["id", "created_at"])
        .where("author_principal_id", "=", actor.principalId)
        .where("idempotency_key", "=", idempotencyKey)
        .executeTakeFirst();
      if (earlier) return earlier;
    }
    const thread = await trx
      .selectFrom("forum_threads")
      .select(["id", "slug", "title", "category", "intent", "locked"])
      .where("status", "=", "VISIBLE")
      .where(UUID.test(slugOrId) ? "id" : "slug", "=", UUID.test(slugOrId) ? slugOrId.toLowerCase() : slugOrId)
      .forUpdate()
      .executeTakeFirst();
    if (!thread) throw fail("NOT_FOUND", "thread not found");
    if (thread.locked) throw fail("THREAD_LOCKED", "this thread is locked and takes no replies");
    await assertWithinHourlyLimit(ctx, trx, "forum_replies", actor.principalId);
    const reply = await trx
      .insertInto("forum_replies")
      .values({
        thread_id: thread.id,
        body,
        author_principal_id: actor.principalId,
        origin_key: originKey,
        idempotency_key: idempotencyKey,
      })
      .returning(["id", "created_at"])
      .executeTakeFirstOrThrow();
    await trx
      .updateTable("forum_threads")
      .set({
        reply_count: sql`reply_count + 1`,
        last_reply_at: sql`greatest(last_reply_at, ${reply.created_at}::timestamptz)`,
        last_activity_at: sql`greatest(last_activity_at, ${reply.created_at}::timestamptz)`,
      })
      .where("id", "=", thread.id)
      .execute();
    // Repliers follow the thread they answer (authors do from the start), unless they unfollowed it
    // (their row stays as it is) or turned following on reply off in their notification settings.
    await trx
      .insertInto("forum_thread_state")
      .values({
        principal_id: actor.principalId,
        thread_id: thread.id,
        following: await followsOnReply(trx, actor),
        last_read_at: reply.created_at,
      })
      .onConflict((oc) => oc.columns(["principal_id", "thread_id"]).doNothing())
      .execute();
    await markOwnActivityRead(trx, actor.principalId, thread.id, reply.created_at);
    await publishReplyToFollowers(trx, actor, {
      threadId: thread.id,
      threadSlug: thread.slug,
      threadTitle: thread.title,
      replyId: reply.id,
    });
    const about = { threadId: thread.id, threadSlug: thread.slug, threadTitle: thread.title, replyId: reply.id };
    await publishMentions(trx, actor, { ...about, body });
    await publishContribution(trx, actor, {
      kind: "REPLY",
      id: reply.id,
      threadId: thread.id,
      authorPrincipalId: actor.principalId,
    });
    return reply;
  });

  const data = presentReply(await getReplyOrThrow(ctx, reply.id));
  return data;
}

/** A person's notification setting (on by default); an agent always follows what it answers. */
async function followsOnReply(trx: Queryable, actor: Actor): Promise<boolean> {
  if (actor.kind !== "USER") return true;
  const settings = await trx
    .selectFrom("notification_settings")
    .select("follow_on_reply")
    .where("user_id", "=", actor.userId)
    .executeTakeFirst();
  return settings?.follow_on_reply ?? true;
}

/**
 * forum.reply to everyone following the thread but the replier, as user ids and agent ids (an
 * agent's webhooks, and its owner's inbox), in the reply's transaction.
 */
async function publishReplyToFollowers(
  trx: Queryable,
  actor: Actor,
  reply: { threadId: string; threadSlug: string; threadTitle: string; replyId: string },
) {
  const followers = await trx
    .selectFrom("forum_thread_state")
    .leftJoin("agents", "agents.principal_id", "forum_thread_state.principal_id")
    .select(["forum_thread_state.principal_id", "agents.id as agent_id"])
    .where("forum_thread_state.thread_id", "=", reply.threadId)
    .where("forum_thread_state.following", "=", true)
    .where("forum_thread_state.principal_id", "!=", actor.principalId)
    .execute();
  if (followers.length === 0) return;
  const author = await trx
    .selectFrom("principals")
    .select("display_name")
    .where("id", "=", actor.principalId)
    .executeTakeFirst();
  await publishEvent(trx, {
    type: "forum.reply",
    to: followers.map((f) => f.agent_id ?? f.principal_id),
    actorId: actorIdOf(actor),
    data: { ...reply, authorName: author?.display_name ?? null },
  });
}

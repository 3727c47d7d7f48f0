import { sql } from "kysely";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { getThreadOrThrow, type Queryable } from "./present";

// A reader's state on a thread (forum_thread_state): whether they follow it, and their read
// marker. Replies by others created after the marker are unread; your own never are.

/** Visible replies on a thread by others than `principalId`, created after `after` (all when null). */
export async function unreadReplies(
  db: Queryable,
  threadId: string,
  principalId: string,
  after: Date | null,
): Promise<number> {
  let q = db
    .selectFrom("forum_replies")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("thread_id", "=", threadId)
    .where("status", "=", "VISIBLE")
    .where("author_principal_id", "!=", principalId);
  if (after) q = q.where("created_at", ">", after);
  return (await q.executeTakeFirstOrThrow()).n;
}

/** PUT and DELETE /v1/forum/threads/:slugOrId/follow */
export async function setFollowing(ctx: ServiceContext, actor: Actor, slugOrId: string, following: boolean) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  await ctx.db
    .insertInto("forum_thread_state")
    .values({ principal_id: actor.principalId, thread_id: thread.id, following, last_read_at: null })
    .onConflict((oc) => oc.columns(["principal_id", "thread_id"]).doUpdateSet({ following }))
    .execute();
  return { following };
}

/** GET /v1/forum/threads/:slugOrId/viewer */
export async function viewerState(ctx: ServiceContext, actor: Actor, slugOrId: string) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  const state = await ctx.db
    .selectFrom("forum_thread_state")
    .select(["following", "last_read_at"])
    .where("principal_id", "=", actor.principalId)
    .where("thread_id", "=", thread.id)
    .executeTakeFirst();
  const vote = await ctx.db
    .selectFrom("forum_votes")
    .select("helpful")
    .where("voter_principal_id", "=", actor.principalId)
    .where("target_kind", "=", "THREAD")
    .where("target_id", "=", thread.id)
    .executeTakeFirst();
  const helpfulReplies = await ctx.db
    .selectFrom("forum_votes as v")
    .innerJoin("forum_replies as r", (join) => join.onRef("r.id", "=", "v.target_id").on("v.target_kind", "=", "REPLY"))
    .select("r.id")
    .where("v.voter_principal_id", "=", actor.principalId)
    .where("v.helpful", "=", true)
    .where("r.thread_id", "=", thread.id)
    .where("r.status", "=", "VISIBLE")
    .execute();
  let firstUnread = ctx.db
    .selectFrom("forum_replies")
    .select("id")
    .where("thread_id", "=", thread.id)
    .where("status", "=", "VISIBLE")
    .where("author_principal_id", "!=", actor.principalId);
  if (state?.last_read_at) firstUnread = firstUnread.where("created_at", ">", state.last_read_at);
  const firstUnreadRow = await firstUnread
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .limit(1)
    .executeTakeFirst();
  const isAuthor = thread.author_principal_id === actor.principalId;
  return {
    following: state?.following ?? false,
    lastReadAt: state?.last_read_at?.toISOString() ?? null,
    unreadCount: await unreadReplies(ctx.db, thread.id, actor.principalId, state?.last_read_at ?? null),
    vote: vote?.helpful ?? null,
    helpfulReplyIds: helpfulReplies.map((r) => r.id),
    firstUnreadReplyId: firstUnreadRow?.id ?? null,
    canEdit: isAuthor,
    canAcceptAnswer: isAuthor && !thread.locked,
  };
}

/**
 * PUT /v1/forum/threads/:slugOrId/read {through}. The marker only moves forward, and never past the
 * present: a marker in the future would silently swallow replies that have not been written yet.
 */
export async function markRead(ctx: ServiceContext, actor: Actor, slugOrId: string, through: string) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  const now = ctx.now();
  const at = new Date(Math.min(new Date(through).getTime(), now.getTime()));
  await ctx.db
    .insertInto("forum_thread_state")
    .values({ principal_id: actor.principalId, thread_id: thread.id, following: false, last_read_at: at })
    .onConflict((oc) =>
      oc.columns(["principal_id", "thread_id"]).doUpdateSet({
        last_read_at: sql`greatest(forum_thread_state.last_read_at, excluded.last_read_at)`,
      }),
    )
    .execute();
  return viewerState(ctx, actor, thread.id);
}

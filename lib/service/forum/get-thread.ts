import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { getReplyOrThrow, getThreadOrThrow, presentReply, presentThread, selectReplies } from "./present";

export const REPLY_PAGE = 20;

/** GET /v1/forum/threads/:slugOrId/replies: visible replies, oldest first, keyset on (createdAt, id). */
export async function listReplies(ctx: ServiceContext, slugOrId: string, query: { limit?: number; cursor?: string }) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  return replyPage(ctx, thread.id, query);
}

async function replyPage(ctx: ServiceContext, threadId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? REPLY_PAGE;
  const after = decodeCursor(query.cursor);
  let q = selectReplies(ctx.db).where("r.thread_id", "=", threadId).where("r.status", "=", "VISIBLE");
  if (after) q = q.where(keysetAfter(after, "r.created_at", "r.id", "asc"));
  const rows = await q
    .orderBy("r.created_at", "asc")
    .orderBy("r.id", "asc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  return { items: page.rows.map(presentReply), meta: page.meta };
}

/**
 * GET /v1/forum/threads/:slugOrId: the thread, its first page of replies with repliesMeta, and the
 * accepted answer. Every read counts one view.
 */
export async function getThreadDetail(ctx: ServiceContext, slugOrId: string, siteUrl: string) {
  const found = await getThreadOrThrow(ctx, slugOrId);
  const counted = await ctx.db
    .updateTable("forum_threads")
    .set({ view_count: sql`view_count + 1` })
    .where("id", "=", found.id)
    .returning("view_count")
    .executeTakeFirstOrThrow();
  const replies = await replyPage(ctx, found.id, {});
  const accepted = found.accepted_reply_id
    ? await getReplyOrThrow(ctx, found.accepted_reply_id).catch(() => null)
    : null;
  return {
    ...presentThread({ ...found, view_count: counted.view_count }, siteUrl),
    replies: replies.items,
    repliesMeta: { nextCursor: replies.meta.nextCursor },
    acceptedAnswer: accepted ? presentReply(accepted) : null,
  };
}

/** GET /v1/forum/replies/:id */
export async function getReply(ctx: ServiceContext, id: string) {
  return presentReply(await getReplyOrThrow(ctx, id));
}

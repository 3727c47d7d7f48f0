import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { z } from "zod";
import type { CreateThreadRequest, ListThreadsQuery, UpdateThreadRequest } from "@/lib/api/schemas/forum";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { conflict, forbidden } from "../http/errors";
import { consumeBudget } from "../http/rate-limit";
import { decodeCursor, pageOf } from "../http/pagination";
import { getReplyOrThrow, getThreadOrThrow, presentReply, presentThread, selectReplies, selectThreads } from "./present";
import { runPublishHooks } from "./publish-hooks";

const THREADS_PER_HOUR = 3;
const REPLIES_PER_HOUR = 20;
const DUPLICATE_WINDOW_MS = 86_400_000;
const REPLY_PAGE = 20;

const normalise = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

function slugFor(title: string): string {
  const base = title.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "thread";
  return `${base}-${randomBytes(3).toString("hex")}`;
}

export async function listThreads(ctx: ServiceContext, query: z.output<typeof ListThreadsQuery>, siteUrl: string) {
  const limit = query.limit ?? 20;
  const byActivity = query.sort === "activity";
  const sortColumn = byActivity ? "t.last_activity_at" : "t.created_at";
  const after = decodeCursor(query.cursor);
  let q = selectThreads(ctx.db).where("t.status", "=", "VISIBLE");
  if (query.category) q = q.where("t.category", "=", query.category);
  if (query.intent) q = q.where("t.intent", "=", query.intent);
  if (query.filter === "unanswered") q = q.where("t.reply_count", "=", 0).where("t.accepted_reply_id", "is", null);
  if (query.since) q = q.where("t.last_activity_at", ">", new Date(query.since));
  if (query.q) q = q.where(sql<boolean>`t.search @@ websearch_to_tsquery('english', ${query.q})`);
  if (after) q = q.where(sql<boolean>`(${sql.ref(sortColumn)}, t.id) < (${new Date(after.k)}::timestamptz, ${after.id}::uuid)`);
  const rows = await q.orderBy(sortColumn, "desc").orderBy("t.id", "desc").limit(limit + 1).execute();
  const page = pageOf(rows, limit, (r) => ({ k: (byActivity ? r.last_activity_at : r.created_at).toISOString(), id: r.id }), "/v1/forum/threads/:slugOrId");
  return { data: page.rows.map((r) => presentThread(r, siteUrl)), meta: page.meta };
}

export async function listReplies(ctx: ServiceContext, threadId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? REPLY_PAGE;
  const after = decodeCursor(query.cursor);
  let q = selectReplies(ctx.db).where("r.thread_id", "=", threadId).where("r.status", "=", "VISIBLE");
  if (after) q = q.where(sql<boolean>`(r.created_at, r.id) > (${new Date(after.k)}::timestamptz, ${after.id}::uuid)`);
  const rows = await q.orderBy("r.created_at", "asc").orderBy("r.id", "asc").limit(limit + 1).execute();
  const page = pageOf(rows, limit, (r) => ({ k: r.created_at.toISOString(), id: r.id }));
  return { data: page.rows.map(presentReply), meta: page.meta };
}

export async function getThreadDetail(ctx: ServiceContext, slugOrId: string, siteUrl: string) {
  const row = await getThreadOrThrow(ctx, slugOrId);
  await ctx.db.updateTable("forum_threads").set({ view_count: sql`view_count + 1` }).where("id", "=", row.id).execute();
  const replies = await listReplies(ctx, row.id, {});
  const accepted = row.accepted_reply_id ? await getReplyOrThrow(ctx, row.accepted_reply_id).catch(() => null) : null;
  return {
    data: {
      ...presentThread({ ...row, view_count: row.view_count + 1 }, siteUrl),
      replies: replies.data,
      repliesMeta: { nextCursor: replies.meta.nextCursor },
      acceptedAnswer: accepted ? presentReply(accepted) : null,
    },
  };
}

/** Authorship is verified: the author is the credential's principal, never a field of the body. */
export async function createThread(ctx: ServiceContext, actor: Actor, input: z.output<typeof CreateThreadRequest>, siteUrl: string) {
  const since = new Date(ctx.now().getTime() - DUPLICATE_WINDOW_MS);
  const recent = await ctx.db
    .selectFrom("forum_threads")
    .select(["id", "slug", "title", "body"])
    .where("author_principal_id", "=", actor.principalId)
    .where("status", "=", "VISIBLE")
    .where("created_at", ">=", since)
    .execute();
  const duplicate = recent.find((t) => normalise(t.title) === normalise(input.title) || normalise(t.body) === normalise(input.body));
  if (duplicate) {
    throw conflict("FORUM_DUPLICATE", "you posted this thread within the last 24 hours; do not repeat the request", {
      existingId: duplicate.id,
      existingSlug: duplicate.slug,
    });
  }
  await consumeBudget(ctx, `forum-threads:${actor.identityKey}`, THREADS_PER_HOUR, 3600);
  const inserted = await ctx.db
    .insertInto("forum_threads")
    .values({ slug: slugFor(input.title), title: input.title, body: input.body, category: input.category, intent: input.intent ?? null, author_principal_id: actor.principalId })
    .returning("id")
    .executeTakeFirstOrThrow();
  await runPublishHooks(ctx, { kind: "THREAD", id: inserted.id, threadId: inserted.id, authorPrincipalId: actor.principalId, body: input.body });
  return { data: presentThread(await getThreadOrThrow(ctx, inserted.id), siteUrl) };
}

export async function createReply(ctx: ServiceContext, actor: Actor, slugOrId: string, body: string) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  if (thread.locked) throw conflict("THREAD_LOCKED", "this thread is locked and takes no replies");
  await consumeBudget(ctx, `forum-replies:${actor.identityKey}`, REPLIES_PER_HOUR, 3600);
  const reply = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.insertInto("forum_replies").values({ thread_id: thread.id, body, author_principal_id: actor.principalId }).returning(["id", "created_at"]).executeTakeFirstOrThrow();
    await trx
      .updateTable("forum_threads")
      .set({ reply_count: sql`reply_count + 1`, last_reply_at: row.created_at, last_activity_at: row.created_at })
      .where("id", "=", thread.id)
      .execute();
    return row;
  });
  await runPublishHooks(ctx, { kind: "REPLY", id: reply.id, threadId: thread.id, authorPrincipalId: actor.principalId, body });
  return { data: presentReply(await getReplyOrThrow(ctx, reply.id)) };
}

export async function updateThread(ctx: ServiceContext, actor: Actor, id: string, input: z.output<typeof UpdateThreadRequest>, siteUrl: string) {
  const thread = await getThreadOrThrow(ctx, id);
  if (thread.author_principal_id !== actor.principalId) throw forbidden("only the author may edit this thread");
  const now = ctx.now();
  await ctx.db
    .updateTable("forum_threads")
    .set({ ...(input.title ? { title: input.title } : {}), ...(input.body ? { body: input.body } : {}), ...(input.category ? { category: input.category } : {}), edited_at: now, last_activity_at: now })
    .where("id", "=", thread.id)
    .execute();
  return { data: presentThread(await getThreadOrThrow(ctx, thread.id), siteUrl) };
}

export async function updateReply(ctx: ServiceContext, actor: Actor, id: string, body: string) {
  const reply = await getReplyOrThrow(ctx, id);
  if (reply.author_principal_id !== actor.principalId) throw forbidden("only the author may edit this reply");
  await ctx.db.updateTable("forum_replies").set({ body, edited_at: ctx.now() }).where("id", "=", id).execute();
  return { data: presentReply(await getReplyOrThrow(ctx, id)) };
}

export async function deleteThread(ctx: ServiceContext, actor: Actor, id: string) {
  const thread = await getThreadOrThrow(ctx, id);
  if (thread.author_principal_id !== actor.principalId) throw forbidden("only the author may delete this thread");
  await ctx.db.updateTable("forum_threads").set({ status: "DELETED" }).where("id", "=", thread.id).execute();
  return { data: { id: thread.id, status: "DELETED" as const } };
}

export async function deleteReply(ctx: ServiceContext, actor: Actor, id: string) {
  const reply = await getReplyOrThrow(ctx, id);
  if (reply.author_principal_id !== actor.principalId) throw forbidden("only the author may delete this reply");
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable("forum_replies").set({ status: "DELETED" }).where("id", "=", id).execute();
    await trx
      .updateTable("forum_threads")
      .set((eb) => ({
        reply_count: sql`greatest(reply_count - 1, 0)`,
        accepted_reply_id: eb.case().when("accepted_reply_id", "=", id).then(null).else(eb.ref("accepted_reply_id")).end(),
      }))
      .where("id", "=", reply.thread_id)
      .execute();
  });
  return { data: { id, status: "DELETED" as const } };
}



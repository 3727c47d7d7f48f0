import { fail } from "../errors";
import type { Kysely } from "kysely";
import type { z } from "zod";
import type { ForumAuthor, ForumReply, ForumThread } from "@/lib/api/schemas/forum";
import type { Database } from "../db/schema";
import type { ServiceContext } from "../context";

// Rows of the forum tables with their authors, and how they look on the wire. Readers only ever
// see VISIBLE posts: a deleted thread takes its replies with it.

type ThreadDto = z.input<typeof ForumThread>;
type ReplyDto = z.input<typeof ForumReply>;
/** The database or a transaction of it. */
export type Queryable = Kysely<Database>;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Threads with their author: a principal, and for agents the agent's handle. */
export function selectThreads(db: Queryable) {
  return db
    .selectFrom("forum_threads as t")
    .innerJoin("principals as p", "p.id", "t.author_principal_id")
    .leftJoin("agents as a", "a.principal_id", "t.author_principal_id")
    .leftJoin("users as u", "u.id", "t.author_principal_id")
    .selectAll("t")
    .select([
      "p.kind as author_kind",
      "p.display_name as author_name",
      "a.id as author_agent_id",
      "u.address as author_address",
    ]);
}

/** Replies with their author; only replies of visible threads. */
export function selectReplies(db: Queryable) {
  return db
    .selectFrom("forum_replies as r")
    .innerJoin("forum_threads as rt", (join) => join.onRef("rt.id", "=", "r.thread_id").on("rt.status", "=", "VISIBLE"))
    .innerJoin("principals as p", "p.id", "r.author_principal_id")
    .leftJoin("agents as a", "a.principal_id", "r.author_principal_id")
    .leftJoin("users as u", "u.id", "r.author_principal_id")
    .selectAll("r")
    .select([
      "p.kind as author_kind",
      "p.display_name as author_name",
      "a.id as author_agent_id",
      "u.address as author_address",
    ]);
}

export type ThreadRow = Awaited<ReturnType<ReturnType<typeof selectThreads>["executeTakeFirstOrThrow"]>>;
export type ReplyRow = Awaited<ReturnType<ReturnType<typeof selectReplies>["executeTakeFirstOrThrow"]>>;

interface AuthorColumns {
  author_kind: "USER" | "AGENT";
  author_name: string;
  author_agent_id: string | null;
  author_address: string | null;
  author_principal_id: string;
}

export function presentAuthor(row: AuthorColumns): ForumAuthor {
  return row.author_kind === "AGENT" && row.author_agent_id
    ? { kind: "AGENT", name: row.author_name, key: `agent:${row.author_agent_id}`, agentId: row.author_agent_id }
    : {
        kind: "USER",
        name: row.author_name,
        key: `user:${row.author_principal_id}`,
        ...(row.author_address ? { address: row.author_address } : {}),
      };
}

export function presentReply(row: ReplyRow): ReplyDto {
  return {
    id: row.id,
    threadId: row.thread_id,
    body: row.body,
    author: presentAuthor(row),
    status: row.status,
    createdAt: row.created_at.toISOString(),
    editedAt: iso(row.edited_at),
    helpfulCount: row.helpful_count,
  };
}

export const threadUrl = (siteUrl: string, slug: string) => `${siteUrl.replace(/\/+$/, "")}/forum/${slug}`;

export function presentThread(row: ThreadRow, siteUrl: string): ThreadDto {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    body: row.body,
    category: row.category as ThreadDto["category"],
    intent: row.intent as ThreadDto["intent"],
    linkedJobId: row.linked_job_id,
    contextJobId: row.context_job_id,
    jobContextKind: row.job_context_kind,
    author: presentAuthor(row),
    status: row.status,
    pinned: row.pinned,
    locked: row.locked,
    replyCount: row.reply_count,
    viewCount: row.view_count,
    helpfulCount: row.helpful_count,
    lastReplyAt: iso(row.last_reply_at),
    lastActivityAt: row.last_activity_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    editedAt: iso(row.edited_at),
    acceptedReplyId: row.accepted_reply_id,
    url: threadUrl(siteUrl, row.slug),
  };
}

/** A visible thread by slug or by id; deleted threads are gone for everyone. */
export async function getThreadOrThrow(
  ctx: ServiceContext,
  slugOrId: string,
  db: Queryable = ctx.db,
): Promise<ThreadRow> {
  let q = selectThreads(db).where("t.status", "=", "VISIBLE");
  // A slug never looks like a UUID (it ends in "-" plus 6 hex digits), so one lookup is enough.
  q = UUID.test(slugOrId) ? q.where("t.id", "=", slugOrId.toLowerCase()) : q.where("t.slug", "=", slugOrId);
  const row = await q.executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "thread not found");
  return row;
}

/** A visible reply of a visible thread. */
export async function getReplyOrThrow(ctx: ServiceContext, id: string, db: Queryable = ctx.db): Promise<ReplyRow> {
  const row = await selectReplies(db).where("r.id", "=", id).where("r.status", "=", "VISIBLE").executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "reply not found");
  return row;
}

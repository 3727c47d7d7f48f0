import type { z } from "zod";
import type { ForumReply, ForumThread } from "@/lib/api/schemas/forum";
import type { Db } from "../db/connection";
import type { ServiceContext } from "../context";
import { notFound } from "../http/errors";

type ThreadDto = z.input<typeof ForumThread>;
type ReplyDto = z.input<typeof ForumReply>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Threads with their author: a principal, and for agents the agent's handle. */
export function selectThreads(db: Db) {
  return db
    .selectFrom("forum_threads as t")
    .innerJoin("principals as p", "p.id", "t.author_principal_id")
    .leftJoin("agents as a", "a.principal_id", "t.author_principal_id")
    .selectAll("t")
    .select(["p.kind as author_kind", "p.display_name as author_name", "a.id as author_agent_id"]);
}

export function selectReplies(db: Db) {
  return db
    .selectFrom("forum_replies as r")
    .innerJoin("principals as p", "p.id", "r.author_principal_id")
    .leftJoin("agents as a", "a.principal_id", "r.author_principal_id")
    .selectAll("r")
    .select(["p.kind as author_kind", "p.display_name as author_name", "a.id as author_agent_id"]);
}

type ThreadRow = Awaited<ReturnType<ReturnType<typeof selectThreads>["executeTakeFirstOrThrow"]>>;
type ReplyRow = Awaited<ReturnType<ReturnType<typeof selectReplies>["executeTakeFirstOrThrow"]>>;

function author(row: { author_kind: "USER" | "AGENT"; author_name: string; author_agent_id: string | null; author_principal_id: string }) {
  return row.author_kind === "AGENT" && row.author_agent_id
    ? { kind: "AGENT" as const, name: row.author_name, key: `agent:${row.author_agent_id}`, agentId: row.author_agent_id }
    : { kind: "USER" as const, name: row.author_name, key: `user:${row.author_principal_id}` };
}

export function presentReply(row: ReplyRow): ReplyDto {
  return {
    id: row.id,
    threadId: row.thread_id,
    body: row.body,
    author: author(row),
    status: row.status,
    createdAt: row.created_at.toISOString(),
    editedAt: iso(row.edited_at),
    helpfulCount: row.helpful_count,
  };
}

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
    author: author(row),
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
    url: `${siteUrl.replace(/\/$/, "")}/forum/${row.slug}`,
  };
}

/** A visible thread by slug or id; deleted threads are gone for readers. */
export async function getThreadOrThrow(ctx: ServiceContext, slugOrId: string): Promise<ThreadRow> {
  let q = selectThreads(ctx.db).where("t.status", "=", "VISIBLE");
  q = UUID.test(slugOrId) ? q.where((eb) => eb.or([eb("t.id", "=", slugOrId), eb("t.slug", "=", slugOrId)])) : q.where("t.slug", "=", slugOrId);
  const row = await q.executeTakeFirst();
  if (!row) throw notFound("thread");
  return row;
}

export async function getReplyOrThrow(ctx: ServiceContext, id: string): Promise<ReplyRow> {
  const row = await selectReplies(ctx.db).where("r.id", "=", id).where("r.status", "=", "VISIBLE").executeTakeFirst();
  if (!row) throw notFound("reply");
  return row;
}

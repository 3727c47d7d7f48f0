import { sql } from "kysely";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { badRequest, forbidden, notFound, tooManyRequests } from "../http/errors";
import { decodeCursor, encodeCursor } from "../http/pagination";
import { getReplyOrThrow, getThreadOrThrow, presentThread } from "./present";

export async function vote(ctx: ServiceContext, actor: Actor, kind: "THREAD" | "REPLY", id: string, helpful: boolean) {
  const target = kind === "THREAD" ? await getThreadOrThrow(ctx, id) : await getReplyOrThrow(ctx, id);
  if (target.author_principal_id === actor.principalId) throw forbidden("you cannot vote on your own post");
  const table = kind === "THREAD" ? "forum_threads" : "forum_replies";
  const helpfulCount = await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto("forum_votes")
      .values({ voter_principal_id: actor.principalId, target_kind: kind, target_id: target.id, helpful })
      .onConflict((oc) => oc.columns(["voter_principal_id", "target_kind", "target_id"]).doUpdateSet({ helpful, updated_at: ctx.now() }))
      .execute();
    // Recounted from the votes themselves, so a changed vote can never be counted twice.
    const { n } = await trx
      .selectFrom("forum_votes")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("target_kind", "=", kind)
      .where("target_id", "=", target.id)
      .where("helpful", "=", true)
      .executeTakeFirstOrThrow();
    await trx.updateTable(table).set({ helpful_count: n }).where("id", "=", target.id).execute();
    return n;
  });
  return { data: { helpful, helpfulCount } };
}

export async function acceptAnswer(ctx: ServiceContext, actor: Actor, threadId: string, replyId: string | null, siteUrl: string) {
  const thread = await getThreadOrThrow(ctx, threadId);
  if (thread.author_principal_id !== actor.principalId) throw forbidden("only the thread's author may accept an answer");
  if (replyId) {
    const reply = await getReplyOrThrow(ctx, replyId);
    if (reply.thread_id !== thread.id) throw badRequest(["replyId must be a reply of this thread"]);
  }
  await ctx.db.updateTable("forum_threads").set({ accepted_reply_id: replyId, last_activity_at: ctx.now() }).where("id", "=", thread.id).execute();
  return { data: presentThread(await getThreadOrThrow(ctx, thread.id), siteUrl) };
}

export async function setFollowing(ctx: ServiceContext, actor: Actor, slugOrId: string, following: boolean) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  await ctx.db
    .insertInto("forum_thread_state")
    .values({ principal_id: actor.principalId, thread_id: thread.id, following, last_read_at: null })
    .onConflict((oc) => oc.columns(["principal_id", "thread_id"]).doUpdateSet({ following }))
    .execute();
  return { data: { following } };
}

export async function viewerState(ctx: ServiceContext, actor: Actor, slugOrId: string) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  const state = await ctx.db.selectFrom("forum_thread_state").selectAll().where("principal_id", "=", actor.principalId).where("thread_id", "=", thread.id).executeTakeFirst();
  const vote = await ctx.db
    .selectFrom("forum_votes")
    .select("helpful")
    .where("voter_principal_id", "=", actor.principalId)
    .where("target_kind", "=", "THREAD")
    .where("target_id", "=", thread.id)
    .executeTakeFirst();
  let unread = ctx.db
    .selectFrom("forum_replies")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("thread_id", "=", thread.id)
    .where("status", "=", "VISIBLE")
    .where("author_principal_id", "!=", actor.principalId);
  if (state?.last_read_at) unread = unread.where("created_at", ">", state.last_read_at);
  const { n } = await unread.executeTakeFirstOrThrow();
  const isAuthor = thread.author_principal_id === actor.principalId;
  return {
    data: {
      following: state?.following ?? false,
      lastReadAt: state?.last_read_at?.toISOString() ?? null,
      unreadCount: n,
      vote: vote?.helpful ?? null,
      canEdit: isAuthor,
      canAcceptAnswer: isAuthor,
    },
  };
}

/** The read marker only moves forward: an older `through` leaves it where it is. */
export async function markRead(ctx: ServiceContext, actor: Actor, slugOrId: string, through: string) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  const at = new Date(through);
  await ctx.db
    .insertInto("forum_thread_state")
    .values({ principal_id: actor.principalId, thread_id: thread.id, following: false, last_read_at: at })
    .onConflict((oc) =>
      oc.columns(["principal_id", "thread_id"]).doUpdateSet({ last_read_at: sql`greatest(forum_thread_state.last_read_at, excluded.last_read_at)` }),
    )
    .execute();
  return viewerState(ctx, actor, thread.id);
}

const ME_POLL_INTERVAL_MS = 60_000;
const ME_PAGE = 50;

/** Own threads and replies, and followed threads with activity since they were last read. */
export async function forumMe(ctx: ServiceContext, actor: Actor, cursor: string | undefined) {
  const now = ctx.now();
  // Polling more than once a minute is refused; a cursor walks the same snapshot and is not a poll.
  if (!cursor) {
    const polled = await ctx.db
      .insertInto("forum_me_polls")
      .values({ identity: actor.identityKey, last_polled_at: now })
      .onConflict((oc) =>
        oc.column("identity").doUpdateSet({ last_polled_at: now }).where("forum_me_polls.last_polled_at", "<=", new Date(now.getTime() - ME_POLL_INTERVAL_MS)),
      )
      .returning("identity")
      .executeTakeFirst();
    if (!polled) {
      const last = await ctx.db.selectFrom("forum_me_polls").select("last_polled_at").where("identity", "=", actor.identityKey).executeTakeFirstOrThrow();
      const wait = Math.max(1, Math.ceil((last.last_polled_at.getTime() + ME_POLL_INTERVAL_MS - now.getTime()) / 1000));
      throw tooManyRequests(wait, "GET /v1/forum/me may be polled at most once a minute; retry after Retry-After seconds");
    }
  }
  const before = decodeCursor(cursor);
  const beforeAt = before ? new Date(before.k) : null;
  const threads = await ctx.db
    .selectFrom("forum_threads")
    .select(["id", "slug", "title", "created_at"])
    .where("author_principal_id", "=", actor.principalId)
    .where("status", "=", "VISIBLE")
    .$if(beforeAt !== null, (q) => q.where("created_at", "<", beforeAt!))
    .orderBy("created_at", "desc")
    .limit(ME_PAGE)
    .execute();
  const replies = await ctx.db
    .selectFrom("forum_replies as r")
    .innerJoin("forum_threads as t", "t.id", "r.thread_id")
    .select(["r.id", "r.created_at", "t.id as thread_id", "t.slug", "t.title"])
    .where("r.author_principal_id", "=", actor.principalId)
    .where("r.status", "=", "VISIBLE")
    .$if(beforeAt !== null, (q) => q.where("r.created_at", "<", beforeAt!))
    .orderBy("r.created_at", "desc")
    .limit(ME_PAGE)
    .execute();
  const followed = await ctx.db
    .selectFrom("forum_thread_state as s")
    .innerJoin("forum_threads as t", "t.id", "s.thread_id")
    .select(["t.id", "t.slug", "t.title", "t.last_activity_at", "s.last_read_at"])
    .select((eb) =>
      eb
        .selectFrom("forum_replies as r")
        .select(sql<number>`count(*)::int`.as("n"))
        .whereRef("r.thread_id", "=", "t.id")
        .where("r.status", "=", "VISIBLE")
        .where(sql<boolean>`r.created_at > coalesce(s.last_read_at, 'epoch'::timestamptz)`)
        .as("unread"),
    )
    .where("s.principal_id", "=", actor.principalId)
    .where("s.following", "=", true)
    .where("t.status", "=", "VISIBLE")
    .where(sql<boolean>`t.last_activity_at > coalesce(s.last_read_at, 'epoch'::timestamptz)`)
    .$if(beforeAt !== null, (q) => q.where("t.last_activity_at", "<", beforeAt!))
    .orderBy("t.last_activity_at", "desc")
    .limit(ME_PAGE)
    .execute();

  const items = [
    ...threads.map((t) => ({ type: "THREAD" as const, threadId: t.id, slug: t.slug, title: t.title, replyId: null, at: t.created_at })),
    ...replies.map((r) => ({ type: "REPLY" as const, threadId: r.thread_id, slug: r.slug, title: r.title, replyId: r.id, at: r.created_at })),
    ...followed.map((f) => ({ type: "FOLLOWED_UPDATE" as const, threadId: f.id, slug: f.slug, title: f.title, replyId: null, at: f.last_activity_at, unreadCount: f.unread ?? 0 })),
  ].sort((a, b) => b.at.getTime() - a.at.getTime());
  const page = items.slice(0, ME_PAGE);
  const hasMore = items.length > ME_PAGE;
  const last = page[page.length - 1];
  return {
    data: page.map((i) => ({ ...i, at: i.at.toISOString() })),
    meta: { nextCursor: hasMore && last ? encodeCursor({ k: last.at.toISOString(), id: last.threadId }) : null, hasMore, limit: ME_PAGE },
  };
}

/** Who a principal answers to: a human is their own owner; an agent answers to its owner once claimed. */
async function ownerOf(ctx: ServiceContext, principalId: string): Promise<string> {
  const agent = await ctx.db.selectFrom("agents").select("owner_user_id").where("principal_id", "=", principalId).executeTakeFirst();
  return agent?.owner_user_id ?? principalId;
}

export async function linkJob(ctx: ServiceContext, actor: Actor, threadId: string, jobId: string, siteUrl: string) {
  const thread = await getThreadOrThrow(ctx, threadId);
  if (thread.author_principal_id !== actor.principalId) throw forbidden("only the thread's author may link a job to it");
  const job = await ctx.db.selectFrom("jobs").select(["id", "poster_id", "source_forum_thread_id"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if ((await ownerOf(ctx, job.poster_id)) !== (await ownerOf(ctx, thread.author_principal_id))) {
    throw forbidden("the job must belong to the same owner as the thread");
  }
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable("forum_threads").set({ linked_job_id: job.id, context_job_id: job.id, job_context_kind: "HIRING", last_activity_at: ctx.now() }).where("id", "=", thread.id).execute();
    // The job names its source discussion; linking never funds it.
    if (!job.source_forum_thread_id) await trx.updateTable("jobs").set({ source_forum_thread_id: thread.id, updated_at: ctx.now() }).where("id", "=", job.id).execute();
  });
  return { data: presentThread(await getThreadOrThrow(ctx, thread.id), siteUrl) };
}

export async function reputation(ctx: ServiceContext, agentIdsParam: string) {
  const agentIds = [...new Set(agentIdsParam.split(",").map((s) => s.trim()).filter(Boolean))];
  if (agentIds.length === 0) throw badRequest(["agentIds should not be empty"]);
  if (agentIds.length > 25) throw badRequest(["agentIds must contain at most 25 agent ids"]);
  const agents = await ctx.db.selectFrom("agents").select(["id", "principal_id"]).where("id", "in", agentIds).execute();
  const data = [];
  for (const agent of agents) {
    const count = async (q: Promise<{ n: number } | undefined>) => (await q)?.n ?? 0;
    const threads = await count(ctx.db.selectFrom("forum_threads").select(sql<number>`count(*)::int`.as("n")).where("author_principal_id", "=", agent.principal_id).where("status", "=", "VISIBLE").executeTakeFirst());
    const replies = await count(ctx.db.selectFrom("forum_replies").select(sql<number>`count(*)::int`.as("n")).where("author_principal_id", "=", agent.principal_id).where("status", "=", "VISIBLE").executeTakeFirst());
    const helpful = await ctx.db
      .selectFrom("forum_votes as v")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("v.helpful", "=", true)
      .where((eb) =>
        eb.or([
          eb("v.target_id", "in", eb.selectFrom("forum_threads").select("id").where("author_principal_id", "=", agent.principal_id)),
          eb("v.target_id", "in", eb.selectFrom("forum_replies").select("id").where("author_principal_id", "=", agent.principal_id)),
        ]),
      )
      .executeTakeFirst();
    const accepted = await count(
      ctx.db
        .selectFrom("forum_threads as t")
        .innerJoin("forum_replies as r", "r.id", "t.accepted_reply_id")
        .select(sql<number>`count(*)::int`.as("n"))
        .where("r.author_principal_id", "=", agent.principal_id)
        .executeTakeFirst(),
    );
    data.push({ agentId: agent.id, threads, replies, helpfulVotes: helpful?.n ?? 0, acceptedAnswers: accepted });
  }
  return { data };
}



import { fail } from "../errors";
import { sql } from "kysely";
import { FORUM_LIMITS } from "@/lib/api/schemas/forum";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { tooManyRequests } from "../http/errors";
import { decodeCursor, encodeCursor, keysetAfter } from "../http/pagination";

const PAGE = 20;
const ITEM_ID = /^(THREAD|REPLY|FOLLOWED_UPDATE):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type ItemType = "THREAD" | "REPLY" | "FOLLOWED_UPDATE";

/**
 * A poll: the first page of GET /v1/forum/me. At most one a minute per identity, decided by one
 * conditional upsert (so parallel polls cannot both pass). Returns the poll's time: the snapshot.
 */
async function registerPoll(ctx: ServiceContext, identity: string): Promise<Date> {
  const now = ctx.now();
  const intervalMs = FORUM_LIMITS.mePollSeconds * 1000;
  const polled = await ctx.db
    .insertInto("forum_me_polls")
    .values({ identity, last_polled_at: now })
    .onConflict((oc) =>
      oc
        .column("identity")
        .doUpdateSet({ last_polled_at: now })
        .where("forum_me_polls.last_polled_at", "<=", new Date(now.getTime() - intervalMs)),
    )
    .returning("identity")
    .executeTakeFirst();
  if (polled) return now;
  const last = await ctx.db
    .selectFrom("forum_me_polls")
    .select("last_polled_at")
    .where("identity", "=", identity)
    .executeTakeFirstOrThrow();
  const wait = Math.min(
    FORUM_LIMITS.mePollSeconds,
    Math.max(1, Math.ceil((last.last_polled_at.getTime() + intervalMs - now.getTime()) / 1000)),
  );
  throw tooManyRequests(
    wait,
    "GET /v1/forum/me may be polled at most once a minute; retry after the number of seconds in Retry-After",
  );
}

/**
 * GET /v1/forum/me: your threads, your replies, and the threads you follow whose last activity is
 * after your read marker (with the number of unread replies by others), newest first. One keyset
 * over the three lists on (at, item id). The first page is a poll (once a minute); the pages after
 * it walk the same snapshot, so they are not polls, but their cursor must be at or before your last
 * poll (a made-up cursor is not a way round the limit).
 */
export async function forumMe(ctx: ServiceContext, actor: Actor, cursor: string | undefined) {
  const after = decodeCursor(cursor, ITEM_ID);
  let snapshot: Date;
  if (!after) {
    snapshot = await registerPoll(ctx, actor.identityKey);
  } else {
    const last = await ctx.db
      .selectFrom("forum_me_polls")
      .select("last_polled_at")
      .where("identity", "=", actor.identityKey)
      .executeTakeFirst();
    if (!last || new Date(after.k).getTime() > last.last_polled_at.getTime()) {
      throw fail("VALIDATION_FAILED", [
        "cursor does not come from your latest poll of GET /v1/forum/me; start again without a cursor",
      ]);
    }
    snapshot = last.last_polled_at;
  }

  const me = actor.principalId;
  const before = (at: string, key: string) =>
    after ? sql`and ${keysetAfter(after, sql.raw(at), sql.raw(key), "desc", "text")}` : sql``;
  const result = await sql<{
    type: ItemType;
    id: string;
    thread_id: string;
    slug: string;
    title: string;
    reply_id: string | null;
    at: Date | string;
    unread: number | null;
  }>`
    select * from (
      (select 'THREAD' as type, 'THREAD:' || t.id as id, t.id as thread_id, t.slug, t.title, null::uuid as reply_id,
              t.created_at as at, null::int as unread
         from forum_threads t
        where t.author_principal_id = ${me} and t.status = 'VISIBLE' and t.created_at <= ${snapshot}::timestamptz
              ${before("t.created_at", "'THREAD:' || t.id")}
        order by t.created_at desc, t.id desc
        limit ${PAGE + 1})
      union all
      (select 'REPLY', 'REPLY:' || r.id, t.id, t.slug, t.title, r.id, r.created_at, null::int
         from forum_replies r
         join forum_threads t on t.id = r.thread_id and t.status = 'VISIBLE'
        where r.author_principal_id = ${me} and r.status = 'VISIBLE' and r.created_at <= ${snapshot}::timestamptz
              ${before("r.created_at", "'REPLY:' || r.id")}
        order by r.created_at desc, r.id desc
        limit ${PAGE + 1})
      union all
      (select 'FOLLOWED_UPDATE', 'FOLLOWED_UPDATE:' || t.id, t.id, t.slug, t.title, null::uuid, t.last_activity_at,
              (select count(*) from forum_replies u
                where u.thread_id = t.id and u.status = 'VISIBLE' and u.author_principal_id <> ${me}
                  and u.created_at > coalesce(s.last_read_at, '-infinity'::timestamptz))::int
         from forum_thread_state s
         join forum_threads t on t.id = s.thread_id and t.status = 'VISIBLE'
        where s.principal_id = ${me} and s.following
              and t.last_activity_at > coalesce(s.last_read_at, '-infinity'::timestamptz)
              and t.last_activity_at <= ${snapshot}::timestamptz
              ${before("t.last_activity_at", "'FOLLOWED_UPDATE:' || t.id")}
        order by t.last_activity_at desc, t.id desc
        limit ${PAGE + 1})
    ) items
    order by at desc, id collate "C" desc
    limit ${PAGE + 1}
  `.execute(ctx.db);

  const hasMore = result.rows.length > PAGE;
  const rows = result.rows.slice(0, PAGE).map((r) => ({ ...r, at: new Date(r.at) }));
  const last = rows[rows.length - 1];
  return {
    items: rows.map((r) => ({
      id: r.id,
      type: r.type,
      threadId: r.thread_id,
      slug: r.slug,
      title: r.title,
      replyId: r.reply_id,
      at: r.at.toISOString(),
      ...(r.type === "FOLLOWED_UPDATE" ? { unreadCount: r.unread ?? 0 } : {}),
    })),
    meta: {
      nextCursor: hasMore && last ? encodeCursor({ k: last.at.toISOString(), id: last.id }) : null,
      hasMore,
      limit: PAGE,
    },
  };
}

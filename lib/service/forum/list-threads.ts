import { sql } from "kysely";
import type { z } from "zod";
import type { ListThreadsQuery } from "@/lib/api/schemas/forum";
import type { ServiceContext } from "../context";
import { UUID_SOURCE, decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { presentThread, selectThreads } from "./present";

const DEFAULT_LIMIT = 20;
// A cursor is tied to its sort: its id carries the sort's letter ("n:" newest, "a:" activity), so a
// cursor of one sort passed to the other is a 400 rather than a silently wrong page. The rest must be
// a real UUID (it is cast to uuid in SQL; 36 dashes would fail there as a 500).
const CURSOR_ID = {
  newest: new RegExp(`^n:${UUID_SOURCE}$`, "i"),
  activity: new RegExp(`^a:${UUID_SOURCE}$`, "i"),
} as const;

/**
 * GET /v1/forum/threads. Keyset pagination on (sort key, id), both descending; the search is the
 * `search` tsvector column (title + body, English) behind a GIN index, queried with
 * websearch_to_tsquery, which accepts whatever a person types (never a syntax error).
 */
export async function listThreads(ctx: ServiceContext, query: z.output<typeof ListThreadsQuery>, siteUrl: string) {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const sort = query.sort ?? "newest";
  const column = sort === "activity" ? "t.last_activity_at" : "t.created_at";
  const after = decodeCursor(query.cursor, CURSOR_ID[sort]);

  let q = selectThreads(ctx.db).where("t.status", "=", "VISIBLE");
  if (query.q) q = q.where(sql<boolean>`t.search @@ websearch_to_tsquery('english', ${query.q})`);
  if (query.category) q = q.where("t.category", "=", query.category);
  if (query.intent) q = q.where("t.intent", "=", query.intent);
  // Unanswered: nobody has replied yet (so no answer can have been accepted either).
  if (query.filter === "unanswered") q = q.where("t.reply_count", "=", 0).where("t.accepted_reply_id", "is", null);
  if (query.since) q = q.where("t.last_activity_at", ">", new Date(query.since));
  if (after) q = q.where(keysetAfter({ k: after.k, id: after.id.slice(2) }, column, "t.id", "desc"));

  const rows = await q
    .orderBy(column, "desc")
    .orderBy("t.id", "desc")
    .limit(limit + 1)
    .execute();
  const page = pageOf(
    rows,
    limit,
    (r) => ({ k: (sort === "activity" ? r.last_activity_at : r.created_at).toISOString(), id: `${sort[0]}:${r.id}` }),
    "/v1/forum/threads/:slugOrId",
  );
  return { items: page.rows.map((r) => presentThread(r, siteUrl)), meta: page.meta };
}

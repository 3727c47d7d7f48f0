import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { encodeCursor } from "../http/pagination";
import { getThreadOrThrow } from "./present";
import { REPLY_PAGE } from "./get-thread";

/**
 * GET /v1/forum/threads/:slugOrId/pages: page numbers over the keyset list of replies. Each page
 * is opened by the cursor of the last reply of the page before it (exactly what GET .../replies
 * would have answered as nextCursor), so "page 3" is a cursor, not an OFFSET. One pass over the
 * thread's visible replies in (created_at, id) order, on forum_replies_thread_idx: the rows that end
 * a page, the located replies and the newest one.
 */
export async function threadPages(ctx: ServiceContext, slugOrId: string, locate: string[] = []) {
  const thread = await getThreadOrThrow(ctx, slugOrId);
  const wanted = locate.map((id) => id.toLowerCase());
  const rows = await sql<{ id: string; created_at: Date; n: number; total: number }>`
    select id, created_at, n, total from (
      select id, created_at,
             (row_number() over (order by created_at, id))::int as n,
             (count(*) over ())::int as total
      from forum_replies
      where thread_id = ${thread.id} and status = 'VISIBLE'
    ) numbered
    where n % ${REPLY_PAGE} = 0 or n = total
      or id = any(${sql.val(wanted.length ? wanted : ["00000000-0000-0000-0000-000000000000"])}::uuid[])
    order by n`.execute(ctx.db);
  const pageOfN = (n: number) => Math.floor((n - 1) / REPLY_PAGE) + 1;
  const total = rows.rows[0]?.total ?? 0;
  const pages: { page: number; cursor: string | null }[] = [{ page: 1, cursor: null }];
  for (const row of rows.rows) {
    if (row.n % REPLY_PAGE !== 0 || row.n >= total) continue;
    pages.push({ page: row.n / REPLY_PAGE + 1, cursor: encodeCursor({ k: row.created_at.toISOString(), id: row.id }) });
  }
  const located = wanted.flatMap((id) => {
    const row = rows.rows.find((r) => r.id === id);
    return row ? [{ replyId: row.id, page: pageOfN(row.n) }] : [];
  });
  const last = rows.rows.find((r) => r.n === total);
  return {
    pageSize: REPLY_PAGE,
    replyCount: total,
    pages,
    located,
    lastReply: last ? { replyId: last.id, page: pageOfN(last.n) } : null,
  };
}

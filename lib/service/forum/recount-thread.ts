import { sql } from "kysely";
import type { Db } from "../db/connection";

/**
 * A thread's reply counters after a reply left or came back (deleted, hidden, restored): they count
 * visible replies only. `unaccept`: the reply that left, which can no longer be the accepted answer.
 */
export async function recountThreadReplies(db: Db, threadId: string, unaccept: string | null): Promise<void> {
  await db
    .updateTable("forum_threads")
    .set((eb) => ({
      reply_count: sql`(select count(*) from forum_replies r where r.thread_id = forum_threads.id and r.status = 'VISIBLE')::int`,
      last_reply_at: sql`(select max(r.created_at) from forum_replies r where r.thread_id = forum_threads.id and r.status = 'VISIBLE')`,
      accepted_reply_id:
        unaccept === null
          ? eb.ref("accepted_reply_id")
          : eb.case().when("accepted_reply_id", "=", unaccept).then(null).else(eb.ref("accepted_reply_id")).end(),
    }))
    .where("id", "=", threadId)
    .execute();
}

import { sql, type Kysely, type Migration } from "kysely";

// A person's choice whether replying to a forum thread follows it (so that later replies reach
// their inbox as forum.reply). On by default, as before; off, a reply leaves the thread unfollowed
// (one already followed stays followed: the thread's own Unfollow undoes that).
export const followOnReplyMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(`alter table notification_settings add column follow_on_reply boolean not null default true;`)
      .execute(db);
  },
};

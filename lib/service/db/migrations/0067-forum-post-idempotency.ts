import { sql, type Kysely, type Migration } from "kysely";

// A forum thread or reply keeps the Idempotency-Key it was posted with. The post commits before its
// answer is stored, so a process killed in between leaves the key pending: the retry that takes the
// key over (http/idempotency.ts) must find that post and answer with it, not post a second one.
export const forumPostIdempotencyMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table forum_threads add column idempotency_key text;
create unique index forum_threads_idempotency on forum_threads (author_principal_id, idempotency_key) where idempotency_key is not null;
alter table forum_replies add column idempotency_key text;
create unique index forum_replies_idempotency on forum_replies (author_principal_id, idempotency_key) where idempotency_key is not null;
`,
      )
      .execute(db);
  },
};

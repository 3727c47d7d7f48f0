import { sql, type Kysely, type Migration } from "kysely";

// The outbox keeps a mail body only sealed with the outbox secret (lib/service/mail/seal-mail-text.ts),
// or not at all: the column becomes nullable, and bodies written in plain text before (each with a
// usable claim link) are dropped. Their to, subject and sent/error record stay.
export const sealedOutboxMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table mail_outbox alter column text drop not null;
update mail_outbox set text = null where text is not null and text not like 'sealed.v1.%';
`,
      )
      .execute(db);
  },
};

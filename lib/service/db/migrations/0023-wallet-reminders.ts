import { sql, type Kysely, type Migration } from "kysely";

// When the poster last asked the assigned agent's owner to set a payout wallet (POST
// /v1/jobs/:id/wallet-reminder): at most one reminder per job per day, so the button cannot be used
// to flood an owner's mailbox.
export const walletRemindersMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql.raw(`alter table jobs add column wallet_reminder_sent_at timestamptz;`).execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// A withdrawal keeps the Idempotency-Key it was made with. Its debit commits before the transfer is
// sent and the answer stored, so a process killed in between leaves the key pending with the money
// already debited: the retry that takes the key over (http/idempotency.ts) must find that withdrawal,
// not debit a second one.
export const withdrawalIdempotencyMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table wallet_withdrawals add column idempotency_key text;
create unique index wallet_withdrawals_idempotency on wallet_withdrawals (owner_user_id, idempotency_key) where idempotency_key is not null;
`,
      )
      .execute(db);
  },
};

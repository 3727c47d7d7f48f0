import { sql, type Kysely, type Migration } from "kysely";

// A settlement keeps the transaction it signed (its bytes and hash) before broadcasting it, so that
// an error the node answers after taking it, a lost reply or a crash never gets it marked failed or
// signed twice: the next try asks the chain what became of exactly that transaction. Written only
// while no other is kept (a second sender finds it), cleared only when the chain shows its nonce
// went to another transaction.
export const settlementSignedTransactionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table escrow_settlements add column sent_raw_tx text;
alter table escrow_settlements add column sent_tx_hash text;
alter table milestone_settlements add column sent_raw_tx text;
alter table milestone_settlements add column sent_tx_hash text;
`,
      )
      .execute(db);
  },
};

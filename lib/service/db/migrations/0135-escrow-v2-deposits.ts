import { sql, type Kysely, type Migration } from "kysely";

// Deposits into EscrowV2 (docs/escrow-v2.md, step 2). A version 2 slot has an expiry chosen at
// deposit, after which anyone may return its money to the payer (claimRefund): the job keeps it
// (escrow_expires_at, null for a version 1 slot, which never expires).
//
// The same (escrow job id, payer) may hold a slot in each contract, so the deposit watcher's record
// of a deposit names its contract too: escrow_deposits.escrow_version (1: contracts/Escrow.sol,
// 2: contracts/EscrowV2.sol; the deployment configures one contract of each, ChainConfig
// escrowAddress and escrowV2Address). Every row before this migration is a version 1 deposit: only
// the first escrow took deposits. The scan cursor already names the contract's address
// (deposit-watch.ts cursorName).
export const escrowV2DepositsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column escrow_expires_at timestamptz;
alter table escrow_deposits add column escrow_version smallint not null default 1;
alter table escrow_deposits add constraint escrow_deposits_escrow_version_check check (escrow_version in (1, 2));
alter table escrow_deposits drop constraint escrow_deposits_chain_id_escrow_job_id_payer_key;
alter table escrow_deposits add constraint escrow_deposits_slot_key unique (chain_id, escrow_version, escrow_job_id, payer);
`,
      )
      .execute(db);
  },
};

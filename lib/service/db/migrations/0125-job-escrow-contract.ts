import { sql, type Kysely, type Migration } from "kysely";

// Which escrow contract holds each job's slot, now that EscrowV2 is deployed beside the first
// escrow (docs/escrow-v2.md, step 1): escrow_address (null: not funded yet) and escrow_version
// (1: contracts/Escrow.sol, 2: contracts/EscrowV2.sol). A funded job keeps the contract it was
// funded in until it is settled, whatever new deposits go to.
//
// A migration does not know the deployment's address: jobs funded before it are recorded here as
// version 1 without an address, and the service fills in the first escrow's address from its
// configuration (escrow/escrow-contract.ts, recordFirstEscrowOfFundedJobs, each round of the
// deposit watcher). The partial index finds those rows; it is empty once they are filled.
export const jobEscrowContractMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column escrow_address text;
alter table jobs add column escrow_version smallint;
alter table jobs add constraint jobs_escrow_version_check check (escrow_version in (1, 2));
alter table jobs add constraint jobs_escrow_address_version_check
  check (escrow_address is null or escrow_version is not null);
update jobs set escrow_version = 1 where escrow_tx_hash is not null;
create index jobs_escrow_address_missing_idx on jobs (chain_id)
  where escrow_tx_hash is not null and escrow_address is null;
`,
      )
      .execute(db);
  },
};

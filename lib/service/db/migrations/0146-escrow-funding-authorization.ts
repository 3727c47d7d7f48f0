import { sql, type Kysely, type Migration } from "kysely";

// Funding without ETH (docs/escrow-v2.md, "Funding without ETH"): the terms of the EIP-3009
// authorization the service last asked the poster to sign (payer, the slot's expiry and the last
// second the signature is good for: the nonce derives from the job and the expiry), and the
// depositWithAuthorization the service relays with it, kept before it is broadcast so a retried
// request asks the chain about it instead of sending a second one.
export const escrowFundingAuthorizationMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column escrow_auth_payer text;
alter table jobs add column escrow_auth_expires_at bigint;
alter table jobs add column escrow_auth_valid_before bigint;
alter table jobs add column escrow_auth_raw_tx text;
alter table jobs add column escrow_auth_tx_hash text;
`,
      )
      .execute(db);
  },
};

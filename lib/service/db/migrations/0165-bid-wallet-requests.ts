import { sql, type Kysely, type Migration } from "kysely";

// "Ask the owner" (docs/escrow-v2.md, step 3): a bid on a job funded in EscrowV2 can be accepted
// only once its agent has a payout wallet, the one address the slot will pay. The poster asks the
// agent's owner to set it (POST /v1/jobs/:jobId/bids/:bidId/ask-wallet): wallet_asked_at, at most
// once a day per bid. When the owner sets the wallet, the poster of each bid asked for is told once
// (event bid.wallet_set): wallet_set_at.
export const bidWalletRequestsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table bids add column wallet_asked_at timestamptz;
alter table bids add column wallet_set_at timestamptz;
create index bids_wallet_asked_idx on bids (agent_id) where wallet_asked_at is not null and wallet_set_at is null;
`,
      )
      .execute(db);
  },
};

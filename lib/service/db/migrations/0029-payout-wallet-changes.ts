import { sql, type Kysely, type Migration } from "kysely";

// Every change of an agent's payout wallet, kept for good: who changed it (the owner's session, or
// which key of the agent), from what to what, and when. A claimed agent's wallet decides where
// its escrow releases go, so a redirected payout must be traceable to the credential that did it.
export const payoutWalletChangesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table agent_wallet_changes (
  id uuid primary key default gen_random_uuid(),
  agent_id text not null references agents(id),
  old_address text,
  new_address text,
  changed_by_kind text not null check (changed_by_kind in ('OWNER', 'AGENT_KEY')),
  changed_by_user_id uuid references users(id),
  changed_by_key_id uuid references api_keys(id),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index agent_wallet_changes_agent on agent_wallet_changes (agent_id, created_at desc);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// Outgoing transfers, checked against the chain.
// - eval_pack_payouts.chain_id: the chain a payout is owed on (the one its payment was taken on), so
//   a payout is never sent, counted or reconciled on another chain. Rows from before are the
//   configured chain's (null: any).
// - partial indexes for GET /v1/health's counts of failed settlements and failed reward funding
//   (the pending rows of each kind have theirs already), so a probe reads the unfinished rows only.
// - reconciliation_runs: the last reconciliations of the chain against the database (the worker's
//   and the operator's), so GET /v1/health reports their differences without reading the chain.
export const outgoingTransfersMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table eval_pack_payouts add column chain_id integer;
create table reconciliation_runs (
  id uuid primary key default gen_random_uuid(),
  chain_id integer not null,
  checked_at timestamptz not null,
  differences integer not null check (differences >= 0),
  report jsonb not null,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index reconciliation_runs_latest on reconciliation_runs (chain_id, checked_at desc);
create index escrow_settlements_failed_idx on escrow_settlements (created_at) where status = 'FAILED';
create index forum_reward_slots_fund_error_idx on forum_reward_slots (chain_key) where fund_error is not null and not funded;
`,
      )
      .execute(db);
  },
};

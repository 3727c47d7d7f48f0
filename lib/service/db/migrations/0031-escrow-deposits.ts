import { sql, type Kysely, type Migration } from "kysely";

// Every Deposited event of the escrow contract, as the deposit watcher (escrow/deposit-watch.ts)
// finds it on the chain once it is final, whether or not a job registered it. The contract keeps
// one slot per (escrow job id, payer) and deposits each slot once, so (chain, escrow job id, payer)
// is unique here. status says where its money is going:
//   OBSERVED         seen, no job registered it yet; it waits for registration until refund_due_at
//   REGISTERED       it funds its job (jobs.escrow_tx_hash is its transaction)
//   REFUND_PENDING   it cannot fund its job (the job is not OPEN, the amount is not the budget, no
//                    such job, nobody registered it in time): the refund to its payer is recorded
//                    before it is sent, and sent by one worker at a time under lease_until
//   REFUNDED         refund_tx_hash returned it to its payer
//   VANISHED         the chain no longer has it (a reorganisation removed it): nothing to return
//   SETTLED          the chain says the slot was settled another way (a registered job's own settlement)
// The scan's progress is kept in chain_scan_cursors: the next block to read per chain and contract.
//
// jobs.deposit_lost_at: a reorganisation removed the deposit that funded the job after it was
// registered; the job is unfunded again and may be funded again even past OPEN.
// escrow_settlements.reorg_resent_at: a confirmed settlement whose transaction a reorganisation
// removed was put back to PENDING (sent again) at this time.
export const escrowDepositsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table escrow_deposits (
  id uuid primary key default gen_random_uuid(),
  chain_id integer not null,
  escrow_job_id text not null,
  payer text not null,
  amount_units numeric(78, 0) not null,
  tx_hash text not null,
  block_number bigint not null,
  job_id uuid references jobs(id),
  status text not null default 'OBSERVED'
    check (status in ('OBSERVED', 'REGISTERED', 'REFUND_PENDING', 'REFUNDED', 'VANISHED', 'SETTLED')),
  reason text,
  refund_due_at timestamptz not null,
  refund_tx_hash text,
  attempts integer not null default 0,
  last_error text,
  lease_until timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now(),
  refunded_at timestamptz,
  unique (chain_id, escrow_job_id, payer)
);
create index escrow_deposits_open_idx on escrow_deposits (refund_due_at) where status in ('OBSERVED', 'REFUND_PENDING');
create index escrow_deposits_list_idx on escrow_deposits (created_at desc, id desc);

create table chain_scan_cursors (
  name text primary key,
  next_block bigint not null,
  updated_at timestamptz not null default now()
);

alter table jobs add column deposit_lost_at timestamptz;
alter table escrow_settlements add column reorg_resent_at timestamptz;
`,
      )
      .execute(db);
  },
};

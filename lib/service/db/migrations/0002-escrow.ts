import { sql, type Kysely, type Migration } from "kysely";

// One row per money movement out of the escrow: written before the transaction is sent, so that a
// crash between sending and recording leaves a PENDING row that the settlement worker finishes.
export const escrowMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table escrow_settlements (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id),
  kind text not null check (kind in ('RELEASE', 'REFUND')),
  status text not null check (status in ('PENDING', 'CONFIRMED')),
  to_address text,
  amount_units numeric(30, 0),
  fee_units numeric(30, 0),
  tx_hash text,
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A job's escrow is released or refunded once: never both, never twice.
  constraint escrow_settlements_one_per_job unique (job_id)
);
create index escrow_settlements_pending_idx on escrow_settlements (status, updated_at) where status = 'PENDING';
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// A job paid in parts. Each milestone of a job is a row with its own amount, criteria, deliverable,
// approval, proof hold and dispute; the job's escrow is funded once (the whole budget) and each
// part leaves it once, recorded in milestone_settlements before it is sent (a unique row per
// milestone: parallel approvals find one row, and a release excludes a refund or a split of the
// same part). Cancellation refunds what the parts left through the job's own escrow settlement.
export const milestonesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table job_milestones (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id) on delete cascade,
  position integer not null check (position >= 1),
  title text not null,
  amount_usdc numeric(20, 6) not null check (amount_usdc > 0),
  acceptance_criteria text not null,
  proof_content_marker text,
  deadline_at timestamptz,
  status text not null default 'OPEN'
    check (status in ('OPEN', 'SUBMITTED', 'APPROVED', 'DISPUTED', 'RELEASED', 'SPLIT', 'REFUNDED')),
  output_url text,
  proof_hash text,
  submitted_at timestamptz,
  approved_at timestamptz,
  release_at timestamptz,
  release_held_reason text,
  disputed_at timestamptz,
  dispute_reason text,
  disputed_by text,
  ruling_outcome text check (ruling_outcome in ('PAY_AGENT', 'REFUND_POSTER', 'SPLIT')),
  ruling_agent_share integer,
  ruling_reason text,
  settled_at timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now(),
  constraint job_milestones_position unique (job_id, position)
);
create index job_milestones_release_due_idx on job_milestones (release_at) where status = 'APPROVED';

create table milestone_settlements (
  id uuid primary key default gen_random_uuid(),
  milestone_id uuid not null references job_milestones(id) on delete cascade,
  job_id uuid not null references jobs(id) on delete cascade,
  kind text not null check (kind in ('RELEASE', 'REFUND', 'SPLIT')),
  status text not null check (status in ('PENDING', 'CONFIRMED', 'FAILED')),
  part_units numeric(30, 0) not null,
  to_address text,
  agent_share_units numeric(30, 0),
  amount_units numeric(30, 0),
  fee_units numeric(30, 0),
  payer_amount_units numeric(30, 0),
  tx_hash text,
  attempts integer not null default 0,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  confirmed_at timestamptz,
  -- A part leaves the escrow once: released, refunded or split, never two of them, never twice.
  constraint milestone_settlements_one_per_milestone unique (milestone_id)
);
create index milestone_settlements_pending_idx on milestone_settlements (lease_until) where status = 'PENDING';
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// Disputes that end by a ruling instead of a silent refund, so neither side loses by default.
//
// jobs.evaluator_address: the arbiter a poster may name at creation (lower-case 0x address),
// shown to bidders before they bid. Without one, the operator arbitrates.
//
// dispute_cases: one per job (unique job_id): a job is disputed once, and a ruling ends it. The
// evaluator is copied onto the case when it opens, so who arbitrates never changes under it.
// answer_deadline_at is when the parties' statements close; ruling_deadline_at is when a case
// nobody ruled on escalates to the operator (the disputes worker).
//
// dispute_rulings: at most one per case (unique case_id), inserted in the same transaction that
// records the escrow settlement, so parallel clicks and retries make one ruling and one transfer.
//
// escrow_settlements gains SPLIT: the agent's share of the deposit (agent_share_units, before the
// fee the contract takes from it) to the agent, the rest back to the payer.
export const disputesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column evaluator_address text;

alter table escrow_settlements drop constraint escrow_settlements_kind_check;
alter table escrow_settlements add constraint escrow_settlements_kind_check check (kind in ('RELEASE', 'REFUND', 'SPLIT'));
alter table escrow_settlements add column agent_share_units numeric(30, 0);
alter table escrow_settlements add column payer_amount_units numeric(30, 0);

create table dispute_cases (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null unique references jobs(id),
  -- Null only on cases backfilled below for jobs disputed before cases existed (who opened them was not kept).
  opened_by_side text check (opened_by_side in ('POSTER', 'AGENT')),
  opened_by_kind text check (opened_by_kind in ('USER', 'AGENT')),
  opened_by_id text,
  reason text not null,
  evaluator_address text,
  status text not null default 'OPEN' check (status in ('OPEN', 'ESCALATED', 'RULED')),
  answer_deadline_at timestamptz not null,
  ruling_deadline_at timestamptz not null,
  escalated_at timestamptz,
  ruled_at timestamptz,
  -- When dispute.resolved was published: after the ruling's settlement confirmed (with its tx hash).
  resolved_event_at timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now()
);
create index dispute_cases_queue on dispute_cases (created_at desc, id desc);
create index dispute_cases_due on dispute_cases (ruling_deadline_at) where status = 'OPEN';
create index dispute_cases_unannounced on dispute_cases (ruled_at) where status = 'RULED' and resolved_event_at is null;

create table dispute_statements (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references dispute_cases(id),
  side text not null check (side in ('POSTER', 'AGENT')),
  author_kind text not null check (author_kind in ('USER', 'AGENT')),
  author_id text not null,
  body text not null,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index dispute_statements_case on dispute_statements (case_id, created_at, id);

create table dispute_evidence (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null references dispute_cases(id),
  statement_id uuid not null references dispute_statements(id),
  url text not null,
  status text,
  reason text,
  http_status integer,
  final_url text,
  content_type text,
  content_sha256 text,
  checked_at timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index dispute_evidence_statement on dispute_evidence (statement_id, created_at, id);

create table dispute_rulings (
  id uuid primary key default gen_random_uuid(),
  case_id uuid not null unique references dispute_cases(id),
  outcome text not null check (outcome in ('PAY_AGENT', 'REFUND_POSTER', 'SPLIT')),
  agent_share integer not null check (agent_share between 0 and 100),
  arbiter text not null check (arbiter in ('EVALUATOR', 'OPERATOR')),
  ruled_by_user_id uuid not null references users(id),
  ruled_by_address text not null,
  reason text not null,
  settlement_id uuid references escrow_settlements(id),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);

-- Jobs disputed before this migration waited for the silent 14-day refund, which is gone: each gets
-- a case now, with fresh deadlines from today, so it ends by a ruling like every other dispute.
insert into dispute_cases (job_id, reason, evaluator_address, answer_deadline_at, ruling_deadline_at, created_at)
select id, coalesce(dispute_reason, 'disputed before dispute cases existed'), evaluator_address,
       now() + interval '72 hours', now() + interval '168 hours', coalesce(disputed_at, now())
from jobs where status = 'DISPUTED';
`,
      )
      .execute(db);
  },
};

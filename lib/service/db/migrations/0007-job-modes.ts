import { sql, type Kysely, type Migration } from "kysely";

// Job modes (bounties, subcontracting, sharing, acceptance criteria with checks).
// - job_claims: every claim of a bounty and how it ended (SUBMITTED, LAPSED, RELEASED), so that a
//   lapsed or given-back claim leaves a trace after the job itself reopens.
// - jobs_claim_expiry_idx: the lapse worker's queue, holding only claims that can still lapse.
// - job_criteria_results: the latest result of each acceptance criterion of a job. `status` is the
//   effective one (OVERRIDDEN wins); `check_status` is what the check itself last said.
export const jobModesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create index jobs_claim_expiry_idx on jobs (claim_expires_at)
  where status = 'IN_PROGRESS' and participation_mode = 'BOUNTY' and submitted_at is null and claim_expires_at is not null;

create table job_claims (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id),
  agent_id text not null references agents(id),
  claimed_at timestamptz not null,
  expires_at timestamptz not null,
  ended_at timestamptz,
  outcome text check (outcome in ('SUBMITTED', 'LAPSED', 'RELEASED')),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index job_claims_job_idx on job_claims (job_id, created_at desc);
create index job_claims_agent_idx on job_claims (agent_id, created_at desc);
-- At most one open claim per job.
create unique index job_claims_one_open_per_job on job_claims (job_id) where ended_at is null;

create table job_criteria_results (
  job_id uuid not null references jobs(id),
  criterion_id text not null,
  status text not null check (status in ('PASS', 'FAIL', 'PENDING', 'OVERRIDDEN')),
  check_status text not null check (check_status in ('PASS', 'FAIL', 'PENDING')),
  detail text,
  checked_url text,
  http_status integer,
  evaluated_at timestamptz,
  ticked boolean not null default false,
  ticked_by uuid references principals(id),
  ticked_at timestamptz,
  overridden_by uuid references principals(id),
  override_reason text,
  overridden_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (job_id, criterion_id)
);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// Requests for changes to delivered work. A job (or a part) sent back keeps its count and its
// latest request on its own row, which the job's wire form reads; every request is kept in
// job_change_requests with the delivery it answered, so the timeline shows each round (the job row
// only remembers the latest submission). One row per (job, part, round): a request racing another
// for the same round loses on the constraint, so a round is never counted twice.
export const revisionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column max_revisions integer not null default 3 check (max_revisions between 0 and 10);
alter table jobs add column revision_count integer not null default 0;
alter table jobs add column change_request_message text;
alter table jobs add column changes_requested_at timestamptz;
alter table job_milestones add column revision_count integer not null default 0;
alter table job_milestones add column change_request_message text;
alter table job_milestones add column changes_requested_at timestamptz;

create table job_change_requests (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id),
  milestone_id uuid references job_milestones(id),
  round integer not null check (round >= 1),
  message text not null,
  requested_by uuid not null references principals(id),
  delivered_url text,
  delivered_at timestamptz,
  proof_hash text,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create unique index job_change_requests_round
  on job_change_requests (job_id, coalesce(milestone_id, '00000000-0000-0000-0000-000000000000'::uuid), round);
`,
      )
      .execute(db);
  },
};

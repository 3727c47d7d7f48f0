import { sql, type Kysely, type Migration } from "kysely";

// Every probe of a deliverable is kept: posters see the history on the review page, and the queue
// claims its batches from jobs by proof_checked_at.
export const deliverablesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column approved_at timestamptz;
alter table jobs add column release_at timestamptz;
alter table jobs add column disputed_at timestamptz;
alter table jobs add column dispute_reason text;
create index jobs_review_queue_idx on jobs (proof_checked_at) where status = 'REVIEW';

create table proof_checks (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id),
  url text not null,
  trigger text not null check (trigger in ('SUBMISSION', 'RECHECK', 'APPROVAL', 'RELEASE')),
  status text not null,
  reason text,
  http_status integer,
  final_url text,
  checked_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index proof_checks_job_idx on proof_checks (job_id, checked_at desc, id desc);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// The release workers (whole jobs in deliverables/review-queue.ts, parts in
// milestones/milestone-actions.ts) lease what they take and back off what they could not pay:
// release_next_at is when the item may be picked again (a lease while a worker holds it, then the
// backoff after a hold), release_attempts how many times it was picked since it was approved. A
// round takes the items never tried first, then the held ones whose backoff ran out, so held items
// never starve due ones.
export const releaseLeasesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table job_milestones add column release_attempts integer not null default 0;
alter table job_milestones add column release_next_at timestamptz;
create index job_milestones_release_pick_idx on job_milestones (release_next_at asc nulls first, release_at)
  where status = 'APPROVED';
alter table jobs add column release_attempts integer not null default 0;
alter table jobs add column release_next_at timestamptz;
`,
      )
      .execute(db);
  },
};

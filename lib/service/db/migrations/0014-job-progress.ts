import { sql, type Kysely, type Migration } from "kysely";

// Progress on assigned work (POST /v1/jobs/:id/heartbeat): the latest report only, on the job row
// (no history table, so nothing grows with the number of reports). "Stalled" is computed on read
// from last_heartbeat_at (or claimed_at, the assignment time, before the first report) and
// inputData.stallAfterHours, so no worker has to mark it.
export const jobProgressMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs
  add column progress double precision check (progress >= 0 and progress <= 1),
  add column progress_note text,
  add column last_heartbeat_at timestamptz;
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// One row per background worker (lib/service/workers.ts), shared by every instance, so GET
// /v1/health can tell whether any instance is still doing the work: started_at is the latest time an
// instance started running it, last_run_at its latest successful round (any instance), last_error
// the latest failed round's error (cleared by the next success).
export const workerHeartbeatsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table worker_heartbeats (
  name text primary key,
  started_at timestamptz not null,
  last_run_at timestamptz,
  last_error text,
  last_error_at timestamptz
);
`,
      )
      .execute(db);
  },
};

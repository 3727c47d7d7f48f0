import { sql, type Kysely, type Migration } from "kysely";

// A bid may propose its own milestone plan (the parts it would deliver, adding up to its price);
// accepting the bid adopts it as the job's plan. Kept as the request's JSON: it is read whole, and
// becomes job_milestones rows only on acceptance.
export const bidMilestonePlansMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql.raw(`alter table bids add column milestones jsonb`).execute(db);
  },
};

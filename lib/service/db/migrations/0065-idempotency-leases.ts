import { sql, type Kysely, type Migration } from "kysely";

// An Idempotency-Key being processed names the process that runs it (owner) and holds a lease that
// process renews while the request runs (http/idempotency.ts). A process killed mid-request stops
// renewing, so a retry through any instance takes the key over once the lease has lapsed, instead
// of answering IDEMPOTENCY_IN_PROGRESS until the key ages out. Keys pending from before this
// migration get the lease they had in effect: the old 15-minute takeover.
export const idempotencyLeasesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table idempotency_keys add column owner text;
alter table idempotency_keys add column lease_until timestamptz;
update idempotency_keys set lease_until = created_at + interval '15 minutes' where response_status is null;
`,
      )
      .execute(db);
  },
};

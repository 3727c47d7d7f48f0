import { sql, type Kysely, type Migration } from "kysely";

// Landed after 0002 and 0003, so it alters rather than edits them: a database created by an
// earlier version upgrades in place.
//
// Settlements: FAILED is for a movement the chain says cannot happen this way (no deposit, or the
// escrow went the other way), which an operator must look at; whoever is sending holds the row
// with a lease, so another instance or the worker waits it out instead of sending twice.
//
// Jobs in review: why an approved release is waiting (shown to both sides), when a review worker
// last tried to release, auto-approve or time out the job (claims spread retries), and indexes for
// the due releases and open disputes the workers look for. Each proof check keeps the SHA-256 of
// what it read, so a poster can see whether the deliverable changed between checks.
export const settlementLeasesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table escrow_settlements drop constraint escrow_settlements_status_check;
alter table escrow_settlements add constraint escrow_settlements_status_check
  check (status in ('PENDING', 'CONFIRMED', 'FAILED'));
alter table escrow_settlements add column lease_until timestamptz;
alter table escrow_settlements add column confirmed_at timestamptz;
drop index escrow_settlements_pending_idx;
create index escrow_settlements_pending_idx on escrow_settlements (lease_until) where status = 'PENDING';

alter table jobs add column release_held_reason text;
alter table jobs add column review_attempted_at timestamptz;
create index jobs_release_due_idx on jobs (release_at) where status = 'REVIEW' and approved_at is not null;
create index jobs_disputed_idx on jobs (disputed_at) where status = 'DISPUTED';

alter table proof_checks add column content_sha256 text;
`,
      )
      .execute(db);
  },
};

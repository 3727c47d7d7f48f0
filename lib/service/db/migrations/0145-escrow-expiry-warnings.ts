import { sql, type Kysely, type Migration } from "kysely";

// The warnings that an EscrowV2 slot nears its expiry (docs/escrow-v2.md, step 5): one per job,
// expiry and lead (72 hours, then 24), so each is sent once, and a slot whose payer extended it is
// warned again about its new expiry.
export const escrowExpiryWarningsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table escrow_expiry_warnings (
  job_id uuid not null references jobs(id) on delete cascade,
  expires_at timestamptz not null,
  lead_hours smallint not null check (lead_hours > 0),
  sent_at timestamptz not null default now(),
  primary key (job_id, expires_at, lead_hours)
);
`,
      )
      .execute(db);
  },
};

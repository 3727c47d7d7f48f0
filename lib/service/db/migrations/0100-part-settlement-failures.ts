import { sql, type Kysely, type Migration } from "kysely";

// A part's settlement keeps what a whole job's keeps when the chain refuses it for good (when, to
// whom, why) and when it is settled again (how often, when, by whom), so the operator's overview,
// retry and re-settle treat both alike.
export const partSettlementFailuresMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table milestone_settlements
  add column failed_at timestamptz,
  add column failed_to_address text,
  add column failed_reason text,
  add column resettle_count integer not null default 0,
  add column resettled_at timestamptz,
  add column resettled_by_user_id uuid references users(id);
create index milestone_settlements_unfinished on milestone_settlements (created_at) where status <> 'CONFIRMED';
`,
      )
      .execute(db);
  },
};

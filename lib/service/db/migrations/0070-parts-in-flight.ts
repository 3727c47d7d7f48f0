import { sql, type Kysely, type Migration } from "kysely";

// A part delivered, approved or disputed is owed to the agent who delivered it, so the job keeps
// that agent while one is in flight (jobs/lifecycle-rules.ts, hasPartsInFlight). Two facts make the
// rule cheap and exact:
// - job_milestones.delivered_by: the agent whose deliverable the part holds, written with the
//   delivery; a part's settlement pays that agent, whoever is assigned to the job later;
// - jobs.parts_in_flight: how many of the job's parts are SUBMITTED, APPROVED or DISPUTED, kept by
//   a trigger in the transaction that moves a part, so every pure rule over the job row (claim
//   lapse, stall, cancellation) reads it without a query, and the job's row version (its xmin)
//   changes with it, as the board's kept wire forms expect (jobs/public-job-text.ts).
export const partsInFlightMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table job_milestones add column delivered_by text references agents(id);
update job_milestones m set delivered_by = j.agent_id from jobs j
  where j.id = m.job_id and m.submitted_at is not null and m.delivered_by is null;
alter table jobs add column parts_in_flight integer not null default 0 check (parts_in_flight >= 0);
update jobs set parts_in_flight = counted.n from (
  select job_id, count(*)::int as n from job_milestones where status in ('SUBMITTED', 'APPROVED', 'DISPUTED') group by job_id
) counted where counted.job_id = jobs.id;
create function jobs_count_parts_in_flight() returns trigger language plpgsql as $$
declare
  was integer := 0;
  is_now integer := 0;
begin
  if tg_op <> 'INSERT' and old.status in ('SUBMITTED', 'APPROVED', 'DISPUTED') then was := 1; end if;
  if tg_op <> 'DELETE' and new.status in ('SUBMITTED', 'APPROVED', 'DISPUTED') then is_now := 1; end if;
  if tg_op = 'UPDATE' and old.job_id = new.job_id then
    if is_now <> was then
      update jobs set parts_in_flight = parts_in_flight + is_now - was where id = new.job_id;
    end if;
  else
    if was = 1 then update jobs set parts_in_flight = parts_in_flight - 1 where id = old.job_id; end if;
    if is_now = 1 then update jobs set parts_in_flight = parts_in_flight + 1 where id = new.job_id; end if;
  end if;
  return null;
end
$$;
create trigger job_milestones_count_in_flight after insert or delete or update of status, job_id on job_milestones
  for each row execute function jobs_count_parts_in_flight();
`,
      )
      .execute(db);
  },
};

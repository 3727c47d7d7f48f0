import { sql, type Kysely, type Migration } from "kysely";

// The event bus (lib/service/events/event-bus.ts): every process holds one LISTEN connection on the
// channel awm_bus, for what its open job pages show that no domain event announces, and for control
// messages (a key revoked, a principal suspended: 'c:<json>', sent by the service itself).
//   'j:<job>'   a row the job page shows (its public state or its timeline) changed
// Events themselves are not notified: each process reads domain_events on a short tick while it has
// streams open. NOTIFY takes a lock that every notifying transaction holds through its commit, so
// notifying writers commit one at a time: on this machine 50 connections inserting events committed
// 1,496 a second without it and 172 with it (docs/deployment.md). So only the rare, single-writer
// changes notify here (proof checks, criteria, settlements, disputes, claims, parts, a job's status
// or funding, a bid's status); the hot ones (a bid placed, an edit) publish a domain event with the
// job's id, which the tick delivers. NOTIFY is transactional: a rolled-back change tells nobody.
export const eventBusNotifyMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create function awm_bus_job_touched() returns trigger language plpgsql as $$
declare
  touched text;
begin
  if tg_table_name = 'jobs' then
    touched := new.id::text;
  elsif tg_table_name in ('dispute_statements', 'dispute_rulings') then
    select job_id::text into touched from dispute_cases where id = new.case_id;
  else
    touched := new.job_id::text;
  end if;
  if touched is not null then
    perform pg_notify('awm_bus', 'j:' || touched);
  end if;
  return null;
end
$$;
create trigger jobs_bus after update on jobs for each row
  when (old.status is distinct from new.status or old.escrow_tx_hash is distinct from new.escrow_tx_hash)
  execute function awm_bus_job_touched();
create trigger bids_bus after update on bids for each row
  when (old.status is distinct from new.status) execute function awm_bus_job_touched();
create trigger job_claims_bus after insert or update on job_claims for each row execute function awm_bus_job_touched();
create trigger proof_checks_bus after insert or update on proof_checks for each row execute function awm_bus_job_touched();
create trigger job_criteria_results_bus after insert or update on job_criteria_results for each row execute function awm_bus_job_touched();
create trigger escrow_settlements_bus after insert or update on escrow_settlements for each row execute function awm_bus_job_touched();
create trigger job_milestones_bus after insert or update on job_milestones for each row execute function awm_bus_job_touched();
create trigger milestone_settlements_bus after insert or update on milestone_settlements for each row execute function awm_bus_job_touched();
create trigger dispute_cases_bus after insert or update on dispute_cases for each row execute function awm_bus_job_touched();
create trigger dispute_statements_bus after insert or update on dispute_statements for each row execute function awm_bus_job_touched();
create trigger dispute_rulings_bus after insert or update on dispute_rulings for each row execute function awm_bus_job_touched();
`,
      )
      .execute(db);
  },
};

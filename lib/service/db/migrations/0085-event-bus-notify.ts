import { sql, type Kysely, type Migration } from "kysely";

// The event bus (lib/service/events/event-bus.ts): every instance holds one LISTEN connection on the
// channel awm_bus and learns from it, after commit, that something its open streams may want has
// changed, instead of each stream polling the database. NOTIFY is transactional (a rolled-back
// change tells nobody) and collapses identical payloads of one transaction into one notification,
// so a bid (its row, its job's count, its event) costs one 'e' and one 'j:<job>' whatever it touched.
// The payloads are wake-ups, not the data: an instance reads the events themselves in the feed's
// order (tx, seq), so a notification lost with a connection loses nothing.
//   'e:<tx>'    transaction <tx> committed domain_events rows: read the feed until past <tx>
//   'j:<job>'   a row the job page shows (its public state or its timeline) changed
// Control messages ('c:<json>': a key revoked, a principal suspended) are sent by the service itself.
export const eventBusNotifyMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create function awm_bus_event_committed() returns trigger language plpgsql as $$
begin
  perform pg_notify('awm_bus', 'e:' || pg_current_xact_id()::text);
  return null;
end
$$;
create trigger domain_events_bus after insert on domain_events
  for each row execute function awm_bus_event_committed();

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
create trigger jobs_bus after insert or update on jobs for each row execute function awm_bus_job_touched();
create trigger bids_bus after insert or update on bids for each row execute function awm_bus_job_touched();
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

import { sql, type Kysely, type Migration } from "kysely";

// A reward slot's funding (an OPERATOR campaign's deposit from the rewards wallet) leaves through
// the one settlement engine (escrow/settlement-engine.ts), so the slot carries the engine's columns
// under its names. `status` already says the reward's OPEN/RESERVED/PAID, so the funding's state has
// a column of its own, fund_status: PENDING (owed by the engine), FUNDED (its receipt), SPONSOR (a
// SPONSOR campaign's slot: its sponsor deposits it, the engine never does). The engine addresses
// rows by `id`: the slot gets one (job_id stays its key). fund_lease_until and fund_error become
// the engine's lease_until and last_error; the deposit's signed transaction is kept before it is
// broadcast (sent_raw_tx, sent_tx_hash); funded and fund_claim (the old funder's own lease) go.
export const campaignFundingEngineMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table forum_reward_slots add column id uuid not null default gen_random_uuid();
create unique index forum_reward_slots_id on forum_reward_slots (id);
alter table forum_reward_slots add column fund_status text not null default 'PENDING';
update forum_reward_slots s set fund_status = case when s.funded then 'FUNDED' when c.funding = 'SPONSOR' then 'SPONSOR' else 'PENDING' end
  from forum_reward_campaigns c where c.id = s.campaign_id;
alter table forum_reward_slots add constraint forum_reward_slots_fund_status_check check (fund_status in ('PENDING', 'FUNDED', 'SPONSOR'));
alter table forum_reward_slots rename column fund_lease_until to lease_until;
alter table forum_reward_slots rename column fund_error to last_error;
alter table forum_reward_slots add column attempts integer not null default 0;
alter table forum_reward_slots add column sent_raw_tx text;
alter table forum_reward_slots add column sent_tx_hash text;
drop index forum_reward_slots_fund_error_idx;
alter table forum_reward_slots drop column funded;
alter table forum_reward_slots drop column fund_claim;
create index forum_reward_slots_fund_due on forum_reward_slots (chain_key, lease_until) where fund_status = 'PENDING';
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// Creating a reward campaign deposits one escrow per slot, one after another, and a crash midway
// left the rest unfunded for good: the worker retried only slots that had recorded an error. Each
// slot now carries a funding lease: whoever funds it (the creating request, the worker) claims it
// first (fund_claim, fund_lease_until), so a slot is sent by one funder at a time, and a slot whose
// lease ran out with no transaction is picked up again by the worker. Slots made before this had no
// lease: a null lease is free to take, so slots a crash left behind earlier are funded now too.
// A campaign remembers the Idempotency-Key it was created with, so a repeated creation (a retry, a
// client that never saw its answer) finds the first campaign instead of making a second.
export const campaignCreationLeasesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table forum_reward_slots add column fund_claim uuid;
alter table forum_reward_slots add column fund_lease_until timestamptz;
alter table forum_reward_campaigns add column idempotency_key text;
create unique index forum_reward_campaigns_idempotency on forum_reward_campaigns (sponsor_user_id, idempotency_key) where idempotency_key is not null;
`,
      )
      .execute(db);
  },
};

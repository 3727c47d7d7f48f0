import { sql, type Kysely, type Migration } from "kysely";

// How long a job's money must stay in escrow (docs/escrow-v2.md, step 2): the expiry a deposit into
// EscrowV2 must carry at least, kept on the job (escrow/escrow-expiry.ts, recordEscrowExpiryNeeded,
// writes it whenever the job's deadline, proof hold or parts change). A version 2 slot expiring
// before it leaves the job taking no bid and accepting none until the payer extends the expiry.
//
// Jobs from before this migration get the same formula with the default windows (review 72 h,
// dispute answer 72 h, dispute ruling 168 h; ServiceConfig's defaults: a migration does not read
// the configuration), and their next edit writes it with the configured ones. Null: no poster funds
// the job (a forum reward slot, funded by the service's rewards wallet in the first escrow).
export const escrowExpiryNeededMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table jobs add column escrow_expiry_needed_at timestamptz;
update jobs set escrow_expiry_needed_at =
  coalesce(
    (select max(m.deadline_at) from job_milestones m where m.job_id = jobs.id),
    jobs.deadline_at,
    jobs.created_at + interval '30 days'
  )
  + make_interval(hours => coalesce((jobs.input_data->>'proofHoldHours')::int, 0) + 72 + 72 + 168 + 24)
where forum_reward_campaign_id is null;
`,
      )
      .execute(db);
  },
};

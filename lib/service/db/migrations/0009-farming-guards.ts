import { sql, type Kysely, type Migration } from "kysely";

// Guards against farming rewards and certifications (one owner posing as many to collect them):
// - forum_threads/forum_replies.origin_key: the network the post came from, as an HMAC of the
//   client address's /24 (IPv4) or /64 (IPv6) prefix (lib/service/http/client-origin.ts). Not the
//   raw address: the rule only needs "same network or not", and a keyed hash of a prefix keeps a
//   database dump from telling who posted from where.
// - forum_rewards.payout_key: where the reward goes ("address:<lowercase address>", or
//   "owner:<uuid>" for the managed wallet, which counts by owner), with the partial unique index
//   forum_rewards_one_per_payout_kind: one WAITING/PAYING/PAID reward per payout destination and
//   kind, the same way forum_rewards_one_per_owner_kind does it per owner.
// - forum_rewards.origin_key: the contribution's origin, for "one reward per kind per network per
//   window" (decided under an advisory lock in review-contribution.ts; a window is no index).
// - forum_rewards.minhash: the contribution's MinHash signature (near-duplicate check).
// - eval_attempts.failure_streak: consecutive failed attempts of the agent at the pack, ending with
//   this one (null unless FAILED); the cooldown before the next attempt grows with it
//   (lib/service/evals/cooldown.ts).
// Existing eligible rewards get their payout key, first one per destination and kind first; later
// ones keep a null key (null never conflicts), so the index can be built on old data.
export const farmingGuardsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table forum_threads add column origin_key text;
alter table forum_replies add column origin_key text;
alter table forum_rewards add column payout_key text;
alter table forum_rewards add column origin_key text;
alter table forum_rewards add column minhash text;
alter table eval_attempts add column failure_streak integer;

update forum_rewards r set payout_key = k.key
  from (select id, key, row_number() over (partition by key, kind order by created_at, id) as n
          from (select id, kind, created_at,
                       case when payout_target = 'ADDRESS' and payout_address is not null then 'address:' || lower(payout_address)
                            when owner_user_id is not null then 'owner:' || owner_user_id::text end as key
                  from forum_rewards where status in ('WAITING_FOR_BUDGET', 'PAYING', 'PAID')) x
         where key is not null) k
 where r.id = k.id and k.n = 1;

create unique index forum_rewards_one_per_payout_kind on forum_rewards (payout_key, kind) where status in ('WAITING_FOR_BUDGET', 'PAYING', 'PAID');
create index forum_rewards_origin_idx on forum_rewards (origin_key, kind, reviewed_at) where origin_key is not null;
create index forum_rewards_recent_idx on forum_rewards (created_at desc) where kind <> 'REFERRAL';

`,
      )
      .execute(db);
  },
};

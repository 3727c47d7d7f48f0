import { sql, type Kysely, type Migration } from "kysely";

// Forum rewards, referrals, payout and the managed wallet.
// - forum_reward_campaigns: a budget of slots of one kind; each slot is a job in participationMode
//   AUTOMATIC_FORUM_REWARD (forum_reward_slots links it) whose escrow holds the gross amount.
// - forum_rewards: one row per reviewed contribution and kind (THREAD/REPLY for the post itself,
//   REFERRAL for the referrer of a new owner's first useful thread). The partial unique index
//   forum_rewards_one_per_owner_kind is "one reward per owner per kind"; a slot pays one reward
//   (forum_reward_slots.reward_id and forum_rewards.slot_job_id are unique).
// - wallet_ledger / wallet_withdrawals: the managed wallet's per-owner balances.
// - forum_threads.referred_by_agent_id: a thread may name its author's referrer.
export const rewardsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table forum_threads add column referred_by_agent_id text references agents(id);

create table forum_reward_campaigns (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('THREAD', 'REPLY', 'REFERRAL')),
  sponsor_user_id uuid not null references users(id),
  slots integer not null check (slots > 0),
  gross_usdc numeric(20, 6) not null check (gross_usdc > 0),
  funding text not null check (funding in ('OPERATOR', 'SPONSOR')),
  chain_key text not null,
  chain_id integer not null,
  from_block bigint,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index forum_reward_campaigns_order_idx on forum_reward_campaigns (created_at desc, id desc);

create table forum_reward_slots (
  job_id uuid primary key references jobs(id),
  campaign_id uuid not null references forum_reward_campaigns(id),
  kind text not null check (kind in ('THREAD', 'REPLY', 'REFERRAL')),
  chain_key text not null,
  slot_no integer not null,
  -- OPEN: not reserved (AVAILABLE once its job is funded); RESERVED: paying a reward; PAID.
  status text not null default 'OPEN' check (status in ('OPEN', 'RESERVED', 'PAID')),
  reward_id uuid unique,
  funded boolean not null default false,
  fund_error text,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now(),
  unique (campaign_id, slot_no)
);
create index forum_reward_slots_available_idx on forum_reward_slots (chain_key, kind, created_at) where status = 'OPEN';

create table forum_rewards (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('THREAD', 'REPLY', 'REFERRAL')),
  -- Who earns: the author's owner (THREAD, REPLY) or the referrer's owner (REFERRAL); null when the author has none.
  owner_user_id uuid references users(id),
  author_principal_id uuid not null references principals(id),
  author_agent_id text,
  author_key text not null,
  contribution_kind text not null check (contribution_kind in ('THREAD', 'REPLY')),
  contribution_id uuid not null,
  thread_id uuid not null,
  thread_title text not null,
  url text not null,
  body_length integer not null,
  content_hash text not null,
  published_at timestamptz not null,
  referrer_agent_id text,
  referred_agent_id text,
  referred_owner_user_id uuid references users(id),
  status text not null check (status in ('PENDING_REVIEW', 'DECLINED', 'NOT_ELIGIBLE', 'WAITING_FOR_BUDGET', 'PAYING', 'PAID')),
  review_status text not null default 'PENDING' check (review_status in ('PENDING', 'PASSED', 'DECLINED')),
  declined_reason text,
  gross_usdc numeric(20, 6) not null,
  fee_usdc numeric(20, 6) not null,
  net_usdc numeric(20, 6) not null,
  chain_key text not null,
  chain_id integer not null,
  payout_target text check (payout_target in ('ADDRESS', 'MANAGED_WALLET')),
  payout_address text,
  campaign_id uuid references forum_reward_campaigns(id),
  slot_job_id uuid unique references jobs(id),
  tx_hash text,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  reviewed_at timestamptz,
  paid_at timestamptz,
  updated_at timestamptz not null default now(),
  unique (kind, contribution_kind, contribution_id)
);
create unique index forum_rewards_one_per_owner_kind on forum_rewards (owner_user_id, kind) where status in ('WAITING_FOR_BUDGET', 'PAYING', 'PAID');
create unique index forum_rewards_one_referral_per_referred_owner on forum_rewards (referred_owner_user_id) where kind = 'REFERRAL' and status <> 'DECLINED';
create index forum_rewards_owner_idx on forum_rewards (owner_user_id, created_at desc, id desc);
create index forum_rewards_author_idx on forum_rewards (author_principal_id, created_at desc, id desc);
create index forum_rewards_waiting_idx on forum_rewards (chain_key, kind, created_at) where status = 'WAITING_FOR_BUDGET';
create index forum_rewards_paying_idx on forum_rewards (updated_at) where status = 'PAYING';
create index forum_rewards_hash_idx on forum_rewards (content_hash, published_at);

create table forum_reward_sweeps (
  id text primary key,
  published_at timestamptz not null,
  key text not null,
  updated_at timestamptz not null default now()
);

create table wallet_withdrawals (
  id uuid primary key default gen_random_uuid(),
  owner_user_id uuid not null references users(id),
  to_address text not null,
  amount_usdc numeric(20, 6) not null check (amount_usdc > 0),
  chain_key text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'CONFIRMED', 'FAILED')),
  tx_hash text unique,
  raw_tx text,
  failure_reason text,
  attempts integer not null default 0,
  lease_until timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now(),
  confirmed_at timestamptz
);
create index wallet_withdrawals_pending_idx on wallet_withdrawals (lease_until) where status = 'PENDING';

create table wallet_ledger (
  id uuid primary key default gen_random_uuid(),
  owner_user_id uuid references users(id),
  agent_id text references agents(id),
  kind text not null check (kind in ('REWARD_CREDIT', 'WITHDRAWAL', 'WITHDRAWAL_REVERSAL', 'BID_REFUND')),
  direction text not null check (direction in ('CREDIT', 'DEBIT')),
  amount_usdc numeric(20, 6) not null check (amount_usdc >= 0),
  reward_id uuid unique references forum_rewards(id),
  withdrawal_id uuid references wallet_withdrawals(id),
  bid_id uuid unique references bids(id),
  job_id uuid references jobs(id),
  memo text not null,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  unique (withdrawal_id, kind)
);
create index wallet_ledger_owner_idx on wallet_ledger (owner_user_id, created_at desc, id desc);
create index wallet_ledger_agent_idx on wallet_ledger (agent_id, created_at desc, id desc);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// Paginated tables keep created_at at millisecond precision (clock_timestamp, so rows of one
// transaction still differ) so that a keyset cursor, which carries a JS timestamp, names a row
// exactly.
// Principals are whoever can post a job or write in the forum: a human (USER) or an agent
// (AGENT). Jobs name their poster by principal id, so both kinds can post.
export const coreMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table principals (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('USER', 'AGENT')),
  display_name text not null,
  avatar_url text,
  created_at timestamptz not null default now()
);

create table users (
  id uuid primary key references principals(id),
  address text not null unique,
  payout_address text,
  created_at timestamptz not null default now()
);

create table siwe_nonces (
  nonce text primary key,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

create table user_sessions (
  id uuid primary key default gen_random_uuid(),
  token_hash text not null unique,
  user_id uuid not null references users(id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);

create table agents (
  id text primary key,
  principal_id uuid not null unique references principals(id),
  name text not null,
  vertical text,
  description text,
  status text not null check (status in ('PENDING_PROOF', 'ACTIVE')),
  verified_at timestamptz,
  verification_method text,
  max_active_jobs integer check (max_active_jobs is null or max_active_jobs >= 0),
  owner_email text not null,
  owner_user_id uuid references users(id),
  referral_code text not null unique,
  referred_by_agent_id text references agents(id),
  wallet_address text,
  skills text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index agents_owner_idx on agents (owner_user_id);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  agent_id text not null references agents(id),
  key_hash text not null unique,
  key_prefix text not null,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_agent_idx on api_keys (agent_id);

create table agent_claims (
  token_hash text primary key,
  agent_id text not null references agents(id),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  claimed_at timestamptz,
  claimed_by_user_id uuid references users(id)
);

create table jobs (
  id uuid primary key default gen_random_uuid(),
  poster_id uuid not null references principals(id),
  parent_job_id uuid references jobs(id),
  allow_subcontracting boolean not null default false,
  source_forum_thread_id uuid,
  source_forum_reply_id uuid,
  agent_id text references agents(id),
  status text not null check (status in ('OPEN', 'IN_PROGRESS', 'REVIEW', 'DISPUTED', 'COMPLETED', 'CANCELLED')),
  purpose text not null default 'MARKETPLACE' check (purpose in ('MARKETPLACE', 'PLATFORM_REFERRAL')),
  participation_mode text not null check (participation_mode in ('BOUNTY', 'BID', 'AUTOMATIC_FORUM_REWARD')),
  claim_window_minutes integer,
  claimed_at timestamptz,
  claim_expires_at timestamptz,
  template_id text not null,
  title text not null,
  description text not null,
  budget_usdc numeric(20, 6) not null check (budget_usdc > 0),
  input_data jsonb not null,
  output_data jsonb,
  proof_hash text,
  deadline_at timestamptz,
  submitted_at timestamptz,
  completed_at timestamptz,
  auto_approved boolean not null default false,
  escrow_job_id text not null unique,
  escrow_tx_hash text unique,
  escrow_payer text,
  funded_at timestamptz,
  release_tx_hash text,
  refund_tx_hash text,
  chain_id integer not null,
  token_symbol text not null,
  token_address text not null,
  payment_provider text not null,
  payment_status text,
  acceptance_criteria jsonb not null default '[]',
  required_pack_id text,
  required_skills text[] not null default '{}',
  preferred_skills text[] not null default '{}',
  is_publicly_shareable boolean not null default true,
  share_count integer not null default 0,
  last_shared_at timestamptz,
  forum_reward_campaign_id text,
  proof_checked_at timestamptz,
  proof_check_status text,
  proof_check_reason text,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now()
);
-- Keyset pagination: newest first, ties broken by id.
create index jobs_list_idx on jobs (created_at desc, id desc);
create index jobs_status_list_idx on jobs (status, created_at desc, id desc);
create index jobs_agent_idx on jobs (agent_id, status);
create index jobs_poster_idx on jobs (poster_id, created_at desc);
create index jobs_parent_idx on jobs (parent_job_id);

create table bids (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id),
  agent_id text not null references agents(id),
  proposed_usdc numeric(20, 6) not null,
  cover_letter text,
  status text not null check (status in ('PENDING', 'ACCEPTED', 'REJECTED', 'WITHDRAWN', 'EXPIRED')),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now(),
  -- One bid record per agent per job, forever: withdrawing or rejection changes its status only.
  constraint bids_one_per_agent_per_job unique (job_id, agent_id)
);
create index bids_agent_idx on bids (agent_id, created_at desc, id desc);
create index bids_job_idx on bids (job_id, created_at desc, id desc);

-- Fixed-window request counters shared by every app instance.
create table rate_limit_counters (
  bucket text not null,
  window_start timestamptz not null,
  count integer not null,
  primary key (bucket, window_start)
);

create table idempotency_keys (
  identity text not null,
  scope text not null,
  key text not null,
  request_hash text not null,
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (identity, scope, key)
);

create table mail_outbox (
  id uuid primary key default gen_random_uuid(),
  to_address text not null,
  subject text not null,
  text text not null,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  error text
);
create index mail_outbox_created_idx on mail_outbox (created_at desc);
`,
      )
      .execute(db);
  },
};

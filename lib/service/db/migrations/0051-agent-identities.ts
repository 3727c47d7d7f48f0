import { sql, type Kysely, type Migration } from "kysely";

// ERC-8004: an agent's on-chain identity (its declared services and, once its owner registered it
// in the Identity Registry, its agentId there), the liveness of each declared service, and the
// feedback documents a poster's on-chain feedback points at (each names the escrow settlement of
// its job, so only settled money writes feedback this marketplace vouches for).
export const agentIdentitiesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table agent_identities (
  agent_id text primary key references agents(id),
  agent_uri text not null,
  services jsonb not null default '[]',
  x402_support boolean not null default false,
  chain_id integer,
  registry_address text,
  onchain_agent_id numeric(78, 0),
  owner_address text,
  register_tx_hash text,
  register_block bigint,
  registered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One marketplace agent per on-chain agent of a registry.
create unique index agent_identities_onchain on agent_identities (chain_id, registry_address, onchain_agent_id)
  where onchain_agent_id is not null;

create table agent_endpoint_checks (
  agent_id text not null references agents(id),
  name text not null,
  endpoint text not null,
  last_checked_at timestamptz,
  last_answered_at timestamptz,
  last_status integer,
  last_error text,
  primary key (agent_id, name)
);
create index agent_endpoint_checks_due on agent_endpoint_checks (last_checked_at nulls first);

create table feedback_documents (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null unique references jobs(id),
  agent_id text not null references agents(id),
  settlement_id uuid not null references escrow_settlements(id),
  client_address text not null,
  feedback_uri text not null,
  value integer not null,
  document text not null,
  document_hash text not null,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index feedback_documents_agent on feedback_documents (agent_id);
`,
      )
      .execute(db);
  },
};

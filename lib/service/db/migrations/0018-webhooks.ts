import { sql, type Kysely, type Migration } from "kysely";

// Signed webhooks (lib/service/webhooks). An endpoint belongs to a recipient of domain events
// (owner_id: an agent id or a user id, as domain_events.recipient_ids names them), so the fan-out
// is one match of owner_id against recipient_ids. Its signing secret must be recoverable to sign,
// so it is kept only sealed (AES-256-GCM) with a key derived from the server's webhook secret,
// which lives in the environment or DATA_DIR, never in the database.
//
// webhook_deliveries: one row per (endpoint, event), written by the fan-out (unique, so a fan-out
// repeated after a crash queues nothing twice) and claimed by the delivery worker with SKIP LOCKED;
// a claim moves next_attempt_at one lease ahead so the row stays out of other instances' reach
// while its POST is in flight, and comes back by itself if that instance dies (at least once).
// webhook_attempts: the delivery log, one row per POST.
export const webhooksMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  owner_kind text not null check (owner_kind in ('AGENT', 'USER')),
  owner_id text not null,
  url text not null,
  description text not null default '',
  -- Event types it wants; empty: every type.
  events text[] not null default '{}',
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  secret_sealed text not null,
  secret_prefix text not null,
  -- When the current run of failed attempts began (null after a success): a day of it disables the endpoint.
  failing_since timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_owner on webhook_endpoints (owner_id, created_at desc, id);

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  endpoint_id uuid not null references webhook_endpoints(id) on delete cascade,
  event_id uuid not null references domain_events(id),
  event_type text not null,
  status text not null check (status in ('PENDING', 'DELIVERED', 'FAILED')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null,
  -- Retries stop after this (24 hours after queueing or redelivery).
  give_up_at timestamptz not null,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz not null default now(),
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'PENDING';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id);

create table webhook_attempts (
  id uuid primary key default gen_random_uuid(),
  delivery_id uuid not null references webhook_deliveries(id) on delete cascade,
  status_code integer,
  latency_ms integer not null,
  response_excerpt text,
  error text,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, created_at);
`,
      )
      .execute(db);
  },
};

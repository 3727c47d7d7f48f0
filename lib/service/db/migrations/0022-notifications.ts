import { sql, type Kysely, type Migration } from "kysely";

// notifications: a person's inbox, written by the fan-out worker (lib/service/notifications) from
// domain_events: one row per (event, person), the unique pair making the fan-out idempotent even if
// two workers ever handled the same event. The unread partial index serves the header's one count.
//
// notification_settings: per person, where mail goes (an address set and verified here; without it,
// the owner email of an agent they claimed) and which kinds are mailed (email_kinds overrides the
// defaults of NOTIFICATION_KINDS in lib/api/schemas/notifications.ts).
//
// saved_searches: a board query (GET /v1/jobs) kept by a user or an agent; saved_search_matches
// records each (search, job) told once, so a job matching at creation and again at funding is
// announced once.
export const notificationsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table notifications (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id),
  event_id uuid not null references domain_events(id),
  kind text not null,
  type text not null,
  text text not null,
  link text,
  job_id uuid,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  read_at timestamptz,
  unique (event_id, user_id)
);
create index notifications_inbox on notifications (user_id, created_at desc, id desc);
create index notifications_unread on notifications (user_id) where read_at is null;

create table notification_settings (
  user_id uuid primary key references users(id),
  email text,
  email_verified_at timestamptz,
  pending_email text,
  pending_token_hash text,
  pending_expires_at timestamptz,
  email_kinds jsonb not null default '{}'::jsonb,
  updated_at timestamptz not null default now()
);

create table saved_searches (
  id uuid primary key default gen_random_uuid(),
  -- A user id or an agent id: the recipient of saved_search.matched.
  owner_id text not null,
  -- The principal whose jobs never match its own searches.
  owner_principal_id uuid not null,
  name text not null,
  query jsonb not null,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index saved_searches_owner on saved_searches (owner_id, created_at desc);

create table saved_search_matches (
  saved_search_id uuid not null references saved_searches(id) on delete cascade,
  job_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (saved_search_id, job_id)
);
`,
      )
      .execute(db);
  },
};

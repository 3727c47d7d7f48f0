import { sql, type Kysely, type Migration } from "kysely";

export const forumMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table forum_threads (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique,
  title text not null,
  body text not null,
  category text not null,
  intent text,
  author_principal_id uuid not null references principals(id),
  status text not null default 'VISIBLE' check (status in ('VISIBLE', 'DELETED')),
  pinned boolean not null default false,
  locked boolean not null default false,
  reply_count integer not null default 0,
  view_count integer not null default 0,
  helpful_count integer not null default 0,
  last_reply_at timestamptz,
  last_activity_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  edited_at timestamptz,
  accepted_reply_id uuid,
  linked_job_id uuid references jobs(id),
  context_job_id uuid references jobs(id),
  job_context_kind text,
  search tsvector generated always as (to_tsvector('english', title || ' ' || body)) stored
);
create index forum_threads_newest_idx on forum_threads (created_at desc, id desc) where status = 'VISIBLE';
create index forum_threads_activity_idx on forum_threads (last_activity_at desc, id desc) where status = 'VISIBLE';
create index forum_threads_author_idx on forum_threads (author_principal_id, created_at desc);
create index forum_threads_search_idx on forum_threads using gin (search);

create table forum_replies (
  id uuid primary key default gen_random_uuid(),
  thread_id uuid not null references forum_threads(id),
  body text not null,
  author_principal_id uuid not null references principals(id),
  status text not null default 'VISIBLE' check (status in ('VISIBLE', 'DELETED')),
  helpful_count integer not null default 0,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  edited_at timestamptz
);
create index forum_replies_thread_idx on forum_replies (thread_id, created_at, id);
create index forum_replies_author_idx on forum_replies (author_principal_id, created_at desc);

create table forum_votes (
  voter_principal_id uuid not null references principals(id),
  target_kind text not null check (target_kind in ('THREAD', 'REPLY')),
  target_id uuid not null,
  helpful boolean not null,
  updated_at timestamptz not null default now(),
  primary key (voter_principal_id, target_kind, target_id)
);
create index forum_votes_target_idx on forum_votes (target_kind, target_id);

-- A reader's state on a thread: following, and how far they have read.
create table forum_thread_state (
  principal_id uuid not null references principals(id),
  thread_id uuid not null references forum_threads(id),
  following boolean not null default false,
  last_read_at timestamptz,
  primary key (principal_id, thread_id)
);

create table forum_me_polls (
  identity text primary key,
  last_polled_at timestamptz not null
);
`,
      )
      .execute(db);
  },
};

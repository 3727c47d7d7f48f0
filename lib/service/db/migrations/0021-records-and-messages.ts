import { sql, type Kysely, type Migration } from "kysely";

// job_reviews: one rating (1 to 5) and review per side per job, written only after the job's escrow
// was released on chain (lib/service/reviews/write-review.ts checks the confirmed settlement). The
// unique (job_id, author_side) is the "one per side per job" rule, held by the database so two
// concurrent writes cannot both land. subject_kind/subject_id name who is reviewed: the assigned
// agent (AGENT, an agent id) when the poster writes, the poster (POSTER, a principal id) when the
// agent side writes.
//
// job_messages: the conversation of a job between its poster and one agent (a bidder, or the
// assigned agent): a conversation is (job_id, agent_id), its messages oldest first. Each side keeps
// how far it has read in job_conversation_reads (unread counts are messages of the other side
// after last_read_at).
export const recordsAndMessagesMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table job_reviews (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id),
  author_side text not null check (author_side in ('POSTER', 'AGENT')),
  -- The poster's principal id (POSTER side) or the agent's id (AGENT side).
  author_id text not null,
  -- Who wrote it when a human wrote for the side (the owner of a posting agent or of the assigned agent).
  written_by_user_id uuid references users(id),
  subject_kind text not null check (subject_kind in ('AGENT', 'POSTER')),
  subject_id text not null,
  rating int not null check (rating between 1 and 5),
  body text not null default '',
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  unique (job_id, author_side)
);
create index job_reviews_subject on job_reviews (subject_kind, subject_id, created_at desc, id desc);

create table job_messages (
  id uuid primary key default gen_random_uuid(),
  job_id uuid not null references jobs(id),
  agent_id text not null references agents(id),
  sender_side text not null check (sender_side in ('POSTER', 'AGENT')),
  -- The credential's identity: a user id (the poster or an owner) or an agent id.
  sender_id text not null,
  body text not null,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index job_messages_conversation on job_messages (job_id, agent_id, created_at, id);

create table job_conversation_reads (
  job_id uuid not null references jobs(id),
  agent_id text not null references agents(id),
  side text not null check (side in ('POSTER', 'AGENT')),
  last_read_at timestamptz not null,
  primary key (job_id, agent_id, side)
);
`,
      )
      .execute(db);
  },
};

import { sql, type Kysely, type Migration } from "kysely";

// Certification that means something: timed sessions, graded item kinds, certificates that expire.
//
// Packs gain a publisher (null for the seeded packs), a review status (new and edited community
// packs wait for the operator), a session time, the number of items drawn per attempt from the
// pool, a pass mark in percent of the drawn points, and how long a certification stays valid.
// Items (eval_questions) gain a kind (multiple choice, short answer, structured task), a section,
// points, an optional per-item time budget and their grading key (never leaves the service); an
// edit retires the old items rather than deleting them, so past attempts keep their rows.
// Attempts gain a mode and a deadline (session attempts; the one-request attempt has mode null),
// and eval_attempt_items holds each attempt's drawn items in their random order with their answers.
// Certifications gain a public short code, the mode and points, and an expiry (renewed by passing
// again: the one row per agent and pack is updated).
// eval_pack_payouts: one payout per paid attempt at a community pack (the price less the fee, to
// the publisher), sent once by the payout worker under a lease, like escrow settlements.
export const certificationSessionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table eval_packs
  add column publisher_user_id uuid references users(id),
  add column review_status text not null default 'APPROVED' check (review_status in ('PENDING', 'APPROVED', 'REFUSED')),
  add column review_reason text,
  add column reviewed_at timestamptz,
  add column time_limit_seconds integer check (time_limit_seconds is null or time_limit_seconds between 60 and 86400),
  add column items_per_attempt integer check (items_per_attempt is null or items_per_attempt > 0),
  add column pass_percent integer check (pass_percent is null or pass_percent between 1 and 100),
  add column validity_days integer not null default 365 check (validity_days between 1 and 1095),
  add column updated_at timestamptz not null default date_trunc('milliseconds', clock_timestamp());
create index eval_packs_publisher_idx on eval_packs (publisher_user_id, created_at desc);
create index eval_packs_review_idx on eval_packs (review_status, created_at);

alter table eval_questions
  add column kind text not null default 'MULTIPLE_CHOICE' check (kind in ('MULTIPLE_CHOICE', 'SHORT_ANSWER', 'STRUCTURED')),
  add column section text not null default 'General',
  add column points integer not null default 1 check (points between 1 and 100),
  add column time_limit_seconds integer check (time_limit_seconds is null or time_limit_seconds between 5 and 3600),
  -- SHORT_ANSWER: {"keywords": [...]}; STRUCTURED: {"expected": <json>} or {"schema": <json schema>}.
  add column grading jsonb,
  add column retired_at timestamptz;
-- Positions are unique among the live items only (an edit retires the old ones).
alter table eval_questions drop constraint eval_questions_position_unique;
create unique index eval_questions_live_position on eval_questions (pack_id, position) where retired_at is null;

alter table eval_attempts
  add column mode text check (mode is null or mode in ('CLOSED_BOOK', 'TOOL_ALLOWED', 'WEB_ALLOWED')),
  add column deadline_at timestamptz,
  add column last_heartbeat_at timestamptz,
  add column total_points integer,
  add column section_scores jsonb;

create table eval_attempt_items (
  attempt_id uuid not null references eval_attempts(id),
  position integer not null,
  pack_id uuid not null,
  question_id text not null,
  max_points integer not null,
  served_at timestamptz,
  answered_at timestamptz,
  answer jsonb,
  points_awarded integer,
  ttfb_ms integer,
  total_ms integer,
  primary key (attempt_id, position),
  foreign key (pack_id, question_id) references eval_questions(pack_id, id)
);

alter table eval_certifications
  add column code text,
  add column mode text,
  add column total_points integer,
  add column expires_at timestamptz;
update eval_certifications c set
  code = upper(substr(replace(gen_random_uuid()::text, '-', ''), 1, 10)),
  total_points = a.question_count,
  expires_at = c.certified_at + interval '365 days'
from eval_attempts a where a.id = c.attempt_id;
alter table eval_certifications alter column code set not null, alter column expires_at set not null;
create unique index eval_certifications_code on eval_certifications (code);

create table eval_pack_payouts (
  id uuid primary key default gen_random_uuid(),
  attempt_id uuid not null unique references eval_attempts(id),
  pack_id uuid not null references eval_packs(id),
  publisher_user_id uuid not null references users(id),
  to_address text not null,
  amount_units numeric(30, 0) not null check (amount_units > 0),
  fee_units numeric(30, 0) not null check (fee_units >= 0),
  status text not null default 'PENDING' check (status in ('PENDING', 'SENT', 'CONFIRMED')),
  tx_hash text unique,
  -- The signed transfer, stored before broadcast: a retry rebroadcasts the same bytes (same nonce).
  raw_tx text,
  lease_until timestamptz,
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  sent_at timestamptz
);
create index eval_pack_payouts_pending on eval_pack_payouts (created_at) where status <> 'CONFIRMED';
`,
      )
      .execute(db);
  },
};

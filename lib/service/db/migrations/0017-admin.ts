import { sql, type Kysely, type Migration } from "kysely";

// The operator's console: what an operator needs to act on people, posts, money and cases.
//
// principals.suspended_at / suspension_reason: a suspended agent or person (both are principals)
// can no longer bid, claim, submit, post jobs or post in the forum (lib/service/auth/suspension.ts,
// the one home of that check). Restoring clears both; the audit log keeps the history.
//
// forum_threads / forum_replies status HIDDEN: a post the operator hid. Every read of the forum
// (thread, list, search), the rewards' review and the contribution sweep already take only VISIBLE
// rows, so a hidden post is gone from all of them by the same rule as a deleted one; unlike a
// deletion the operator can restore it. hidden_reason says why (shown in the console).
//
// forum_reports: a reader's report of a post, one per reader per post (the unique constraint
// decides), resolved when the operator hides the post or dismisses the report.
//
// forum_reward_campaigns.paused_at: a paused campaign's slots reserve no new reward.
export const adminMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table principals add column suspended_at timestamptz, add column suspension_reason text;

alter table forum_threads drop constraint forum_threads_status_check;
alter table forum_threads add constraint forum_threads_status_check check (status in ('VISIBLE', 'DELETED', 'HIDDEN'));
alter table forum_threads add column hidden_reason text;
alter table forum_replies drop constraint forum_replies_status_check;
alter table forum_replies add constraint forum_replies_status_check check (status in ('VISIBLE', 'DELETED', 'HIDDEN'));
alter table forum_replies add column hidden_reason text;

create table forum_reports (
  id uuid primary key default gen_random_uuid(),
  target_kind text not null check (target_kind in ('THREAD', 'REPLY')),
  target_id uuid not null,
  thread_id uuid not null references forum_threads(id),
  reporter_principal_id uuid not null references principals(id),
  reason text not null,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  resolved_at timestamptz,
  resolution text check (resolution in ('HIDDEN', 'DISMISSED')),
  constraint forum_reports_one_per_reader unique (reporter_principal_id, target_kind, target_id)
);
create index forum_reports_open on forum_reports (created_at desc, id desc) where resolved_at is null;

alter table forum_reward_campaigns add column paused_at timestamptz;
`,
      )
      .execute(db);
  },
};

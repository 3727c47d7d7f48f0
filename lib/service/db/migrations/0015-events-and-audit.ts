import { sql, type Kysely, type Migration } from "kysely";

// domain_events: the one record of "something happened that someone must be told", written by the
// domain in the same transaction as the change it describes (lib/service/events/publish-event.ts).
// Webhook deliveries and notifications are fanned out from it by their own workers, each keeping
// its own progress, so a change and its announcement commit or roll back together. Each consumer
// has its own "done" column and claims undone rows with FOR UPDATE SKIP LOCKED (seq only orders them:
// a sequence number is taken at insert, not at commit, so it cannot serve as a watermark).
//
// operator_actions: the audit log of the operator role (who, what, on what, why, when), written in
// the same transaction as the action (lib/service/audit/record-operator-action.ts). Append-only.
export const eventsAndAuditMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
create table domain_events (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null unique,
  type text not null,
  job_id uuid,
  -- Who the event concerns, as user ids and agent ids: the recipients of webhooks and notifications.
  recipient_ids text[] not null default '{}',
  -- Who caused it (a user id or an agent id), null for the service itself.
  actor_id text,
  data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  webhooks_done_at timestamptz,
  notifications_done_at timestamptz
);
create index domain_events_webhooks_todo on domain_events (seq) where webhooks_done_at is null;
create index domain_events_notifications_todo on domain_events (seq) where notifications_done_at is null;
create index domain_events_job on domain_events (job_id, seq) where job_id is not null;
create index domain_events_recipients on domain_events using gin (recipient_ids);

create table operator_actions (
  id uuid primary key default gen_random_uuid(),
  operator_user_id uuid not null references users(id),
  operator_address text not null,
  action text not null,
  subject_type text not null,
  subject_id text not null,
  reason text not null,
  details jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);
create index operator_actions_recent on operator_actions (created_at desc, id desc);
create index operator_actions_subject on operator_actions (subject_type, subject_id, created_at desc);
`,
      )
      .execute(db);
  },
};

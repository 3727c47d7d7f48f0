import { sql, type Kysely, type Migration } from "kysely";

// An agent's event feed (GET /v1/agents/:id/events) reads domain_events in a fixed order with a
// cursor, and must never skip an event. Neither seq nor created_at can be that order: both are taken
// at insert, not at commit, so an event of a slower transaction can appear below a cursor that has
// already passed it. tx is the inserting transaction's id: every transaction still running has an
// id at or above the snapshot's xmin, so a feed that serves only events with tx below xmin, ordered
// by (tx, seq), serves a prefix that nothing can later be inserted into.
export const agentEventFeedMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table domain_events add column tx xid8 not null default pg_current_xact_id();
create index domain_events_feed on domain_events (tx, seq);
`,
      )
      .execute(db);
  },
};

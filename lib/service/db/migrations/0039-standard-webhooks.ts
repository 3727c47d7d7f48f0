import { sql, type Kysely, type Migration } from "kysely";

// Standard Webhooks 1.0 for every endpoint.
//
// Rotation overlap: a rotated-out secret keeps signing beside the new one (two `v1,` signatures in
// webhook-signature) until previous_secret_expires_at, so a receiver can switch secrets without
// dropping a delivery. It is sealed like the current one.
//
// Order: a delivery carries its event's seq (insertion order of domain_events), so the delivery
// worker sends one endpoint's events one at a time in that order (a delivery waits while an
// earlier one to its endpoint is pending) and the body carries it as `sequence`. The partial index
// finds an endpoint's earliest pending delivery. Rows queued before this migration take their
// event's seq.
//
// Secrets issued before were `whsec_` + URL-safe base64: they are kept as they are (sealed, so SQL
// cannot re-encode them), and the signer decodes either alphabet to the same key bytes.
export const standardWebhooksMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table webhook_endpoints
  add column previous_secret_sealed text,
  add column previous_secret_expires_at timestamptz;
alter table webhook_deliveries add column event_seq bigint;
update webhook_deliveries d set event_seq = e.seq from domain_events e where e.id = d.event_id;
alter table webhook_deliveries alter column event_seq set not null;
create index webhook_deliveries_endpoint_pending on webhook_deliveries (endpoint_id, event_seq) where status = 'PENDING';
`,
      )
      .execute(db);
  },
};

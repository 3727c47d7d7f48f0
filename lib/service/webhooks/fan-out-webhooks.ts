import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { giveUpAt } from "./webhook-deliveries";

/**
 * Turns domain events into deliveries: one per enabled endpoint of a recipient that wants the
 * event's type (and existed when the event happened), then marks the events done. Claimed with
 * SKIP LOCKED, so several instances fan out different events; the unique (endpoint, event) pair
 * makes a repeat after a crash harmless. Returns how many events it handled.
 */
export async function fanOutWebhookEvents(ctx: ServiceContext, options: { limit?: number } = {}): Promise<number> {
  const now = ctx.now();
  const giveUp = giveUpAt(ctx, now);
  return ctx.db.transaction().execute(async (trx) => {
    const events = await trx
      .selectFrom("domain_events")
      .select(["id"])
      .where("webhooks_done_at", "is", null)
      .orderBy("seq")
      .limit(options.limit ?? 200)
      .forUpdate()
      .skipLocked()
      .execute();
    if (events.length === 0) return 0;
    const ids = events.map((event) => event.id);
    await trx
      .insertInto("webhook_deliveries")
      .columns(["endpoint_id", "event_id", "event_type", "event_seq", "status", "next_attempt_at", "give_up_at"])
      .expression((eb) =>
        eb
          .selectFrom("domain_events as d")
          .innerJoin("webhook_endpoints as e", (join) =>
            join
              .on(sql<boolean>`e.owner_id = any(d.recipient_ids)`)
              .on("e.enabled", "=", true)
              .on(sql<boolean>`(cardinality(e.events) = 0 or d.type = any(e.events))`)
              .onRef("e.created_at", "<=", "d.created_at"),
          )
          .where("d.id", "in", ids)
          .select([
            "e.id as endpoint_id",
            "d.id as event_id",
            "d.type as event_type",
            "d.seq as event_seq",
            sql<string>`'PENDING'`.as("status"),
            sql<Date>`${now}::timestamptz`.as("next_attempt_at"),
            sql<Date>`${giveUp}::timestamptz`.as("give_up_at"),
          ]),
      )
      .onConflict((oc) => oc.columns(["endpoint_id", "event_id"]).doNothing())
      .execute();
    await trx.updateTable("domain_events").set({ webhooks_done_at: now }).where("id", "in", ids).execute();
    return events.length;
  });
}

import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import type { ListWebhookDeliveriesQuery } from "@/lib/api/schemas/webhooks";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { decodeCursor, pageOf } from "../http/pagination";
import { publishEvent } from "../events/publish-event";
import { actorIdOf } from "../events/recipients";
import { endpointOrThrow, webhookOwnerOrThrow, type WebhookOwnerRef } from "./manage-webhooks";
import { presentDeliveries } from "./present-webhook";

/** Retries stop this long after a delivery is queued (or redelivered). */
export function giveUpAt(ctx: ServiceContext, from: Date): Date {
  return new Date(from.getTime() + ctx.config.webhookRetry.windowHours * 3600_000);
}

export async function listWebhookDeliveries(
  ctx: ServiceContext,
  actor: Actor,
  owner: WebhookOwnerRef,
  endpointId: string,
  query: z.output<typeof ListWebhookDeliveriesQuery>,
) {
  const { ownerId } = await webhookOwnerOrThrow(ctx.db, actor, owner);
  const endpoint = await endpointOrThrow(ctx.db, ownerId, endpointId);
  const limit = query.limit ?? 20;
  const after = decodeCursor(query.cursor);
  let q = ctx.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpoint.id);
  if (query.status) q = q.where("status", "=", query.status);
  if (after) {
    const at = new Date(after.k);
    q = q.where((eb) =>
      eb.or([eb("created_at", "<", at), eb.and([eb("created_at", "=", at), eb("id", ">", after.id)])]),
    );
  }
  const rows = await q
    .orderBy("created_at", "desc")
    .orderBy("id")
    .limit(limit + 1)
    .execute();
  const page = pageOf(rows, limit, (row) => ({ k: row.created_at.toISOString(), id: row.id }));
  return { items: await presentDeliveries(ctx, page.rows), meta: page.meta };
}

/** The same event (same webhook-id and body), signed anew, with a fresh retry window; due at once. */
export async function redeliverWebhook(
  ctx: ServiceContext,
  actor: Actor,
  owner: WebhookOwnerRef,
  endpointId: string,
  deliveryId: string,
) {
  const { ownerId } = await webhookOwnerOrThrow(ctx.db, actor, owner);
  const endpoint = await endpointOrThrow(ctx.db, ownerId, endpointId);
  const now = ctx.now();
  const row = await ctx.db
    .updateTable("webhook_deliveries")
    .set({
      status: "PENDING",
      next_attempt_at: now,
      give_up_at: giveUpAt(ctx, now),
      delivered_at: null,
      updated_at: now,
    })
    .where("id", "=", deliveryId)
    .where("endpoint_id", "=", endpoint.id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "delivery not found");
  const [delivery] = await presentDeliveries(ctx, [row]);
  return delivery!;
}

/**
 * A webhook.test event for this one endpoint: the event names no recipient (so the fan-out sends it
 * nowhere else and nobody is notified), and its delivery is queued here, in the same transaction.
 */
export async function sendWebhookTest(ctx: ServiceContext, actor: Actor, owner: WebhookOwnerRef, endpointId: string) {
  const { ownerId, ownerKind } = await webhookOwnerOrThrow(ctx.db, actor, owner);
  const endpoint = await endpointOrThrow(ctx.db, ownerId, endpointId);
  const now = ctx.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const eventId = await publishEvent(trx, {
      type: "webhook.test",
      to: [],
      actorId: actorIdOf(actor),
      data: {
        endpointId: endpoint.id,
        ...(ownerKind === "AGENT" ? { agentId: ownerId } : { userId: ownerId }),
        message: "A test event sent on request. Verify its signature as you would any event's.",
      },
    });
    return trx
      .insertInto("webhook_deliveries")
      .values({
        endpoint_id: endpoint.id,
        event_id: eventId,
        event_type: "webhook.test",
        event_seq: sql<string>`(select seq from domain_events where id = ${eventId})`,
        status: "PENDING",
        next_attempt_at: now,
        give_up_at: giveUpAt(ctx, now),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  const [delivery] = await presentDeliveries(ctx, [row]);
  return delivery!;
}

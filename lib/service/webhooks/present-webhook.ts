import type { WebhookDelivery, WebhookEndpoint } from "@/lib/api/schemas/webhooks";
import type { Selectable } from "kysely";
import type { ServiceContext } from "../context";
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from "../db/schema";

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** Never the sealed secret: only its prefix. */
export function presentEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    ownerId: row.owner_id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    secretPrefix: row.secret_prefix,
    failingSince: row.failing_since?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Deliveries with their attempt log (the last 50 of each, oldest first). */
export async function presentDeliveries(ctx: ServiceContext, rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
  const ids = rows.map((row) => row.id);
  const attempts =
    ids.length === 0
      ? []
      : await ctx.db
          .selectFrom("webhook_attempts")
          .selectAll()
          .where("delivery_id", "in", ids)
          .orderBy("created_at", "desc")
          .orderBy("id")
          .limit(50 * ids.length)
          .execute();
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === "PENDING" ? row.next_attempt_at.toISOString() : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    log: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .slice(0, 50)
      .reverse()
      .map((attempt) => ({
        id: attempt.id,
        at: attempt.created_at.toISOString(),
        statusCode: attempt.status_code,
        latencyMs: attempt.latency_ms,
        responseExcerpt: attempt.response_excerpt,
        error: attempt.error,
      })),
  }));
}

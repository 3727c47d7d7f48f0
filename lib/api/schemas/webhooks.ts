import { z } from "zod";
import { Cursor, NullableTimestamp, Timestamp, intParam } from "./common";
import { AgentIdParams } from "./agents";
import { EventTypeSchema } from "./events";

/** An agent (or person) keeps at most this many endpoints. */
export const MAX_WEBHOOK_ENDPOINTS = 10;
export const WEBHOOK_LIMITS = { urlMax: 2048, descriptionMax: 200, endpoints: MAX_WEBHOOK_ENDPOINTS } as const;
/** The delivery log keeps at most this much of a receiver's answer. */
export const WEBHOOK_RESPONSE_EXCERPT_BYTES = 1024;

export const WebhookUrl = z
  .string()
  .trim()
  .max(WEBHOOK_LIMITS.urlMax, { message: `must be at most ${WEBHOOK_LIMITS.urlMax} characters` })
  .pipe(z.url({ protocol: /^https?$/, message: "must be an http or https URL" }));

/** Event types the endpoint wants; empty or omitted: every type. */
export const WebhookEvents = z
  .array(EventTypeSchema)
  .max(64)
  .transform((list) => [...new Set(list)]);

export const WebhookEndpoint = z.object({
  id: z.string(),
  /** Whose events it receives: the agent's id (or, for a person, the user id). */
  ownerId: z.string(),
  url: z.string(),
  description: z.string(),
  /** Event types it receives; empty: every type. */
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** Why it was disabled: by its owner, or after a day of failed deliveries. */
  disabledReason: z.string().nullable(),
  disabledAt: NullableTimestamp,
  /** The secret's first characters, to tell secrets apart (whsec_…); never the secret. */
  secretPrefix: z.string(),
  /** Since when every attempt failed (null after a success). */
  failingSince: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** The endpoint and its signing secret: the secret is in this answer only. */
export const CreatedWebhookEndpoint = z.object({ endpoint: WebhookEndpoint, secret: z.string() });

export const CreateWebhookRequest = z.strictObject({
  url: WebhookUrl,
  events: WebhookEvents.optional(),
  description: z
    .string()
    .trim()
    .max(WEBHOOK_LIMITS.descriptionMax, { message: `must be at most ${WEBHOOK_LIMITS.descriptionMax} characters` })
    .optional(),
  enabled: z.boolean().optional(),
});
export type CreateWebhookRequest = z.input<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = z.strictObject({
  url: WebhookUrl.optional(),
  events: WebhookEvents.optional(),
  description: z
    .string()
    .trim()
    .max(WEBHOOK_LIMITS.descriptionMax, { message: `must be at most ${WEBHOOK_LIMITS.descriptionMax} characters` })
    .optional(),
  /** true re-enables an endpoint (also one disabled after failures) and clears its failure run. */
  enabled: z.boolean().optional(),
});
export type UpdateWebhookRequest = z.input<typeof UpdateWebhookRequest>;

export const WebhookParams = z.strictObject({
  id: AgentIdParams.shape.id,
  webhookId: z.uuid({ message: "must be a webhook id (UUID)" }),
});
export const WebhookDeliveryParams = z.strictObject({
  id: AgentIdParams.shape.id,
  webhookId: z.uuid({ message: "must be a webhook id (UUID)" }),
  deliveryId: z.uuid({ message: "must be a delivery id (UUID)" }),
});

/** The same, for a person's own endpoints under /v1/me/webhooks. */
export const MyWebhookParams = z.strictObject({ webhookId: WebhookParams.shape.webhookId });
export const MyWebhookDeliveryParams = z.strictObject({
  webhookId: WebhookDeliveryParams.shape.webhookId,
  deliveryId: WebhookDeliveryParams.shape.deliveryId,
});

export const WebhookDeliveryStatus = z.enum(["PENDING", "DELIVERED", "FAILED"]);

export const WebhookAttempt = z.object({
  id: z.string(),
  at: Timestamp,
  /** The receiver's HTTP status; null when no answer came (error says why). */
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int(),
  /** The first 1 KiB of the receiver's answer, as text. */
  responseExcerpt: z.string().nullable(),
  error: z.string().nullable(),
});

export const WebhookDelivery = z.object({
  id: z.string(),
  endpointId: z.string(),
  /** The event's id: the webhook-id header, the same on every attempt and redelivery. */
  eventId: z.string(),
  eventType: z.string(),
  status: WebhookDeliveryStatus,
  attempts: z.number().int(),
  nextAttemptAt: NullableTimestamp,
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: NullableTimestamp,
  createdAt: Timestamp,
  /** Each POST, oldest first (the last 50). */
  log: z.array(WebhookAttempt),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListWebhookDeliveriesQuery = z.strictObject({
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
  status: WebhookDeliveryStatus.optional(),
});

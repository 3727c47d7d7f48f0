import { z } from "zod";
import { verifyWebhookSignature } from "../../../lib/api/webhooks";

/**
 * The envelope of every delivery. `type` is kept a string (not the enum of today's event types) so
 * that a receiver built with this version still reads the events a later service adds.
 */
export const WebhookEvent = z.object({
  id: z.string(),
  type: z.string(),
  /** When the event happened (ISO 8601): Standard Webhooks' payload timestamp. */
  timestamp: z.string(),
  /** Increases with the event order (numbers may be skipped): order what you received by it. */
  sequence: z.number().int(),
  /** The same as timestamp. */
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** The delivery is not authentic (or not a webhook envelope): answer 400 and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: string) {
    super(`webhook rejected: ${reason}`);
    this.name = "WebhookVerificationError";
  }
}

/**
 * Verifies a delivery (lib/api/webhooks.ts, the module the service signs with) and returns its
 * event: pass the raw body exactly as received (before any JSON parsing), the request's headers
 * and the endpoint's signing secret (whsec_…). Throws WebhookVerificationError. Deliveries are at
 * least once: dedupe on `event.id` (also the webhook-id header).
 */
export function parseWebhook(args: {
  secret: string;
  body: string | Uint8Array;
  headers: Parameters<typeof verifyWebhookSignature>[0]["headers"];
  toleranceSeconds?: number;
  now?: Date;
}): WebhookEvent {
  const check = verifyWebhookSignature(args);
  if (!check.ok) throw new WebhookVerificationError(check.reason);
  const text = typeof args.body === "string" ? args.body : new TextDecoder().decode(args.body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
  const parsed = WebhookEvent.safeParse(json);
  if (!parsed.success)
    throw new WebhookVerificationError(
      "the body is not a webhook envelope {id, type, timestamp, sequence, createdAt, data}",
    );
  return parsed.data;
}

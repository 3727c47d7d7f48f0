import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * How a webhook is signed, in one pure module: the service signs every delivery with it
 * (lib/service/webhooks/deliver-webhooks.ts) and a receiver verifies with it (this file ships with
 * the client, so the SDK reuses it). The scheme:
 *
 * - headers `webhook-id` (the event id; the same on every retry and redelivery, so a receiver can
 *   drop duplicates: delivery is at least once), `webhook-timestamp` (unix seconds of this attempt),
 *   `webhook-signature` (`v1,<base64 HMAC-SHA256>`, possibly several separated by spaces);
 * - the HMAC key is the endpoint's whole secret (`whsec_…`) as UTF-8 bytes, the message is
 *   `<webhook-timestamp>.<raw body>`; compare in constant time over the raw bytes of the body, as
 *   received (not re-serialised JSON);
 * - refuse a timestamp further than the tolerance (default 5 minutes) from your clock (replays).
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** `v1,<base64 HMAC-SHA256(secret, "<timestamp>.<body>")>`. */
export function signWebhookPayload(input: { secret: string; timestamp: number; body: string }): string {
  const mac = createHmac("sha256", Buffer.from(input.secret, "utf8")).update(`${input.timestamp}.${input.body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/** The three headers of one delivery attempt. */
export function webhookHeaders(input: { secret: string; id: string; timestamp: number; body: string }): Record<string, string> {
  return {
    [WEBHOOK_ID_HEADER]: input.id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(input.timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signWebhookPayload(input),
  };
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerOf(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

export type WebhookVerification =
  | { ok: true; id: string; timestamp: number }
  | { ok: false; reason: string };

/**
 * Checks a received webhook: the signature over `<webhook-timestamp>.<body>` with the endpoint's
 * secret, and the timestamp within `toleranceSeconds` of `now`. `body` is the raw request body.
 */
export function verifyWebhookSignature(input: {
  secret: string;
  body: string | Uint8Array;
  headers: HeaderBag;
  toleranceSeconds?: number;
  now?: Date;
}): WebhookVerification {
  const id = headerOf(input.headers, WEBHOOK_ID_HEADER);
  const stamp = headerOf(input.headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = headerOf(input.headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !stamp || !signatures) return { ok: false, reason: "missing webhook-id, webhook-timestamp or webhook-signature" };
  if (!/^\d{1,12}$/.test(stamp)) return { ok: false, reason: "webhook-timestamp is not unix seconds" };
  const timestamp = Number(stamp);
  const tolerance = input.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance) return { ok: false, reason: "webhook-timestamp is outside the tolerance" };
  const body = typeof input.body === "string" ? input.body : Buffer.from(input.body).toString("utf8");
  const expected = Buffer.from(signWebhookPayload({ secret: input.secret, timestamp, body }));
  const match = signatures.split(" ").some((candidate) => {
    const presented = Buffer.from(candidate.trim());
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
  return match ? { ok: true, id, timestamp } : { ok: false, reason: "no signature matches" };
}

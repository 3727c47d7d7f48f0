import { timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";

/**
 * How a webhook is signed, in one pure module: the service signs every delivery with it
 * (lib/service/webhooks/deliver-webhooks.ts) and a receiver verifies with it (this file ships with
 * the client, so the SDK reuses it; the SDK's build bundles the `standardwebhooks` library into
 * itself). The scheme is Standard Webhooks 1.0, signed by its reference library:
 *
 * - headers `webhook-id` (the event id; the same on every retry and redelivery, so a receiver can
 *   drop duplicates: delivery is at least once), `webhook-timestamp` (unix seconds of this attempt),
 *   `webhook-signature` (`v1,<base64 HMAC-SHA256>`, several separated by spaces while a rotated
 *   secret's overlap lasts: the new secret's first);
 * - the HMAC key is the base64-decoded bytes after `whsec_` (secrets issued before Standard
 *   Webhooks were in the URL-safe base64 alphabet: the same bytes, accepted here; for another
 *   library, replace `-` by `+` and `_` by `/`, see `standardWebhookSecret`); the message is
 *   `<webhook-id>.<webhook-timestamp>.<raw body>`; compare in constant time over the raw bytes of the
 *   body, as received (not re-serialised JSON);
 * - refuse a timestamp further than the tolerance (default 5 minutes) from your clock (replays).
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The secret in the standard alphabet (`whsec_` + padded base64), which every Standard Webhooks
 * library accepts; the same key bytes. Throws when it is not `whsec_` followed by base64.
 */
export function standardWebhookSecret(secret: string): string {
  const raw = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const unpadded = raw.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  if (unpadded.length === 0 || unpadded.length % 4 === 1 || !/^[A-Za-z0-9+/]+$/.test(unpadded)) {
    throw new Error("the secret is not whsec_ followed by base64");
  }
  return WEBHOOK_SECRET_PREFIX + unpadded + "=".repeat((4 - (unpadded.length % 4)) % 4);
}

/** `v1,<base64 HMAC-SHA256(base64-decoded secret, "<id>.<timestamp>.<body>")>`, by the reference library. */
export function signWebhookPayload(input: { secret: string; id: string; timestamp: number; body: string }): string {
  return new Webhook(standardWebhookSecret(input.secret)).sign(input.id, new Date(input.timestamp * 1000), input.body);
}

/**
 * The three headers of one delivery attempt. `secrets` lists the signing secrets in order (the
 * current one, then a rotated one still in its overlap): one signature each, separated by spaces.
 */
export function webhookHeaders(input: {
  secrets: readonly string[];
  id: string;
  timestamp: number;
  body: string;
}): Record<string, string> {
  return {
    [WEBHOOK_ID_HEADER]: input.id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(input.timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: input.secrets
      .map((secret) => signWebhookPayload({ secret, id: input.id, timestamp: input.timestamp, body: input.body }))
      .join(" "),
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

export type WebhookVerification = { ok: true; id: string; timestamp: number } | { ok: false; reason: string };

/**
 * Checks a received webhook: a `v1` signature over `<webhook-id>.<webhook-timestamp>.<body>` with
 * the endpoint's secret, and the timestamp within `toleranceSeconds` of `now`. `body` is the raw
 * request body.
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
  if (!id || !stamp || !signatures)
    return { ok: false, reason: "missing webhook-id, webhook-timestamp or webhook-signature" };
  if (!/^\d{1,12}$/.test(stamp)) return { ok: false, reason: "webhook-timestamp is not unix seconds" };
  const timestamp = Number(stamp);
  const tolerance = input.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - timestamp) > tolerance)
    return { ok: false, reason: "webhook-timestamp is outside the tolerance" };
  const body = typeof input.body === "string" ? input.body : Buffer.from(input.body).toString("utf8");
  let signed: string;
  try {
    signed = signWebhookPayload({ secret: input.secret, id, timestamp, body });
  } catch {
    return { ok: false, reason: "the secret is not whsec_ followed by base64" };
  }
  const expected = Buffer.from(signed);
  const match = signatures.split(" ").some((candidate) => {
    const presented = Buffer.from(candidate.trim());
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
  return match ? { ok: true, id, timestamp } : { ok: false, reason: "no signature matches" };
}

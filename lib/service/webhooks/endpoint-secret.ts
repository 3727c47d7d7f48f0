import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { WEBHOOK_SECRET_PREFIX } from "@/lib/api/webhooks";
import type { ServiceConfig } from "../config";

// A signing secret must be read back to sign each delivery, so unlike API keys it cannot be kept
// as a hash. It is kept sealed (AES-256-GCM) with a key derived from the server's webhook key
// (WEBHOOK_SECRET_KEY or the session secret: lib/server-secrets.mjs), which never enters the
// database: a dump or a read-only query yields no secret that could forge a delivery.

const SEALED_PREFIX = "sealed.v1.";

/** Standard Webhooks: `whsec_` and the key's 32 random bytes in (padded, standard) base64. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** How long a rotated-out secret still signs deliveries, beside the new one. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3600_000;

/** What lists show of a secret: enough to tell two apart. */
export function webhookSecretPrefix(secret: string): string {
  return secret.slice(0, WEBHOOK_SECRET_PREFIX.length + 4);
}

function sealKey(config: Pick<ServiceConfig, "webhookSecretKey">): Buffer {
  return createHmac("sha256", config.webhookSecretKey).update("awm webhook secret seal v1").digest();
}

export function sealWebhookSecret(config: Pick<ServiceConfig, "webhookSecretKey">, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(config), iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return SEALED_PREFIX + [iv, sealed, cipher.getAuthTag()].map((b) => b.toString("base64url")).join(".");
}

/** The secret, or null when the server's key changed since it was sealed (rotate the endpoint's secret). */
export function openWebhookSecret(config: Pick<ServiceConfig, "webhookSecretKey">, stored: string): string | null {
  if (!stored.startsWith(SEALED_PREFIX)) return null;
  const [iv, sealed, tag] = stored
    .slice(SEALED_PREFIX.length)
    .split(".")
    .map((p) => Buffer.from(p, "base64url"));
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealKey(config), iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ServiceConfig } from "../config";

// A kept mail body holds a claim link, i.e. a credential, and claim tokens are stored only as
// hashes (agent_claims.token_hash). So the outbox keeps a body only sealed (AES-256-GCM) with a key
// derived from the outbox secret, which lives in the environment or DATA_DIR, never in the
// database: a copy of the database (a dump, a backup, a read-only query) yields no usable link,
// and the body opens only when GET /v1/dev/outbox is read with the secret. With SMTP configured,
// or off the local chain, no body is kept at all.

const SEALED_PREFIX = "sealed.v1.";

/** The outbox's secret when the outbox exists: on the local development chain only. */
export function outboxSecret(config: ServiceConfig): string | null {
  return config.chain?.network === "local" ? config.devOutboxToken : null;
}

/** What the outbox keeps of a mail's body: sealed when the outbox is open and no SMTP sends it, else nothing. */
export function keptMailBody(config: ServiceConfig, text: string): string | null {
  const secret = outboxSecret(config);
  return secret && !config.smtpUrl ? sealMailText(secret, text) : null;
}

function sealKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("awm outbox mail seal v1").digest();
}

export function sealMailText(secret: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(secret), iv);
  const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return SEALED_PREFIX + [iv, sealed, cipher.getAuthTag()].map((b) => b.toString("base64url")).join(".");
}

/** The body, or null when it was not kept or the secret changed since (it cannot be opened). */
export function openMailText(secret: string, stored: string | null): string | null {
  if (!stored?.startsWith(SEALED_PREFIX)) return null;
  const [iv, sealed, tag] = stored
    .slice(SEALED_PREFIX.length)
    .split(".")
    .map((p) => Buffer.from(p, "base64url"));
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealKey(secret), iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(sealed!), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/** Constant-time comparison of a presented secret with the outbox's. */
export function isOutboxSecret(secret: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(secret), digest(presented));
}

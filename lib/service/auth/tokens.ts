import { createHash, randomBytes } from "node:crypto";

// Credentials are random 256-bit secrets with a readable prefix (so that secret scanners and
// people can tell what leaked). Only their SHA-256 is stored: a stolen database holds no usable
// key, and a fast hash is enough because the secret has full entropy.
export const AGENT_KEY_PREFIX = "awm_sk_";
export const USER_SESSION_PREFIX = "awm_us_";
export const CLAIM_TOKEN_PREFIX = "awm_cl_";

export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

// Secrets this app generates for itself on first start, so that `npm start` needs no setup: kept
// under DATA_DIR with mode 600, unless the environment names them. Plain .mjs because
// scripts/server.mjs reads them too (it has no TypeScript loader); types in the .d.mts.
import { createHmac, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The secret in DATA_DIR/<name>, created (32 random bytes, base64url) if missing. 'wx' makes
 * concurrent first starts agree: only one process creates the file, the others read it.
 */
export function readOrCreateSecretFile(dataDir, name) {
  // turbopackIgnore: the path is known only at run time; without it the build traces the whole project.
  const file = path.resolve(/*turbopackIgnore: true*/ dataDir || ".data", name);
  mkdirSync(/*turbopackIgnore: true*/ path.dirname(file), { recursive: true });
  try {
    writeFileSync(/*turbopackIgnore: true*/ file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if (error.code !== "EEXIST") throw error;
  }
  chmodSync(/*turbopackIgnore: true*/ file, 0o600);
  const secret = readFileSync(/*turbopackIgnore: true*/ file, "utf8").trim();
  if (secret.length < 32)
    throw new Error(`${file} holds fewer than 32 characters: delete it or set the variable it stands for`);
  return secret;
}

/** Password of the sealed session cookie, and root of the dashboard's client-address key: SESSION_SECRET or DATA_DIR/session-secret. */
export function sessionSecret(env) {
  return env.SESSION_SECRET || readOrCreateSecretFile(env.DATA_DIR, "session-secret");
}

/**
 * The development outbox's secret (?token= on /dev/outbox and GET /v1/dev/outbox, and the root of
 * the key that seals the mail bodies it keeps): DEV_OUTBOX_TOKEN or DATA_DIR/dev-outbox-token.
 */
export function devOutboxToken(env) {
  return env.DEV_OUTBOX_TOKEN || readOrCreateSecretFile(env.DATA_DIR, "dev-outbox-token");
}

/**
 * Key of the HMAC that turns a poster's network prefix into the origin kept with forum posts:
 * ORIGIN_HASH_SECRET, or one derived from the session secret, which every instance of a deployment
 * already shares (so origins agree across instances) and which never leaves the server (so a
 * database dump cannot be matched to networks).
 */
export function originHashSecret(env) {
  return (
    env.ORIGIN_HASH_SECRET || createHmac("sha256", sessionSecret(env)).update("awm forum origin v1").digest("base64url")
  );
}

/**
 * Root of the key that seals webhook signing secrets in the database (lib/service/webhooks): the
 * service must read a secret back to sign with it, so it cannot keep only a hash. WEBHOOK_SECRET_KEY,
 * or one derived from the session secret (shared by every instance, never in the database), so a
 * database dump yields no usable signing secret. Changing it makes every endpoint's secret unreadable:
 * rotate each endpoint's secret afterwards.
 */
export function webhookSecretKey(env) {
  return (
    env.WEBHOOK_SECRET_KEY ||
    createHmac("sha256", sessionSecret(env)).update("awm webhook secret seal v1").digest("base64url")
  );
}

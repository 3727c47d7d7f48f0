import { z } from "zod";

// The environment, validated once. Nothing else reads process.env directly (the chain's own
// settings are validated in lib/chain/config.ts).

const flag = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .optional()
  .transform((v) => v === "1" || v === "true" || v === "yes");

/** A comma-separated list of EVM addresses (empty when unset). */
const addressList = z
  .string()
  .default("")
  .transform((v) => v.split(",").map((a) => a.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, { message: "must be EVM addresses" })));

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** The address the production server (scripts/server.mjs) listens on; the prober refuses it. */
  HOST: z.string().min(1).default("127.0.0.1"),
  /** Public URL of the site: claim links and SIWE domain. Default: http://localhost:$PORT. */
  SITE_URL: z.url().optional(),
  /** The /v1 service the dashboard talks to. Unset: the built-in one of this app. */
  API_BASE_URL: z.url().optional(),
  /** A PostgreSQL server; unset: PGlite under DATA_DIR. */
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  /** Password of the sealed session cookie (32+ characters); generated under DATA_DIR when unset. */
  SESSION_SECRET: z.string().min(32).optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default("Agent Work Marketplace <no-reply@localhost>"),
  /** Answer the development outbox to any client, not only loopback ones. */
  DEV_OUTBOX: flag,
  /** Believe X-Forwarded-For (only behind a proxy you run). */
  TRUST_PROXY: flag,
  /**
   * Let the deliverable prober reach 127.0.0.0/8 and ::1 (local stack and tests only). Honoured only
   * on the local chain (CHAIN=local); never reaches this app itself.
   */
  PROBE_ALLOW_LOOPBACK: flag,
  /** Run the background workers (proof rechecks, payouts, claim lapses) in this process. */
  WORKERS: z.enum(["on", "off"]).default("on"),
  /** Multiplies every rate budget (benchmarks and load tests only). */
  RATE_LIMIT_SCALE: z.coerce.number().positive().default(1),
  /** Addresses (comma-separated) of humans who may add forum reward budget funded by the service's rewards wallet. */
  REWARDS_ADMIN_ADDRESSES: addressList,
  /** Addresses (comma-separated) of the operators: humans who sign in with SIWE like anyone and may act as the operator. */
  OPERATOR_ADDRESSES: addressList,
  /** Key of the HMAC over a poster's network prefix (forum reward origins); default a fixed public value. */
  ORIGIN_HASH_SECRET: z.string().min(16).optional(),
  /** At most one forum reward per kind per network (IPv4 /24, IPv6 /64) within this many hours; 0: off. */
  REWARDS_ORIGIN_WINDOW_HOURS: z.coerce.number().min(0).default(24),
  /** Hours after first sign-in before an owner without a verified email (a claimed agent) earns a first reward. */
  REWARDS_MIN_ACCOUNT_AGE_HOURS: z.coerce.number().min(0).default(72),
  /** Seconds an agent waits after its first failed attempt at a certification pack; doubles with each further failure. */
  PACK_COOLDOWN_BASE_SECONDS: z.coerce.number().min(0).default(600),
  /** The longest wait between attempts at a pack, in seconds. */
  PACK_COOLDOWN_MAX_SECONDS: z.coerce.number().min(0).default(86_400),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function getEnv(source: NodeJS.ProcessEnv = process.env): Env {
  if (source === process.env && cached) return cached;
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`invalid environment:\n${problems}`);
  }
  if (source === process.env) cached = parsed.data;
  return parsed.data;
}

export function siteUrl(env: Env = getEnv()): string {
  return env.SITE_URL ?? `http://localhost:${env.PORT}`;
}

/** Origin of the service the dashboard calls; the built-in one listens on this app's port. */
export function apiBaseUrl(env: Env = getEnv()): string {
  return env.API_BASE_URL ?? `http://127.0.0.1:${env.PORT}`;
}

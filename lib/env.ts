import { z } from "zod";
import { parseTrustProxy } from "./net/client-address.mjs";

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
  .transform((v) =>
    v
      .split(",")
      .map((a) => a.trim())
      .filter(Boolean),
  )
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
  /**
   * Read replicas: one or more PostgreSQL streaming standbys of DATABASE_URL (comma-separated) that
   * serve the public reads (docs/deployment.md). Needs DATABASE_URL.
   */
  DATABASE_REPLICA_URL: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  /**
   * Repeated queries run as named prepared statements, planned once per connection
   * (lib/service/db/prepared-statements.ts). "off" for a connection pooler in transaction mode,
   * which cannot keep a session's statements.
   */
  DATABASE_PREPARED_STATEMENTS: z.enum(["on", "off"]).default("on"),
  /** A replica further behind the primary than this many milliseconds serves no read (they go to the primary). */
  REPLICA_MAX_LAG_MS: z.coerce.number().int().min(100).default(5_000),
  /** How often each process reads the primary's and the replicas' WAL positions, in milliseconds. */
  REPLICA_CHECK_MS: z.coerce.number().int().min(50).max(10_000).default(500),
  DATA_DIR: z.string().min(1).default(".data"),
  /** Password of the sealed session cookie (32+ characters); generated under DATA_DIR when unset. */
  SESSION_SECRET: z.string().min(32).optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default("Agent Work Marketplace <no-reply@localhost>"),
  /**
   * Secret of the development outbox (?token= on /dev/outbox); generated under DATA_DIR when unset.
   * The outbox answers only on the local chain (see GET /v1/dev/outbox).
   */
  DEV_OUTBOX_TOKEN: z.string().min(32).optional(),
  /**
   * Believe X-Forwarded-For (only behind proxies you run): a number of proxy hops ("1"), or a comma
   * list of the proxies' addresses or CIDRs; read by scripts/server.mjs (lib/net/client-address.mjs).
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .refine((v) => {
      try {
        parseTrustProxy(v);
        return true;
      } catch {
        return false;
      }
    }, 'must be a number of proxy hops or a comma list of proxy addresses, CIDRs or "loopback"'),
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
  /**
   * A WalletConnect (Reown) project id (32 hex digits): the sign-in and funding pages then offer
   * WalletConnect, so a phone wallet connects by QR code or deep link. Unset: the option is not offered.
   */
  WALLETCONNECT_PROJECT_ID: z
    .string()
    .regex(/^[0-9a-f]{32}$/i, { message: "must be a WalletConnect project id: 32 hexadecimal digits" })
    .optional(),
  /** Key of the HMAC over a poster's network prefix (forum reward origins); default a fixed public value. */
  ORIGIN_HASH_SECRET: z.string().min(16).optional(),
  /** Root of the key that seals webhook signing secrets in the database; default derived from the session secret. */
  WEBHOOK_SECRET_KEY: z.string().min(16).optional(),
  /** At most one forum reward per kind per network (IPv4 /24, IPv6 /64) within this many hours; 0: off. */
  REWARDS_ORIGIN_WINDOW_HOURS: z.coerce.number().min(0).default(24),
  /** Hours after first sign-in before an owner without a verified email (a claimed agent) earns a first reward. */
  REWARDS_MIN_ACCOUNT_AGE_HOURS: z.coerce.number().min(0).default(72),
  /** Hours each side of a dispute has to add statements and evidence (lib/service/config.ts). */
  DISPUTE_ANSWER_HOURS: z.coerce.number().int().min(1).default(72),
  /** Hours after which a dispute nobody ruled on escalates to the operator. */
  DISPUTE_RULING_HOURS: z.coerce.number().int().min(1).default(168),
  /** Seconds an agent waits after its first failed attempt at a certification pack; doubles with each further failure. */
  PACK_COOLDOWN_BASE_SECONDS: z.coerce.number().min(0).default(600),
  /** The longest wait between attempts at a pack, in seconds. */
  PACK_COOLDOWN_MAX_SECONDS: z.coerce.number().min(0).default(86_400),
  /** Attempts at one pack that may start in 24 hours per owner (claimed agents) or per network (unclaimed agents). */
  PACK_ATTEMPTS_PER_GROUP_PER_DAY: z.coerce.number().int().min(1).default(5),
  /** Processes serving the app with PostgreSQL (scripts/server.mjs): default one per core; PGlite always runs one. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).optional(),
  /** Share of API responses checked against their schema: default 1 (all, strictly) in development, 0.01 in production. */
  RESPONSE_CHECK_RATE: z.coerce.number().min(0).max(1).optional(),
  /** Milliseconds the board's anonymous first page (the same for everyone) is kept and revalidated by ETag; 0: off. */
  SHARED_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(1000),
  /** How long a process keeps an API key it read, in ms; changes through the service are heard at once on the bus (auth/actor.ts). */
  KEY_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(10_000),
  IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
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

import type { ChainConfig } from "@/lib/chain/config";

export interface RateBudgets {
  publicReadsPerMinute: number;
  authReadsPerMinute: number;
  writesPerMinute: number;
  /**
   * Every counted request from one client address (an IPv4 address, an IPv6 /64), whatever its
   * credential, beside the budget of its key or session: keys are free, so without it one machine
   * with a dozen fresh keys had a dozen budgets. Unset: DEFAULT_RATE_BUDGETS'.
   */
  addressPerMinute?: number;
}

export const DEFAULT_RATE_BUDGETS: Required<RateBudgets> = {
  publicReadsPerMinute: 60,
  authReadsPerMinute: 120,
  writesPerMinute: 30,
  // Ten requests a second: five keys or people at their full read budget, or an office behind one
  // NAT address browsing the dashboard (a page is a handful of calls), with room to spare.
  addressPerMinute: 600,
};

/** Settings of the built-in service, assembled from the environment by the app or by a test. */
export interface ServiceConfig {
  /** Public site URL (claim links, SIWE domain); null: the origin the request came to. */
  siteUrl: string | null;
  rateBudgets: RateBudgets;
  /**
   * The development outbox's secret (env DEV_OUTBOX_TOKEN or DATA_DIR/dev-outbox-token); null: the
   * outbox is closed and mail bodies are never kept. Set only on the local chain.
   */
  devOutboxToken: string | null;
  /**
   * Let the prober reach 127.0.0.0/8 and ::1 (env PROBE_ALLOW_LOOPBACK). Honoured only on the local
   * development chain (proofs/fetch-policy.ts): on a real chain it is ignored. Never lets the prober
   * reach this app itself.
   */
  probeAllowLoopback: boolean;
  /** The socket this app listens on (env HOST, PORT): the prober refuses every URL that reaches it. null: unknown. */
  listen: { host: string; port: number } | null;
  smtpUrl: string | null;
  mailFrom: string;
  sessionTtlHours: number;
  /** Where to pay; null when no chain is configured (job creation then fails with 503). */
  chain: ChainConfig | null;
  /**
   * A job in REVIEW whose poster neither approves nor disputes is approved automatically this many
   * hours after its proof hold ends, if its deliverable is LIVE (autoApproved true).
   */
  reviewWindowHours: number;
  /**
   * Each side of a dispute may add statements and evidence for this many hours after it opens
   * (env DISPUTE_ANSWER_HOURS); then the case waits for its ruling.
   */
  disputeAnswerHours: number;
  /**
   * A dispute nobody ruled on this many hours after it opened escalates to the operator (env
   * DISPUTE_RULING_HOURS). Nothing is ever refunded or released without a ruling.
   */
  disputeRulingHours: number;
  /** Signed-in humans whose address is listed here may add reward budget funded by the rewards wallet (env REWARDS_ADMIN_ADDRESSES, comma-separated). */
  rewardsAdminAddresses: string[];
  /** Operators: signed-in humans whose address is listed here (env OPERATOR_ADDRESSES, comma-separated); see auth/operator.ts. */
  operatorAddresses: string[];
  /**
   * Key of the HMAC that turns a client's network prefix into the origin stored with forum posts
   * (env ORIGIN_HASH_SECRET, else derived from the session secret: lib/server-secrets.mjs), so a
   * database dump cannot be matched to networks; it must stay the same across restarts and instances.
   */
  originHashSecret: string;
  /** At most one forum reward per kind per network origin within this many hours (env REWARDS_ORIGIN_WINDOW_HOURS; 0 turns the rule off). */
  rewardsOriginWindowHours: number;
  /** An owner without a verified email (an agent claimed from the mailed link) earns a first reward only this many hours after first signing in (env REWARDS_MIN_ACCOUNT_AGE_HOURS). */
  rewardsMinAccountAgeHours: number;
  /**
   * After a failed certification attempt the next one waits base × 2^(consecutive failures − 1)
   * seconds, at most max (env PACK_COOLDOWN_BASE_SECONDS, PACK_COOLDOWN_MAX_SECONDS); a pass resets.
   */
  packCooldownBaseSeconds: number;
  packCooldownMaxSeconds: number;
  /**
   * Attempts that may start per pack in any 24 hours per group: a claimed agent's owner, or the
   * network of an unclaimed agent's request (env PACK_ATTEMPTS_PER_GROUP_PER_DAY; evals/attempt-budget.ts).
   */
  packAttemptsPerGroup: number;
  /**
   * Root of the key that seals webhook signing secrets (env WEBHOOK_SECRET_KEY, else derived from
   * the session secret: lib/server-secrets.mjs); the same on every instance.
   */
  webhookSecretKey: string;
  /**
   * Webhook retries: after the n-th failed attempt the next waits a random time in
   * [0, min(maxMs, baseMs × 2^(n−1))] (exponential backoff, full jitter), for windowHours after the
   * delivery was queued; an endpoint failing for failingHoursToDisable hours is disabled.
   */
  webhookRetry: { baseMs: number; maxMs: number; windowHours: number; failingHoursToDisable: number };
  /**
   * Share of responses checked against their route's schema (router.ts): 1 checks every one, and
   * strictly (tests, development); production checks a sample (env RESPONSE_CHECK_RATE).
   */
  responseCheckRate: number;
  /** How long answers that are the same for everyone (the board's anonymous first page) are kept, in ms; 0: not at all. At most 1000. */
  sharedCacheMs: number;
  /**
   * How long a process keeps an API key as it read it, in ms; 0: not at all (auth/actor.ts). A key
   * revoked, rotated or claimed through the service is forgotten at once on every instance (a
   * control message on the event bus), and keys are kept only while the instance listens; this time
   * bounds only a change written straight into the database. At most 60000.
   */
  keyCacheMs: number;
  /**
   * How long a pending Idempotency-Key stays its process's without renewal, in ms (http/idempotency.ts):
   * the process renews it every third of this while the request runs; once lapsed (the process
   * died) a retry takes the key over and runs the request.
   */
  idempotencyLeaseMs: number;
}

export function defaultServiceConfig(overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    siteUrl: null,
    rateBudgets: DEFAULT_RATE_BUDGETS,
    devOutboxToken: null,
    probeAllowLoopback: false,
    listen: null,
    smtpUrl: null,
    mailFrom: "Agent Work Marketplace <no-reply@localhost>",
    sessionTtlHours: 24 * 7,
    chain: null,
    reviewWindowHours: 72,
    disputeAnswerHours: 72,
    disputeRulingHours: 168,
    rewardsAdminAddresses: [],
    operatorAddresses: [],
    originHashSecret: "awm-origin-v1",
    rewardsOriginWindowHours: 24,
    rewardsMinAccountAgeHours: 72,
    packCooldownBaseSeconds: 600,
    packCooldownMaxSeconds: 86_400,
    packAttemptsPerGroup: 5,
    webhookSecretKey: "awm-webhook-seal-v1",
    webhookRetry: { baseMs: 30_000, maxMs: 3_600_000, windowHours: 24, failingHoursToDisable: 24 },
    responseCheckRate: 1,
    sharedCacheMs: 0,
    keyCacheMs: 0,
    idempotencyLeaseMs: 30_000,
    ...overrides,
  };
}

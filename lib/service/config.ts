import type { ChainConfig } from "@/lib/chain/config";

export interface RateBudgets {
  publicReadsPerMinute: number;
  authReadsPerMinute: number;
  writesPerMinute: number;
}

export const DEFAULT_RATE_BUDGETS: RateBudgets = {
  publicReadsPerMinute: 60,
  authReadsPerMinute: 120,
  writesPerMinute: 30,
};

/** Settings of the built-in service, assembled from the environment by the app or by a test. */
export interface ServiceConfig {
  /** Public site URL (claim links, SIWE domain); null: the origin the request came to. */
  siteUrl: string | null;
  rateBudgets: RateBudgets;
  /** Answer /v1/dev/outbox to any client (otherwise loopback clients only). */
  devOutbox: boolean;
  /** Believe X-Forwarded-For for the client address. */
  trustProxy: boolean;
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
   * Where certification pack fees are paid (env PACK_TREASURY_ADDRESS); null: the escrow
   * contract's feeRecipient, read from the chain, so pack fees land where escrow fees do.
   */
  packTreasuryAddress: `0x${string}` | null;
  /**
   * A job in REVIEW whose poster neither approves nor disputes is approved automatically this many
   * hours after its proof hold ends, if its deliverable is LIVE (autoApproved true).
   */
  reviewWindowHours: number;
  /** A DISPUTED job nobody resolves is cancelled and its escrow refunded to the payer after this many days. */
  disputeTimeoutDays: number;
  /** Signed-in humans whose address is listed here may add reward budget funded by the rewards wallet (env REWARDS_ADMIN_ADDRESSES, comma-separated). */
  rewardsAdminAddresses: string[];
}

export function defaultServiceConfig(overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    siteUrl: null,
    rateBudgets: DEFAULT_RATE_BUDGETS,
    devOutbox: false,
    trustProxy: false,
    probeAllowLoopback: false,
    listen: null,
    smtpUrl: null,
    mailFrom: "Agent Work Marketplace <no-reply@localhost>",
    sessionTtlHours: 24 * 7,
    chain: null,
    packTreasuryAddress: null,
    reviewWindowHours: 72,
    disputeTimeoutDays: 14,
    rewardsAdminAddresses: [],
    ...overrides,
  };
}

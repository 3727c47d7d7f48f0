import { fail } from "./errors";
import type { Db } from "./db/connection";
import type { ReadReplicas } from "./db/replicas";
import type { ServiceConfig } from "./config";
import type { ChainConfig } from "@/lib/chain/config";
import type { StreamHub } from "./events/stream-hub";

/** Everything a domain function needs, passed explicitly so tests build their own. */
export interface ServiceContext {
  db: Db;
  config: ServiceConfig;
  now: () => Date;
  /**
   * Standbys for the public reads that opt in (router.ts, ImplementOptions.replica); absent: every
   * read goes to `db`. A handler never sees them: the router hands it a context whose `db` is the
   * replica it picked.
   */
  replicas?: ReadReplicas | null;
  /** Where a test makes this service crash; absent in production (see CrashPoints). */
  crashPoints?: CrashPoints;
  /**
   * This process's open event streams and the event bus that feeds them (events/stream-hub.ts),
   * made with the first stream (streamHubOf); closed with the service.
   */
  streams?: StreamHub;
}

/**
 * The moments a crash does the most harm, between a step that reached the chain (or is about to)
 * and the one that records it. Tests pass their own object through the context they build
 * (lib/service/testing/harness.ts, `service.crashPoints`) and make one throw, or stall, as a crash or
 * an outage would; the composition root of production passes none. Each runs outside the step's
 * error handling.
 */
export interface CrashPoints {
  /** After a job settlement's chain call, before its receipt is recorded (escrow/settle-job.ts). */
  afterSettlementSend?: (jobId: string) => void | Promise<void>;
  /** After a part's settlement was sent, before its receipt is recorded (escrow/settle-part.ts). */
  afterPartSettlementSend?: (milestoneId: string) => void | Promise<void>;
  /** After a stray deposit's refund was sent, before its receipt is recorded (escrow/deposit-watch.ts). */
  afterStrayRefundSend?: (depositId: string) => void | Promise<void>;
  /** After a withdrawal was claimed, in the sender's lock just before its transfer is signed (rewards/wallet.ts). */
  beforeWithdrawalSign?: (withdrawalId: string) => void | Promise<void>;
  /** After a withdrawal's signed transaction was stored, before it is broadcast (rewards/wallet.ts). */
  beforeWithdrawalBroadcast?: (withdrawalId: string) => void | Promise<void>;
  /** After a withdrawal's transfer was mined, before its receipt is recorded (rewards/wallet.ts). */
  afterWithdrawalSend?: (withdrawalId: string) => void | Promise<void>;
  /** Before each reward slot's deposit (rewards/campaigns.ts). */
  beforeCampaignDeposit?: (slotNo: number) => void | Promise<void>;
  /** After a reward slot's deposit was sent (mined), before its receipt is recorded (rewards/campaigns.ts). */
  afterCampaignDepositSend?: (slotNo: number) => void | Promise<void>;
  /** After a reward's slot was reserved, before its release is sent (rewards/pay-rewards.ts). */
  afterRewardReserve?: (rewardId: string) => void | Promise<void>;
  /** After an x402 settlement's receipt came, before it is recorded SETTLED (evals/x402.ts). */
  afterPaymentSettled?: (paymentId: string) => void | Promise<void>;
  /** After an x402 authorization was found unclaimed, before it is checked on chain (evals/x402.ts). */
  beforePaymentVerify?: (nonce: string) => void | Promise<void>;
}

export function requireChain(ctx: ServiceContext): ChainConfig {
  if (!ctx.config.chain) {
    throw fail("CHAIN_UNAVAILABLE", "no payment chain is configured for this deployment");
  }
  return ctx.config.chain;
}

/**
 * A background task of a domain (its worker.ts), run by workers.ts. It lives here, below the
 * domains, so that a domain's worker does not import the module that lists every worker.
 */
export interface Worker {
  name: string;
  /** How often to run, in milliseconds. */
  everyMs: number;
  /** A round running longer is abandoned and the next one starts (workers.ts); DEFAULT_ROUND_DEADLINE_MS unless set. */
  deadlineMs?: number;
  run(ctx: ServiceContext): Promise<void>;
}

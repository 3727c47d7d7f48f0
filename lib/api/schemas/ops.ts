import { z } from "zod";
import { DecimalString, NullableTimestamp, Timestamp } from "./common";

// GET /v1/health and GET /v1/stats.

const Part = {
  ok: z.boolean(),
  /** A sentence a person can act on: what was checked and what went wrong. */
  detail: z.string(),
};

export const DatabaseHealth = z.object({ ...Part, latencyMs: z.number().int().nullable() });

/** A read replica (DATABASE_REPLICA_URL): reads go to the primary when it is down or lags past the bound. */
export const ReplicaHealth = z.object({
  ...Part,
  /** host:port/database, without credentials. */
  name: z.string(),
  /** Milliseconds behind the primary at the last check (0: caught up); null when down or not yet measured. */
  lagMs: z.number().int().nullable(),
  /** The largest lag at which it still serves reads (REPLICA_MAX_LAG_MS). */
  maxLagMs: z.number().int(),
  /** Whether it serves reads now: up, a standby, and within maxLagMs. */
  serving: z.boolean(),
});

/**
 * The primary, and the read replicas (empty without DATABASE_REPLICA_URL). A replica that lags or is
 * down does not make the database part fail: its reads go to the primary, and its entry says so.
 */
export const DatabaseWithReplicasHealth = DatabaseHealth.extend({ replicas: z.array(ReplicaHealth) });

export const ChainHealth = z.object({
  ...Part,
  /** false: this deployment has no payment chain (ok is then true; job creation answers 503 CHAIN_UNAVAILABLE). */
  configured: z.boolean(),
  chainId: z.number().int().nullable(),
  /** The RPC's latest block, as a decimal string; null when it did not answer. */
  blockNumber: z.string().nullable(),
  latencyMs: z.number().int().nullable(),
});

export const WorkerHealth = z.object({
  name: z.string(),
  everyMs: z.number().int(),
  /** The worker is late when its last successful round (or, if later, its last start by an instance) is older than this. */
  lateAfterMs: z.number().int(),
  startedAt: NullableTimestamp,
  lastRunAt: NullableTimestamp,
  /** now − the later of lastRunAt and startedAt; null when no instance ever started it. */
  lagMs: z.number().int().nullable(),
  late: z.boolean(),
  lastError: z.string().nullable(),
  lastErrorAt: NullableTimestamp,
});

export const WorkersHealth = z.object({ ...Part, workers: z.array(WorkerHealth) });

/**
 * The money the service moves: ok when no escrow settlement is FAILED, no outgoing transfer is
 * stuck and the last reconciliation of the chain found no difference. Not ok makes the deployment
 * degraded (HTTP 200), not down: it still serves, but a person must look.
 */
export const MoneyHealth = z.object({
  ...Part,
  /** Escrow settlements (releases, refunds, splits, of whole jobs and of parts) FAILED: the money stays in escrow until an operator acts. */
  failedSettlements: z.number().int(),
  /** Outgoing transfers not confirmed within 15 minutes of being asked for, per kind. */
  stuck: z.object({
    settlements: z.number().int(),
    /** Parts of jobs paid in parts. */
    partSettlements: z.number().int(),
    withdrawals: z.number().int(),
    packPayouts: z.number().int(),
    rewardFunding: z.number().int(),
    /** x402 payments sent whose outcome is not recorded yet. */
    x402Payments: z.number().int(),
  }),
  /** Differences the newest reconciliation of the chain against the database found; null when none ran in the last day. */
  reconciliationDifferences: z.number().int().nullable(),
  reconciledAt: NullableTimestamp,
});

export const Health = z.object({
  /**
   * ok when every part is ok; degraded (HTTP 200) when database, chain and workers are ok but money
   * is not (failed settlements, stuck transfers, reconciliation differences); down (HTTP 503) when
   * database, chain or workers are not ok.
   */
  status: z.enum(["ok", "degraded", "down"]),
  checkedAt: Timestamp,
  database: DatabaseWithReplicasHealth,
  chain: ChainHealth,
  workers: WorkersHealth,
  money: MoneyHealth,
});
export type Health = z.infer<typeof Health>;

/** GET /v1/health/ready: whether this one instance can serve requests (the load balancer's probe). */
export const Readiness = z.object({
  /** ok when this instance's database answers; down (HTTP 503) otherwise. */
  status: z.enum(["ok", "down"]),
  checkedAt: Timestamp,
  database: DatabaseHealth,
});
export type Readiness = z.infer<typeof Readiness>;

/** The figures of one kind of job. */
export const JobFigures = z.object({
  /** Jobs created, whatever became of them. */
  jobsPosted: z.number().int(),
  /** Jobs whose escrow deposit was verified (fundedAt set). */
  jobsFunded: z.number().int(),
  /** Jobs COMPLETED: their escrow was released to the agent. */
  jobsCompleted: z.number().int(),
  /** Jobs whose escrow was refunded to the payer (a confirmed refund). */
  jobsRefunded: z.number().int(),
  /** USDC released to agents (net of the contract's fee), summed over confirmed release settlements. */
  usdcSettled: DecimalString,
  /** Median seconds from a job's funding (deposit verified) to its release being confirmed; null with no release. */
  medianSecondsFundingToRelease: z.number().nullable(),
  /** Jobs whose escrow reached a confirmed settlement: released or refunded. */
  settledJobs: z.number().int(),
  /** Settled jobs that were disputed at some point before settling. */
  disputedSettledJobs: z.number().int(),
  /** disputedSettledJobs ÷ settledJobs (0 to 1); null when no job has settled. */
  disputeRate: z.number().nullable(),
});

export const Stats = z.object({
  generatedAt: Timestamp,
  /** The payment chain the figures cover (jobs of other chains are left out); null: no chain configured, every job counts. */
  chainId: z.number().int().nullable(),
  /** Jobs posted by people and agents (BID and BOUNTY), including subcontracted ones. */
  marketplace: JobFigures,
  /** Forum reward slots (AUTOMATIC_FORUM_REWARD jobs paying THREAD and REPLY rewards). */
  forumRewards: JobFigures,
  /** Referral reward slots (purpose PLATFORM_REFERRAL). */
  referrals: JobFigures,
  /** How each figure is defined, in words. */
  definitions: z.record(z.string(), z.string()),
});
export type Stats = z.infer<typeof Stats>;

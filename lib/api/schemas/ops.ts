import { z } from "zod";
import { DecimalString, NullableTimestamp, Timestamp } from "./common";

// GET /v1/health and GET /v1/stats.

const Part = {
  ok: z.boolean(),
  /** A sentence a person can act on: what was checked and what went wrong. */
  detail: z.string(),
};

export const DatabaseHealth = z.object({ ...Part, latencyMs: z.number().int().nullable() });

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

export const Health = z.object({
  /** ok when database, chain and workers are all ok; down (HTTP 503) otherwise. */
  status: z.enum(["ok", "down"]),
  checkedAt: Timestamp,
  database: DatabaseHealth,
  chain: ChainHealth,
  workers: WorkersHealth,
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

import { z } from "zod";
import { DecimalString, NullableTimestamp, Timestamp, Uuid } from "./common";
import { CriterionCheck, JobStatus, ParticipationMode } from "./jobs";

// Job modes: bounty claims, subcontracting trees, sharing, acceptance criteria with checks.

export const JobIdParams = z.strictObject({ id: Uuid });

// ── Bounties ────────────────────────────────────────────────────────────────────────────────────
/** The claimant is the caller's own agent (its key, or its owner's session). */
export const ClaimJobRequest = z.strictObject({ agentId: z.string().min(1).max(100) });
export type ClaimJobRequest = z.input<typeof ClaimJobRequest>;

// ── Subcontracting ──────────────────────────────────────────────────────────────────────────────
/** How deep a chain of subcontracts may go: a root job is depth 0, its children depth 1, … */
export const MAX_SUBCONTRACT_DEPTH = 3;

export const JobTreeNode = z.object({
  id: Uuid,
  parentJobId: Uuid.nullable(),
  /** Distance from the root job of the chain (the root is 0). */
  depth: z.number().int().min(0),
  title: z.string(),
  status: JobStatus,
  funded: z.boolean(),
  budgetUsdc: DecimalString,
  participationMode: ParticipationMode,
  posterId: Uuid,
  agentId: z.string().nullable(),
  allowSubcontracting: z.boolean(),
  createdAt: Timestamp,
});
export type JobTreeNode = z.infer<typeof JobTreeNode>;

export const JobTree = z.object({
  job: JobTreeNode,
  /** The chain above the job, root first (empty for a root job). */
  ancestors: z.array(JobTreeNode),
  /**
   * Every job below this one, breadth first (children, then grandchildren, …), each naming its
   * parentJobId: a client builds the tree from it. Direct children have parentJobId = job.id.
   */
  descendants: z.array(JobTreeNode),
  /** True when the tree has more than 500 descendants and only the first 500 are listed. */
  truncated: z.boolean(),
  /** Depth limit of the chain: a job at this depth cannot be subcontracted further. */
  maxDepth: z.number().int(),
});
export type JobTree = z.infer<typeof JobTree>;

// ── Sharing ─────────────────────────────────────────────────────────────────────────────────────
export const JobShareResult = z.object({
  jobId: Uuid,
  shareCount: z.number().int(),
  lastSharedAt: Timestamp,
  url: z.string(),
});

/** What a share page needs for its Open Graph and Twitter card metadata. */
export const JobShareCard = z.object({
  id: Uuid,
  title: z.string(),
  /** The first 200 characters of the description, for og:description. */
  description: z.string(),
  budgetUsdc: DecimalString,
  tokenSymbol: z.string(),
  funded: z.boolean(),
  status: JobStatus,
  participationMode: ParticipationMode,
  posterName: z.string(),
  shareCount: z.number().int(),
  /** The job's page on the site ({site_url}/jobs/:id). */
  url: z.string(),
});
export type JobShareCard = z.infer<typeof JobShareCard>;

// ── Acceptance criteria ─────────────────────────────────────────────────────────────────────────
export const CriterionStatus = z.enum(["PASS", "FAIL", "PENDING", "OVERRIDDEN"]);
export type CriterionStatus = z.infer<typeof CriterionStatus>;

export const CriterionParams = z.strictObject({
  id: Uuid,
  criterionId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: "must be a criterion id such as ac-1" }),
});

export const CriterionResult = z.object({
  id: z.string(),
  description: z.string(),
  check: CriterionCheck,
  /** Effective status: OVERRIDDEN when the poster overrode it, else what the check last said. */
  status: CriterionStatus,
  /** What the check itself last said, whatever the override. */
  checkStatus: CriterionStatus.exclude(["OVERRIDDEN"]),
  detail: z.string().nullable(),
  /** The URL an http_status check fetched, and the status it got. */
  checkedUrl: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  evaluatedAt: NullableTimestamp,
  ticked: z.boolean(),
  tickedBy: Uuid.nullable(),
  tickedAt: NullableTimestamp,
  overridden: z.boolean(),
  overriddenBy: Uuid.nullable(),
  overrideReason: z.string().nullable(),
  overriddenAt: NullableTimestamp,
});
export type CriterionResult = z.infer<typeof CriterionResult>;

export const JobCriteria = z.object({
  jobId: Uuid,
  criteria: z.array(CriterionResult),
  /** True when approval is refused (409 CRITERIA_NOT_MET): a machine check fails and is not overridden. */
  approvalBlocked: z.boolean(),
  /** Ids of the criteria that block approval. */
  blocking: z.array(z.string()),
});
export type JobCriteria = z.infer<typeof JobCriteria>;

export const TickCriterionRequest = z.strictObject({ ticked: z.boolean() });
export const OverrideCriterionRequest = z.strictObject({
  reason: z
    .string()
    .trim()
    .min(5, { message: "must be at least 5 characters" })
    .max(1000, { message: "must be at most 1000 characters" }),
});

import { z } from "zod";
import { ProofStatus } from "./deliverables";
import {
  BooleanParam,
  Cursor,
  DecimalString,
  EvmAddress,
  NullableTimestamp,
  PositiveDecimalString,
  Timestamp,
  TxHash,
  Uuid,
  intParam,
} from "./common";

export const JOB_STATUSES = ["OPEN", "IN_PROGRESS", "REVIEW", "DISPUTED", "COMPLETED", "CANCELLED"] as const;
export const JobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatus>;

/** Statuses that hold one of the agent's maxActiveJobs places. */
export const ACTIVE_JOB_STATUSES = ["IN_PROGRESS", "REVIEW", "DISPUTED"] as const satisfies readonly JobStatus[];

export const ParticipationMode = z.enum(["BOUNTY", "BID", "AUTOMATIC_FORUM_REWARD"]);
export type ParticipationMode = z.infer<typeof ParticipationMode>;
export const JobPurpose = z.enum(["MARKETPLACE", "PLATFORM_REFERRAL"]);

export const PROOF_CONTENT_MARKER = z
  .string()
  .min(8, { message: "must be at least 8 characters" })
  .max(200, { message: "must be at most 200 characters" });

/**
 * A machine check of an acceptance criterion. `http_status`: a GET of the deliverable (or of
 * `url`) must answer `equals`; `manual`: the poster ticks it; `reward`: satisfied by a paid
 * forum reward (automatic forum slots).
 */
export const CriterionCheck = z.union([
  z.object({ type: z.literal("http_status"), url: z.url().optional(), equals: z.number().int().min(100).max(599) }),
  z.object({ type: z.literal("manual") }),
  z.object({ type: z.literal("reward") }),
]);
export type CriterionCheck = z.infer<typeof CriterionCheck>;

export const AcceptanceCriterion = z.object({
  id: z.string(),
  check: CriterionCheck,
  description: z.string(),
});

export const InputData = z
  .object({
    budgetType: z.string(),
    proofHoldHours: z.number().int(),
    participationMode: ParticipationMode,
    generalDescription: z.string(),
    acceptanceCriteria: z.array(z.object({ description: z.string() })),
    forumRewardCampaignId: z.string().optional(),
    proofContentMarker: PROOF_CONTENT_MARKER.optional(),
  })
  .catchall(z.unknown());
export type InputData = z.infer<typeof InputData>;

/** The interface's wire shape of a 32-byte id: an object with keys "0" to "31". */
export const EscrowJobIdWire = z.record(z.string().regex(/^(\d|[12]\d|3[01])$/), z.number().int().min(0).max(255));

export const JobPoster = z.object({ id: Uuid, displayName: z.string(), avatarUrl: z.string().nullable() });
export const JobAgentSummary = z.object({ id: z.string(), name: z.string(), vertical: z.string().nullable() });
export const ForumRewardSlot = z.object({ campaignId: z.string(), status: z.string() });

export const Job = z.object({
  id: Uuid,
  posterId: Uuid,
  parentJobId: Uuid.nullable(),
  allowSubcontracting: z.boolean(),
  sourceForumThreadId: z.string().nullable(),
  sourceForumReplyId: z.string().nullable(),
  agentId: z.string().nullable(),
  status: JobStatus,
  purpose: JobPurpose,
  participationMode: ParticipationMode,
  claimWindowMinutes: z.number().int().nullable(),
  claimedAt: NullableTimestamp,
  claimExpiresAt: NullableTimestamp,
  templateId: z.string(),
  title: z.string(),
  description: z.string(),
  budgetUsdc: DecimalString,
  inputData: InputData,
  outputData: z.object({ url: z.string().optional() }).catchall(z.unknown()).nullable(),
  proofHash: z.string().nullable(),
  deadlineAt: NullableTimestamp,
  submittedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
  autoApproved: z.boolean(),
  escrowTxHash: TxHash.nullable(),
  escrowJobId: EscrowJobIdWire,
  chainId: z.number().int(),
  tokenSymbol: z.string(),
  tokenAddress: EvmAddress,
  paymentProvider: z.string(),
  paymentStatus: z.string().nullable(),
  stripePaymentIntentId: z.string().nullable(),
  stripeChargeId: z.string().nullable(),
  cardCapturedAt: NullableTimestamp,
  acceptanceCriteria: z.array(AcceptanceCriterion),
  requiredPackId: z.string().nullable(),
  requiredSkills: z.array(z.string()),
  preferredSkills: z.array(z.string()),
  isPubliclyShareable: z.boolean(),
  shareCount: z.number().int(),
  lastSharedAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  poster: JobPoster,
  agent: JobAgentSummary.nullable(),
  forumRewardSlot: ForumRewardSlot.nullable(),
  funded: z.boolean(),
  /** Present on the authenticated detail (GET /v1/jobs/:id) only. */
  proofCheckedAt: NullableTimestamp.optional(),
  proofCheckStatus: ProofStatus.nullable().optional(),
  proofCheckReason: z.string().nullable().optional(),
  /** When the poster approved the work, and when the escrow is released (end of the proof hold). */
  approvedAt: NullableTimestamp.optional(),
  releaseAt: NullableTimestamp.optional(),
  /** Why an approved release has not happened yet (a failing check at release, no agent wallet, a pending transaction); null otherwise. */
  releaseHeldReason: z.string().nullable().optional(),
  disputeReason: z.string().nullable().optional(),
  /** Receipts of the escrow's release or refund, once sent. */
  releaseTxHash: TxHash.nullable().optional(),
  refundTxHash: TxHash.nullable().optional(),
});
export type Job = z.infer<typeof Job>;

const Skills = z.array(z.string().trim().min(1).max(50)).max(20);

export const CreateJobRequest = z.strictObject({
  templateId: z.literal("custom-v1", { message: "must be custom-v1" }),
  title: z.string().trim().min(5, { message: "must be at least 5 characters" }).max(200, { message: "must be at most 200 characters" }),
  description: z.string().trim().min(20, { message: "must be at least 20 characters" }).max(20000, { message: "must be at most 20000 characters" }),
  acceptanceCriteria: z
    .array(
      z.union([
        z.string().trim().min(3).max(500),
        z.strictObject({ description: z.string().trim().min(3).max(500), check: CriterionCheck.optional() }),
      ]),
    )
    .min(1, { message: "must contain at least 1 criterion" })
    .max(20),
  inputData: z.strictObject({
    budgetType: z.enum(["bid", "fixed"]).default("bid"),
    proofHoldHours: intParam(0, 720).optional(),
    proofContentMarker: PROOF_CONTENT_MARKER.optional(),
    participationMode: z.enum(["BID", "BOUNTY"]).optional(),
  }),
  /** Gross budget in USDC. */
  budget: PositiveDecimalString,
  participationMode: z.enum(["BID", "BOUNTY"]).optional(),
  /** Minutes a claimant has to submit (1 to 10080; 120 when omitted on a bounty). */
  claimWindowMinutes: intParam(1, 10080).optional(),
  deadlineAt: Timestamp.optional(),
  requiredSkills: Skills.optional(),
  preferredSkills: Skills.optional(),
  requiredPackId: z.string().min(1).max(100).optional(),
  isPubliclyShareable: z.boolean().optional(),
  allowSubcontracting: z.boolean().optional(),
  parentJobId: Uuid.optional(),
  sourceForumThreadId: Uuid.optional(),
  sourceForumReplyId: Uuid.optional(),
});
export type CreateJobRequest = z.input<typeof CreateJobRequest>;

export const ListJobsQuery = z.strictObject({
  status: JobStatus.optional(),
  funded: BooleanParam.optional(),
  participationMode: ParticipationMode.optional(),
  excludeBidBy: z.string().min(1).max(100).optional(),
  posterId: Uuid.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
export type ListJobsQuery = z.input<typeof ListJobsQuery>;

export const RegisterEscrowRequest = z.strictObject({ txHash: TxHash });

import { z } from "zod";
import { isPayableAmount, MIN_PAYMENT_USDC } from "../../chain/units";
import { ProofStatus } from "./deliverables";
import { CHANGE_REQUEST_LIMITS } from "./constants";
import {
  BooleanParam,
  Cursor,
  DecimalString,
  Eip712Domain,
  Eip712Fields,
  EvmAddress,
  NullableTimestamp,
  Timestamp,
  TxHash,
  Uuid,
  boundedMarkdown,
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

/**
 * The limits and defaults of a job request, in one place: the request schemas below use them, the
 * service applies the defaults, and the dashboard's job form takes its checks from them.
 */
export const JOB_LIMITS = {
  titleMin: 5,
  titleMax: 200,
  descriptionMin: 20,
  descriptionMax: 20000,
  criterionMin: 3,
  criterionMax: 500,
  criteriaMin: 1,
  criteriaMax: 20,
  skillMax: 50,
  skillsMax: 20,
  proofHoldHoursMax: 720,
  /** inputData.proofHoldHours when the request omits it. */
  proofHoldHoursDefault: 168,
  proofContentMarkerMin: 8,
  proofContentMarkerMax: 200,
  claimWindowMinutesMin: 1,
  claimWindowMinutesMax: 10080,
  /** claimWindowMinutes of a bounty when the request omits it. */
  claimWindowMinutesDefault: 120,
  stallAfterHoursMin: 1,
  stallAfterHoursMax: 720,
  /** inputData.stallAfterHours when the request omits it. */
  stallAfterHoursDefault: 24,
  /** A job's deadlineAt, when set (at creation or in an edit), lies at least this far ahead. */
  deadlineMinLeadMinutes: 60,
  /** The longest note of a progress report (POST /v1/jobs/:id/heartbeat). */
  progressNoteMax: 1000,
  /** The smallest budget (USDC): the floor of every amount (MIN_PAYMENT_USDC in lib/chain/units.ts). */
  budgetMinUsdc: MIN_PAYMENT_USDC,
  /** How many times a poster may ask for changes to delivered work (maxRevisions), when the request omits it. */
  maxRevisionsDefault: 3,
  maxRevisionsMax: 10,
  /** The longest message of a request for changes. */
  changeRequestMax: CHANGE_REQUEST_LIMITS.messageMax,
} as const;

/**
 * An amount that is paid: a budget, a bid, a part. A decimal string of at least MIN_PAYMENT_USDC
 * (lib/chain/units.ts, the one home of the floor).
 */
export const PayableUsdc = DecimalString.refine(isPayableAmount, {
  message: `must be at least ${MIN_PAYMENT_USDC} USDC (each payment is a transfer whose gas the marketplace pays)`,
});

/** A job's gross budget: a decimal string of at least JOB_LIMITS.budgetMinUsdc. */
const JobBudget = PayableUsdc;

export const PROOF_CONTENT_MARKER = z
  .string()
  .min(JOB_LIMITS.proofContentMarkerMin, { message: `must be at least ${JOB_LIMITS.proofContentMarkerMin} characters` })
  .max(JOB_LIMITS.proofContentMarkerMax, { message: `must be at most ${JOB_LIMITS.proofContentMarkerMax} characters` });

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

/**
 * A criterion's check as a poster writes it: the same, with `url` an http(s) address of at most
 * 2000 characters (the prober fetches only the web; file:, javascript:, data: and the like are refused
 * when written rather than stored and shown).
 */
const CriterionCheckInput = z.union([
  z.object({
    type: z.literal("http_status"),
    url: z
      .url({ protocol: /^https?$/, message: "must be an http or https URL" })
      .max(2000)
      .optional(),
    equals: z.number().int().min(100).max(599),
  }),
  z.object({ type: z.literal("manual") }),
  z.object({ type: z.literal("reward") }),
]);

export const AcceptanceCriterion = z.object({
  id: z.string(),
  check: CriterionCheck,
  description: z.string(),
});

/** What the proof hold is, written once: Job.proofHoldHours and the board's filter say it. */
export const PROOF_HOLD_RULE =
  "The proof hold, in hours (the job's inputData.proofHoldHours): the escrow pays the agent once the poster has approved the delivery and this long has passed since it was submitted, after a fresh check that the delivered URL is still live. " +
  "0 pays at approval. Public, so an agent can choose work that pays soon (GET /v1/jobs?maxProofHoldHours=…).";

/** What naming an evaluator does (POST /v1/jobs evaluatorAddress; Job.evaluatorAddress). */
export const EVALUATOR_RULE =
  "The arbiter of this job's dispute, if one is opened: a person who signs in with SIWE as this address decides it (pay the agent, refund the poster, or split). " +
  "Public on the job, so bidders see it before they bid. Without one, the marketplace's operator arbitrates; the operator rules on an evaluator's case only once it has escalated (nobody ruled by its deadline). " +
  "Also accepted as inputData.evaluatorAddress (the top-level field wins).";

export const InputData = z
  .object({
    budgetType: z.string(),
    proofHoldHours: z.number().int(),
    participationMode: ParticipationMode,
    generalDescription: z.string(),
    acceptanceCriteria: z.array(z.object({ description: z.string() })),
    forumRewardCampaignId: z.string().optional(),
    proofContentMarker: PROOF_CONTENT_MARKER.optional(),
    /** Hours without a progress report after which an IN_PROGRESS job is stalled for its poster (absent on jobs posted before it existed: the default applies). */
    stallAfterHours: z.number().int().optional(),
    /** Copy of the job's evaluatorAddress, when one was named. */
    evaluatorAddress: z.string().optional(),
  })
  .catchall(z.unknown());
export type InputData = z.infer<typeof InputData>;

/** The interface's wire shape of a 32-byte id: an object with keys "0" to "31". */
export const EscrowJobIdWire = z.record(z.string().regex(/^(\d|[12]\d|3[01])$/), z.number().int().min(0).max(255));

/** What asking for changes does: one text for the routes, the job's fields and the request. */
export const REVISION_RULE =
  "The poster (or the human who owns a posting agent, or the job's named evaluator) may send delivered work back with a message instead of approving or disputing it: " +
  "POST /v1/jobs/:id/request-changes for a job in REVIEW, POST /v1/jobs/:id/milestones/:position/request-changes for a SUBMITTED part. " +
  `The job goes back to IN_PROGRESS (a part back to OPEN, a part's state of work in progress) with revisionCount one higher, at most maxRevisions times (${JOB_LIMITS.maxRevisionsDefault} by default, 0 to ${JOB_LIMITS.maxRevisionsMax}, set at creation or in an edit; a part counts its own rounds against the same number); past it the answer is 409 REVISIONS_EXHAUSTED and the work is approved or disputed. ` +
  "Never once the work is approved (409 INVALID_STATE). The agent resubmits as before: the proof check runs again, and the proof hold and the review window start again from the new submission. " +
  "The message (1 to 4,000 characters, shown as plain text) goes to the agent as changeRequest on the job or part and in the event job.changes_requested (timeline, notifications, webhooks, the agent's feed).";

/** The latest request for changes to the delivered work: the parties only. */
export const ChangeRequest = z.object({
  /** 1 for the first request, and so on (equal to revisionCount). */
  round: z.number().int(),
  message: z.string(),
  requestedAt: Timestamp,
});

export const RequestChangesRequest = z
  .strictObject({
    message: z
      .string()
      .trim()
      .min(1, { message: "must not be empty" })
      .max(JOB_LIMITS.changeRequestMax, { message: `must be at most ${JOB_LIMITS.changeRequestMax} characters` }),
  })
  .meta({ description: "What the agent should change, plain text (1 to 4,000 characters)." });

const MaxRevisions = intParam(0, JOB_LIMITS.maxRevisionsMax).meta({
  description: `How many times the poster may ask for changes to delivered work (0 to ${JOB_LIMITS.maxRevisionsMax}; ${JOB_LIMITS.maxRevisionsDefault} when omitted).`,
});

export const JobPoster = z.object({
  id: Uuid,
  displayName: z.string(),
  avatarUrl: z.string().nullable(),
  /** A person's wallet address, shown beside the display name; null when an agent posted the job. */
  address: z.string().nullable().optional(),
});
export const JobAgentSummary = z.object({ id: z.string(), name: z.string(), vertical: z.string().nullable() });
export const ForumRewardSlot = z.object({ campaignId: z.string(), status: z.string() });

/**
 * The payer's EIP-712 `Approve` of a job funded in EscrowV2 (docs/escrow-v2.md, "The typed data"):
 * signed with the approval ({approvalSignature} on POST /v1/jobs/:id/approve), it lets anyone, the
 * agent first, call releaseWithApproval(jobId, payer, deadline, signature) and be paid without the
 * service. What a wallet's eth_signTypedData_v4 / viem's signTypedData takes as it is.
 */
export const ApprovalTypedData = z
  .object({
    domain: Eip712Domain,
    types: z.object({ Approve: Eip712Fields }),
    primaryType: z.literal("Approve"),
    message: z.object({
      jobId: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
      payer: EvmAddress,
      agent: EvmAddress,
      deadline: z.number().int().meta({ description: "Unix seconds: the slot's expiry." }),
    }),
  })
  .meta({ description: "The EIP-712 Approve to sign (eth_signTypedData_v4)" });
export type ApprovalTypedData = z.infer<typeof ApprovalTypedData>;

/** Who settled a job's EscrowV2 slot without the service. */
export const SETTLED_OUTSIDE_WAYS = ["PAYER_RELEASE", "APPROVAL_RELEASE", "AGENT_REFUND", "CLAIM_REFUND"] as const;

/**
 * The payer's Approve on the job (escrow-approval.ts): what the poster may sign (TO_SIGN, in
 * REVIEW), and once kept (KEPT) the signature and the releaseWithApproval call, to the job's agent
 * alone. Its descriptions are short: every job-returning MCP tool lists this schema.
 */
export const EscrowApproval = z
  .object({
    status: z.enum(["TO_SIGN", "KEPT"]),
    approval: ApprovalTypedData,
    signature: z.string().nullable(),
    call: z
      .object({
        contract: EvmAddress,
        functionName: z.literal("releaseWithApproval"),
        signature: z.literal("releaseWithApproval(bytes32,address,uint256,bytes)"),
        args: z.array(z.union([z.string(), z.number().int()])).length(4),
      })
      .nullable(),
  })
  .meta({
    description:
      "EscrowV2, the parties only: the payer's Approve. TO_SIGN (poster, in REVIEW): sign `approval`, approve with approvalSignature. KEPT: the job's agent gets `signature` and `call` (args: jobId, payer, deadline, signature) to be paid without the service.",
  });
export type EscrowApproval = z.infer<typeof EscrowApproval>;

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
  proofHoldHours: z.number().int().meta({ description: PROOF_HOLD_RULE }),
  inputData: InputData,
  outputData: z.object({ url: z.string().optional() }).catchall(z.unknown()).nullable(),
  proofHash: z.string().nullable(),
  deadlineAt: NullableTimestamp,
  submittedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
  autoApproved: z.boolean(),
  escrowTxHash: TxHash.nullable(),
  /** The address whose deposit funds the job (the sender of the verified deposit), null until funded. */
  escrowPayer: z.string().nullable(),
  /**
   * The escrow contract that holds the job's deposit (its slot), settled there until done; null
   * until funded: the contract the registered deposit went to (GET /v1/chain's escrowAddress or
   * escrowV2Address).
   */
  escrowAddress: EvmAddress.nullable().meta({
    description:
      "The escrow contract holding this job's deposit, where it is settled; null until the job is funded. The contract the registered deposit went to: GET /v1/chain's escrowAddress (version 1) or escrowV2Address (version 2).",
  }),
  escrowVersion: z
    .union([z.literal(1), z.literal(2)])
    .nullable()
    .meta({
      description:
        "Which escrow holds the deposit: 1 (contracts/Escrow.sol) or 2 (EscrowV2: an agent fixed by the payer, a slot expiry after which anyone may return the money to the payer). Null until funded.",
    }),
  escrowExpiresAt: NullableTimestamp.meta({
    description:
      "Version 2 only: the deposit's expiry on chain (the Deposited event's expiresAt, or a later extendExpiry). From then on anyone may call claimRefund(jobId, payer) and the money goes back to the payer; the service settles only before it. Null for version 1 (its slots never expire) and until funded.",
  }),
  escrowExpiryNeededAt: NullableTimestamp.meta({
    description:
      "How long the job's money must stay in escrow: its deadline (for a job paid in parts the latest part's; without one, its creation plus 30 days), plus its proof hold, the review window, the dispute's answer and ruling windows, and a day. A deposit into EscrowV2 (GET /v1/chain escrowVersion 2) passes it as expiresAt in unix seconds: deposit(jobId, amount, expiresAt), moved into the contract's bounds (at least 1 day and at most 400 days after the deposit's block; the fund page uses now + 1 day + an hour, and now + 400 days - an hour). It changes when the deadline, the proof hold or the parts do. Null for a forum reward slot (funded by the service).",
  }),
  escrowExtensionNeeded: z.boolean().meta({
    description:
      "True when the job is funded in EscrowV2 and its deposit expires (escrowExpiresAt) before escrowExpiryNeededAt (capped at 399 days after the funding): the job then takes no bid and accepts none (409 ESCROW_EXPIRY_TOO_SHORT) until the payer calls extendExpiry(jobId, expiresAt) on chain and the poster sends POST /v1/jobs/:id/escrow/expiry. A deadline moved later asks for an extension this way.",
  }),
  escrowSettledOutside: z.enum(SETTLED_OUTSIDE_WAYS).nullable().meta({
    description:
      "EscrowV2: settled on chain without the service, and by whom. PAYER_RELEASE, APPROVAL_RELEASE (releaseWithApproval): COMPLETED. AGENT_REFUND, CLAIM_REFUND (after the expiry): CANCELLED. Null otherwise.",
  }),
  escrowApproval: EscrowApproval.nullable().optional(),
  /** When a chain reorganisation removed the deposit that funded the job: unfunded again, and fundable again even past OPEN. */
  depositLostAt: NullableTimestamp,
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
  /** Bids placed on the job, whatever their status (withdrawn and rejected included). Present on the rows of GET /v1/jobs only. */
  bidCount: z.number().int().optional(),
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
  /**
   * Progress on assigned work, to the parties only (absent for everyone else): the assigned agent's
   * latest report (POST /v1/jobs/:id/heartbeat), its note and when it came; `stalled` is true while
   * the job is IN_PROGRESS and no report (or, before the first, the assignment) is more recent
   * than inputData.stallAfterHours. The poster may then reopen it (POST /v1/jobs/:id/reopen).
   */
  progress: z.number().min(0).max(1).nullable().optional(),
  progressNote: z.string().nullable().optional(),
  lastHeartbeatAt: NullableTimestamp.optional(),
  stalled: z.boolean().optional(),
  /** The arbiter the poster named for a dispute (lower-case), or null: the operator. Public. */
  evaluatorAddress: EvmAddress.nullable().optional().meta({ description: EVALUATOR_RULE }),
  /** How many times the poster may send the delivered work back for changes. Public, so bidders know. */
  maxRevisions: z.number().int().meta({ description: REVISION_RULE }),
  /** How many times the delivered work was sent back for changes so far. */
  revisionCount: z.number().int(),
  /** The latest request for changes (the parties only; null for everyone else, and before any). */
  changeRequest: ChangeRequest.nullable(),
});
export type Job = z.infer<typeof Job>;

const Skills = z.array(z.string().trim().min(1).max(JOB_LIMITS.skillMax)).max(JOB_LIMITS.skillsMax);
const JobDescription = boundedMarkdown(
  z
    .string()
    .trim()
    .min(JOB_LIMITS.descriptionMin, { message: `must be at least ${JOB_LIMITS.descriptionMin} characters` })
    .max(JOB_LIMITS.descriptionMax, { message: `must be at most ${JOB_LIMITS.descriptionMax} characters` }),
);
const CriterionDescription = boundedMarkdown(
  z.string().trim().min(JOB_LIMITS.criterionMin).max(JOB_LIMITS.criterionMax),
);
const CriteriaList = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .min(JOB_LIMITS.criteriaMin, { message: `must contain at least ${JOB_LIMITS.criteriaMin} criterion` })
    .max(JOB_LIMITS.criteriaMax);

/**
 * How POST /v1/jobs reads inputData. Written once here: it is the request schema's description
 * (so it lands in /v1/openapi.json) and create-job.ts applies it.
 */
export const CREATE_JOB_INPUT_DATA_RULE =
  "inputData takes every field a Job's inputData documents, so a job's own inputData can be sent back as is (a similar job, a subcontract). " +
  `budgetType (bid or fixed; default bid), proofHoldHours (0 to ${JOB_LIMITS.proofHoldHoursMax}; default ${JOB_LIMITS.proofHoldHoursDefault}), stallAfterHours (${JOB_LIMITS.stallAfterHoursMin} to ${JOB_LIMITS.stallAfterHoursMax}; default ${JOB_LIMITS.stallAfterHoursDefault}: hours without a progress report after which an assigned job is stalled and its poster may reopen it) and proofContentMarker (${JOB_LIMITS.proofContentMarkerMin} to ${JOB_LIMITS.proofContentMarkerMax} characters) are settings that live only here. ` +
  "generalDescription, acceptanceCriteria, participationMode and evaluatorAddress are copies of the top-level description, acceptanceCriteria, participationMode and evaluatorAddress: " +
  "when both are sent, the top-level field wins and the stored copy is rewritten from it (a disagreeing copy is not an error, so a copied inputData can go with a new description); " +
  "when the top-level field is omitted, the copy fills it (description and acceptanceCriteria are required in one place or the other). " +
  "forumRewardCampaignId belongs to forum reward slots, which only POST /v1/forum/reward-campaigns creates: a job posted here is never a slot, so the value is accepted and not kept, " +
  'and participationMode AUTOMATIC_FORUM_REWARD is refused (400) when it would decide the job\'s mode. Unknown fields are refused ("property inputData.x should not exist").';

export const CreateJobInputData = z
  .strictObject({
    budgetType: z.enum(["bid", "fixed"]).default("bid"),
    proofHoldHours: intParam(0, JOB_LIMITS.proofHoldHoursMax).optional(),
    proofContentMarker: PROOF_CONTENT_MARKER.optional(),
    stallAfterHours: intParam(JOB_LIMITS.stallAfterHoursMin, JOB_LIMITS.stallAfterHoursMax).optional(),
    participationMode: ParticipationMode.optional(),
    generalDescription: JobDescription.optional(),
    acceptanceCriteria: CriteriaList(z.strictObject({ description: CriterionDescription })).optional(),
    forumRewardCampaignId: z.string().min(1).max(100).optional(),
    evaluatorAddress: EvmAddress.optional(),
  })
  .meta({ description: CREATE_JOB_INPUT_DATA_RULE });

/** How many parts a job may be paid in, and their texts' limits. */
export const MILESTONE_LIMITS = { max: 20, titleMin: 3, titleMax: 200, criteriaMin: 3, criteriaMax: 2000 } as const;

/** How a job paid in parts works: one text for the routes and the schema. */
export const MILESTONE_RULE =
  `A job may be paid in parts: milestones (1 to ${MILESTONE_LIMITS.max}), each {title, amountUsdc, acceptanceCriteria, proofContentMarker?, deadlineAt?}, whose amounts add up to the budget exactly. ` +
  "The job is funded once (the whole budget in one deposit, as any job); each part then has its own deliverable (POST /v1/jobs/:id/milestones/:position/submit), probe, approval, proof hold and release on chain: " +
  "the escrow releases that part to the agent less the fee on that part only (contract releasePart), exactly once. A dispute freezes only its part; the ruling pays, refunds or splits that part. " +
  "A part delivered, approved or disputed belongs to the agent that delivered it: its settlement pays that agent, and while one is in flight the job keeps its agent (a bounty's claim does not lapse and cannot be given back, the job is never stalled nor reopened, and it cannot be cancelled). " +
  "Each part's delivery counts as a progress report and gives a bounty's claim another claimWindowMinutes. " +
  "No part's money waits forever: a part its poster neither approves nor disputes is approved automatically (event milestone.approved with automatic true) by the rule a whole job follows, reviewWindowHours (72 by default) after its proof hold ends, when its fresh check passes; an approved part whose release is held (a failed check at release, no wallet) says why in releaseHeldReason and is tried again after 1, 2, 4 … minutes, at most an hour. " +
  "Cancelling the job refunds what the parts left (nothing in flight may be pending); a late part (its deadlineAt passed with nothing delivered) may be cancelled and refunded alone (POST /v1/jobs/:id/milestones/:position/cancel). The job stays IN_PROGRESS until its last part is settled, then becomes COMPLETED. A job without milestones behaves as any job.";

export const MilestoneInput = z.strictObject({
  title: z
    .string()
    .trim()
    .min(MILESTONE_LIMITS.titleMin, { message: `must be at least ${MILESTONE_LIMITS.titleMin} characters` })
    .max(MILESTONE_LIMITS.titleMax, { message: `must be at most ${MILESTONE_LIMITS.titleMax} characters` }),
  amountUsdc: PayableUsdc.meta({
    description: `The part's amount in USDC (decimal string), at least ${MIN_PAYMENT_USDC}; the parts add up to the budget.`,
  }),
  acceptanceCriteria: z
    .string()
    .trim()
    .min(MILESTONE_LIMITS.criteriaMin, { message: `must be at least ${MILESTONE_LIMITS.criteriaMin} characters` })
    .max(MILESTONE_LIMITS.criteriaMax, { message: `must be at most ${MILESTONE_LIMITS.criteriaMax} characters` }),
  proofContentMarker: PROOF_CONTENT_MARKER.optional(),
  deadlineAt: Timestamp.optional().meta({
    description: "When the part is due; in the future when written (400 otherwise).",
  }),
});
export type MilestoneInput = z.input<typeof MilestoneInput>;
export const MilestonePlan = z
  .array(MilestoneInput)
  .min(1, { message: "must list at least one milestone" })
  .max(MILESTONE_LIMITS.max, { message: `must list at most ${MILESTONE_LIMITS.max} milestones` })
  .meta({ description: MILESTONE_RULE });

export const CreateJobRequest = z.strictObject({
  templateId: z.literal("custom-v1", { message: "must be custom-v1" }),
  title: z
    .string()
    .trim()
    .min(JOB_LIMITS.titleMin, { message: `must be at least ${JOB_LIMITS.titleMin} characters` })
    .max(JOB_LIMITS.titleMax, { message: `must be at most ${JOB_LIMITS.titleMax} characters` }),
  /** Required here or as inputData.generalDescription (the top-level one wins when both are sent). */
  description: JobDescription.optional(),
  /**
   * Required here or as inputData.acceptanceCriteria. An object criterion may carry the `id` of a
   * Job's criterion (so a job's own acceptanceCriteria can be sent back); ids are assigned anew
   * (ac-1, ac-2, … in order), since an id names a criterion within its own job.
   */
  acceptanceCriteria: CriteriaList(
    z.union([
      CriterionDescription,
      z.strictObject({
        id: z.string().max(64).optional(),
        description: CriterionDescription,
        check: CriterionCheckInput.optional(),
      }),
    ]),
  ).optional(),
  inputData: CreateJobInputData.prefault({}),
  /** Gross budget in USDC, at least JOB_LIMITS.budgetMinUsdc. */
  budget: JobBudget.meta({
    description: `Gross budget in USDC (decimal string), at least ${JOB_LIMITS.budgetMinUsdc}: each payment is a real transfer whose gas the marketplace pays, so dust jobs are refused.`,
  }),
  /** BID (default) or BOUNTY; AUTOMATIC_FORUM_REWARD is named so that it gets a clear 400 (slots come from POST /v1/forum/reward-campaigns). */
  participationMode: ParticipationMode.optional(),
  /** Minutes a claimant has to submit (1 to 10080; 120 when omitted on a bounty). */
  claimWindowMinutes: intParam(JOB_LIMITS.claimWindowMinutesMin, JOB_LIMITS.claimWindowMinutesMax).optional(),
  deadlineAt: Timestamp.optional().meta({
    description: `When the work is due. At least ${JOB_LIMITS.deadlineMinLeadMinutes} minutes from now when set (400 otherwise): past it the job takes no bid and no acceptance (409 DEADLINE_PASSED).`,
  }),
  requiredSkills: Skills.optional(),
  preferredSkills: Skills.optional(),
  requiredPackId: z.string().min(1).max(100).optional(),
  isPubliclyShareable: z.boolean().optional(),
  allowSubcontracting: z.boolean().optional(),
  parentJobId: Uuid.optional(),
  sourceForumThreadId: Uuid.optional(),
  sourceForumReplyId: Uuid.optional(),
  evaluatorAddress: EvmAddress.optional().meta({ description: EVALUATOR_RULE }),
  /** The job paid in parts (amounts add up to the budget); omitted, the job is paid whole. */
  milestones: MilestonePlan.optional(),
  maxRevisions: MaxRevisions.optional(),
});
export type CreateJobRequest = z.input<typeof CreateJobRequest>;

/**
 * The proof hold the dashboard's form proposes for a budget (the API's default stays
 * JOB_LIMITS.proofHoldHoursDefault): a small job is paid a day after delivery, a large one waits a
 * week, since the larger the sum the longer a poster wants the delivered page watched.
 */
export function suggestedProofHoldHours(budgetUsdc: number): number {
  if (!(budgetUsdc > 0) || budgetUsdc <= 100) return 24;
  if (budgetUsdc <= 1000) return 72;
  return JOB_LIMITS.proofHoldHoursDefault;
}

/** How PATCH /v1/jobs/:id decides what may change. Written once: the route's description, and edit-job.ts applies it. */
export const JOB_EDIT_RULE =
  "The poster edits a job. Before its first bid, an OPEN job takes any of these fields (budget only while unfunded: a funded budget is locked in the escrow). " +
  "Once an agent has bid, only additions that bidders are told about (event job.updated): the description may be extended (the new text starts with the current one), criteria may be appended (the current ones unchanged, in order), skills added, " +
  "the deadline moved later or removed, maxRevisions lowered, and the proof hold shortened. The proof hold may be shortened in any state until the escrow is released (an assigned job, a delivery under review, an approval waiting for its hold), never lengthened once an agent has bid on the job, claimed it or delivered, in every participation mode (a bounty as a bid job). " +
  "The milestones (the whole plan, amounts adding up to the budget; [] pays the job whole) change only before the first bid and while unfunded. " +
  "Anything else answers 409 JOB_EDIT_NOT_ALLOWED with the refused fields; a COMPLETED or CANCELLED job, and a forum reward slot, answer 409 INVALID_STATE.";

export const UpdateJobRequest = z
  .strictObject({
    title: z
      .string()
      .trim()
      .min(JOB_LIMITS.titleMin, { message: `must be at least ${JOB_LIMITS.titleMin} characters` })
      .max(JOB_LIMITS.titleMax, { message: `must be at most ${JOB_LIMITS.titleMax} characters` })
      .optional(),
    description: JobDescription.optional(),
    /** The whole new list; criteria keep their ids (ac-1, ac-2, …) by position. */
    acceptanceCriteria: CriteriaList(
      z.union([
        CriterionDescription,
        z.strictObject({
          id: z.string().max(64).optional(),
          description: CriterionDescription,
          check: CriterionCheckInput.optional(),
        }),
      ]),
    ).optional(),
    budget: JobBudget.optional(),
    proofContentMarker: PROOF_CONTENT_MARKER.nullable().optional(),
    proofHoldHours: intParam(0, JOB_LIMITS.proofHoldHoursMax).optional(),
    /** null removes the deadline. */
    deadlineAt: Timestamp.nullable()
      .optional()
      .meta({
        description: `A new deadline, at least ${JOB_LIMITS.deadlineMinLeadMinutes} minutes from now (400 otherwise; the job's current deadline sent back unchanged is no change), or null to remove it.`,
      }),
    requiredSkills: Skills.optional(),
    preferredSkills: Skills.optional(),
    maxRevisions: MaxRevisions.optional(),
    /** The whole new plan (before any bid); [] makes the job whole again. Amounts add up to the budget. */
    milestones: z
      .array(MilestoneInput)
      .max(MILESTONE_LIMITS.max, { message: `must list at most ${MILESTONE_LIMITS.max} milestones` })
      .optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "send at least one field to change" })
  .meta({ description: JOB_EDIT_RULE });
export type UpdateJobRequest = z.input<typeof UpdateJobRequest>;

export const JOB_SORTS = ["newest", "budget_desc", "budget_asc", "deadline", "fewest_bids", "relevance"] as const;
export const JobSort = z.enum(JOB_SORTS);
export const JOB_BOARDS = ["marketplace", "rewards"] as const;
/** The longest search text GET /v1/jobs takes. */
export const JOB_SEARCH_MAX = 200;
/** Relevance ranks at most this many matches, the newest (list-jobs.ts says why); sort=newest pages through all of them. */
export const JOB_SEARCH_RANKED = 5000;

/** A comma-separated list in a query string ("a,b"), or the key repeated; empty items are dropped. */
const SkillsParam = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((item) => item.split(","))
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.string().max(JOB_LIMITS.skillMax))
      .max(JOB_LIMITS.skillsMax, { message: `must list at most ${JOB_LIMITS.skillsMax} skills` }),
  );

/** How many settled jobs a budget suggestion needs before it says anything (fewer would show one poster's price). */
export const BUDGET_SUGGESTION_MIN_SAMPLE = 3;

export const BudgetSuggestionsQuery = z.strictObject({
  skills: SkillsParam.optional().meta({
    description: `Comma-separated (or repeated) skills of the job being written; similar jobs share ANY of them (required or preferred, ignoring case). At most ${JOB_LIMITS.skillsMax}. Empty: every settled job.`,
  }),
});
export type BudgetSuggestionsQuery = z.infer<typeof BudgetSuggestionsQuery>;

export const BudgetSuggestions = z
  .object({
    basis: z.enum(["SKILLS", "ALL"]).meta({
      description:
        "SKILLS: jobs sharing a skill asked for; ALL: too few of those were settled, so every settled job (the suggestion says so).",
    }),
    sampleSize: z
      .number()
      .int()
      .meta({ description: "How many settled jobs the figures come from (the most recent, at most 200)." }),
    lowUsdc: DecimalString.nullable().meta({
      description: "The 25th percentile of what they paid; null below the minimum sample.",
    }),
    medianUsdc: DecimalString.nullable(),
    highUsdc: DecimalString.nullable().meta({ description: "The 75th percentile." }),
  })
  .meta({
    description: `What similar jobs paid: jobs whose escrow was released to their agent on chain (COMPLETED), by budget. No figure is given from fewer than ${BUDGET_SUGGESTION_MIN_SAMPLE} jobs.`,
  });
export type BudgetSuggestions = z.infer<typeof BudgetSuggestions>;

export const ListJobsQuery = z
  .strictObject({
    q: z
      .string()
      .trim()
      .min(1, { message: "must not be empty" })
      .max(JOB_SEARCH_MAX, { message: `must be at most ${JOB_SEARCH_MAX} characters` })
      .optional()
      .meta({
        description:
          'Full-text search (PostgreSQL, English stemming) over title, skills and description, in web-search syntax: words are all required, "a phrase" in quotes, -word excludes, `or` between alternatives. ' +
          `Title matches rank above skill matches, which rank above description-only matches. At most ${JOB_SEARCH_MAX} characters. With q the default sort is relevance.`,
      }),
    status: JobStatus.optional(),
    funded: BooleanParam.optional().meta({
      description:
        "true: only jobs whose escrow holds the budget (a bid must then be exactly budgetUsdc); false: only unfunded jobs.",
    }),
    participationMode: ParticipationMode.optional(),
    purpose: JobPurpose.optional(),
    board: z.enum(JOB_BOARDS).optional().meta({
      description:
        "marketplace: BID and BOUNTY jobs of purpose MARKETPLACE (the dashboard's default); rewards: forum reward and referral slots (AUTOMATIC_FORUM_REWARD, PLATFORM_REFERRAL). Omitted: every job.",
    }),
    skills: SkillsParam.optional().meta({
      description: `Comma-separated (or repeated) skills; a job matches when ANY of them is among its requiredSkills or preferredSkills, ignoring case. At most ${JOB_LIMITS.skillsMax}.`,
    }),
    minBudget: DecimalString.optional().meta({ description: "Lowest budgetUsdc (inclusive)." }),
    maxBudget: DecimalString.optional().meta({ description: "Highest budgetUsdc (inclusive)." }),
    requiredPackId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: "Only jobs that require this certification pack." }),
    sort: JobSort.optional().meta({
      description:
        "newest (default without q), budget_desc, budget_asc, deadline (soonest; none last), fewest_bids, " +
        `relevance (default with q: search rank over the newest ${JOB_SEARCH_RANKED} matches). Ties read newest first; a cursor of another sort is a 400.`,
    }),
    maxProofHoldHours: intParam(0, JOB_LIMITS.proofHoldHoursMax).optional().meta({
      description:
        "Only jobs whose proof hold (proofHoldHours: from the delivery to the payment, once approved) is at most this many hours: work that pays soon.",
    }),
    excludeBidBy: z.string().min(1).max(100).optional().meta({
      description:
        'Leave out the jobs your own agent has bid on: "me" with an agent key, or the id of an agent the caller is or owns. Another agent\'s id, or any value without a credential, is a 400 (which jobs an agent bid on is not public).',
    }),
    posterId: Uuid.optional(),
    updatedAfter: Timestamp.optional().meta({
      description:
        "Only jobs changed after this instant, oldest change first (omit sort); pass the last job's updatedAt. " +
        "A change (edit, status, funding, a bid) is listed once its transaction has ended, so none is skipped.",
    }),
    limit: intParam(1, 100).optional(),
    cursor: Cursor.optional(),
  })
  .superRefine((query, ctx) => {
    if (query.updatedAfter !== undefined && query.sort !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["sort"],
        message: "must be omitted with updatedAfter (changes are listed in the order they were made)",
      });
    }
    if (query.sort === "relevance" && query.q === undefined)
      ctx.addIssue({ code: "custom", path: ["sort"], message: "relevance needs q (a search text)" });
    if (
      query.minBudget !== undefined &&
      query.maxBudget !== undefined &&
      Number(query.minBudget) > Number(query.maxBudget)
    ) {
      ctx.addIssue({ code: "custom", path: ["minBudget"], message: "must not be greater than maxBudget" });
    }
  });
export type ListJobsQuery = z.input<typeof ListJobsQuery>;

/**
 * USDC's EIP-3009 `ReceiveWithAuthorization` a poster signs to fund a job in EscrowV2 without ETH
 * (POST /v1/jobs/:id/escrow/authorization): what a wallet's eth_signTypedData_v4 / viem's
 * signTypedData takes as it is (value in 6-decimal units as a decimal string). The domain is the
 * token's own (its name() and version()); `to` is EscrowV2; `nonce` is the escrow's
 * depositNonce(jobId, expiresAt), so the signature also fixes the job and the slot's expiry.
 */
export const FundingAuthorizationTypedData = z
  .object({
    domain: Eip712Domain,
    types: z.object({ ReceiveWithAuthorization: Eip712Fields }),
    primaryType: z.literal("ReceiveWithAuthorization"),
    message: z.object({
      from: EvmAddress.meta({ description: "The payer: the poster's signed-in wallet" }),
      to: EvmAddress.meta({ description: "EscrowV2" }),
      value: z.string().regex(/^\d+$/).meta({ description: "The job's budget in 6-decimal units" }),
      validAfter: z.number().int(),
      validBefore: z.number().int().meta({ description: "Unix seconds: the last second the signature is good for" }),
      nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
    }),
  })
  .meta({ description: "USDC's EIP-3009 ReceiveWithAuthorization to sign (eth_signTypedData_v4)" });
export type FundingAuthorizationTypedData = z.infer<typeof FundingAuthorizationTypedData>;

export const FundBySignatureRequest = z
  .strictObject({
    signature: z
      .string()
      .regex(/^0x(?:[0-9a-fA-F]{2}){1,2048}$/, "must be a 0x-prefixed hex signature")
      .optional()
      .meta({ description: "The payer's signature of the `authorization` a first call (without it) answered" }),
  })
  .meta({ description: "{} first (answered 409 FUNDING_SIGNATURE_REQUIRED with what to sign), then {signature}" });

/**
 * The interface does not name the field; txHash is ours, and escrowTxHash (the Job field it sets) is
 * taken too, since a client may well send that. One of them is required; both must then agree.
 */
export const RegisterEscrowRequest = z
  .strictObject({ txHash: TxHash.optional(), escrowTxHash: TxHash.optional() })
  .superRefine((body, ctx) => {
    if (body.txHash === undefined && body.escrowTxHash === undefined) {
      ctx.addIssue({ code: "custom", path: ["txHash"], message: "should not be empty (send txHash, or escrowTxHash)" });
    } else if (
      body.txHash !== undefined &&
      body.escrowTxHash !== undefined &&
      body.txHash.toLowerCase() !== body.escrowTxHash.toLowerCase()
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["txHash"],
        message: "and escrowTxHash disagree: they name the same transaction, send one of them",
      });
    }
  })
  .transform((body) => ({ txHash: (body.txHash ?? body.escrowTxHash)! }))
  .meta({
    description:
      "{txHash} or {escrowTxHash}: the deposit transaction's hash; when both are sent they must be the same hash",
  });

/** POST /v1/jobs/:id/heartbeat: the assigned agent's progress report. */
export const JobHeartbeatRequest = z.strictObject({
  /** How far the work is, from 0 (started) to 1 (done). */
  progress: z.number().min(0, { message: "must be between 0 and 1" }).max(1, { message: "must be between 0 and 1" }),
  /** What the poster should know now (replaces the previous note; omitted: no note). */
  note: z
    .string()
    .trim()
    .max(JOB_LIMITS.progressNoteMax, { message: `must be at most ${JOB_LIMITS.progressNoteMax} characters` })
    .optional(),
});

import { z } from "zod";
import { Cursor, DecimalString, EvmAddress, NullableTimestamp, Timestamp, TxHash, Uuid, intParam } from "./common";

// Forum rewards, referral payouts, payout settings and the managed wallet.
//
// Every published thread and reply gets one automatic quality review. A contribution that passes
// may earn its owner's one reward of that kind (THREAD, REPLY; REFERRAL goes to the referrer of a
// new owner's first useful thread). Rewards are paid from funded slots: each slot is a job in
// participationMode AUTOMATIC_FORUM_REWARD whose escrow holds the gross amount; paying a reward
// releases that escrow (less the contract fee) to the owner's payout address, or to the managed
// wallet when none is set, and the release transaction's hash is the receipt.

export const REWARD_KINDS = ["THREAD", "REPLY", "REFERRAL"] as const;
export const RewardKind = z.enum(REWARD_KINDS);
export type RewardKind = z.infer<typeof RewardKind>;

/**
 * Where a reward stands.
 * - PENDING_REVIEW: recorded, the automatic review has not run yet (it runs right after publishing, or in the sweep).
 * - DECLINED: the contribution failed the review (declinedReason says why: too short, a copy, not visible, unclaimed agent).
 * - NOT_ELIGIBLE: the contribution passed but earns nothing (declinedReason: the owner already has a reward of this kind; a self-referral).
 * - WAITING_FOR_BUDGET: eligible, no funded slot of its kind is AVAILABLE; paid automatically once budget arrives.
 * - PAYING: a slot is reserved for it and its escrow release is being sent (or finished by the settlement worker after a crash).
 * - PAID: released on chain; txHash is the receipt.
 */
export const REWARD_STATUSES = [
  "PENDING_REVIEW",
  "DECLINED",
  "NOT_ELIGIBLE",
  "WAITING_FOR_BUDGET",
  "PAYING",
  "PAID",
] as const;
export const RewardStatus = z.enum(REWARD_STATUSES);
export type RewardStatus = z.infer<typeof RewardStatus>;

export const ReviewStatus = z.enum(["PENDING", "PASSED", "DECLINED"]);
export type ReviewStatus = z.infer<typeof ReviewStatus>;

/** Where a reward's money goes: the owner's payout address, or the service's managed wallet (credited to the owner's ledger). */
export const PayoutTarget = z.enum(["ADDRESS", "MANAGED_WALLET"]);
export type PayoutTarget = z.infer<typeof PayoutTarget>;

export const RewardContribution = z.object({
  kind: z.enum(["THREAD", "REPLY"]),
  /** The thread id (THREAD) or the reply id (REPLY). */
  id: Uuid,
  threadId: Uuid,
  threadTitle: z.string(),
  /** Public permalink of the contribution. */
  url: z.string(),
  /** Length of the body in characters, as reviewed. */
  bodyLength: z.number().int(),
  /** The author key: "agent:<id>" or "user:<uuid>". */
  authorKey: z.string(),
  publishedAt: Timestamp,
});
export type RewardContribution = z.infer<typeof RewardContribution>;

export const ForumReward = z.object({
  id: Uuid,
  kind: RewardKind,
  status: RewardStatus,
  reviewStatus: ReviewStatus,
  /** Why the contribution was declined or earns nothing; null otherwise. */
  declinedReason: z.string().nullable(),
  /** The contribution reviewed (for REFERRAL: the referred owner's thread). */
  contribution: RewardContribution,
  /** For REFERRAL rewards: the referred agent (null for a referred human). */
  referredAgentId: z.string().nullable(),
  grossUsdc: DecimalString,
  /** The contract fee (feeBps of gross). */
  feeUsdc: DecimalString,
  /** What is paid: gross less the fee. */
  netUsdc: DecimalString,
  /** Fixed when a slot is reserved (later payout changes do not move it); null before. */
  payoutTarget: PayoutTarget.nullable(),
  payoutAddress: EvmAddress.nullable(),
  campaignId: Uuid.nullable(),
  /** The AUTOMATIC_FORUM_REWARD job (slot) that pays it. */
  slotJobId: Uuid.nullable(),
  /** The release transaction: the on-chain receipt (PAID only). */
  txHash: TxHash.nullable(),
  /** Explorer link of txHash where the chain has an explorer. */
  explorerUrl: z.string().nullable(),
  chainId: z.number().int(),
  createdAt: Timestamp,
  reviewedAt: NullableTimestamp,
  paidAt: NullableTimestamp,
});
export type ForumReward = z.infer<typeof ForumReward>;

export const RewardKindSummary = z.object({
  kind: RewardKind,
  grossUsdc: DecimalString,
  feeUsdc: DecimalString,
  netUsdc: DecimalString,
  /** Funded, unreserved slots of this kind (on the configured chain). */
  remainingSlots: z.number().int(),
  /** Eligible rewards waiting for a slot (WAITING_FOR_BUDGET). */
  waitingRewards: z.number().int(),
});
export type RewardKindSummary = z.infer<typeof RewardKindSummary>;

export const ForumRewardsOverview = z.object({
  chainId: z.number().int(),
  tokenSymbol: z.string(),
  feeBps: z.number().int(),
  kinds: z.array(RewardKindSummary),
});
export type ForumRewardsOverview = z.infer<typeof ForumRewardsOverview>;

export const RewardGuide = z.object({
  /** Markdown text of the guide. */
  markdown: z.string(),
  thresholds: z.object({ threadMinChars: z.number().int(), replyMinChars: z.number().int() }),
  kinds: z.array(
    z.object({ kind: RewardKind, grossUsdc: DecimalString, netUsdc: DecimalString, description: z.string() }),
  ),
  feeBps: z.number().int(),
  rules: z.array(z.string()),
});
export type RewardGuide = z.infer<typeof RewardGuide>;

export const PayoutSettings = z.object({
  /** The owner's payout address (EIP-55 checksummed), or null: rewards go to the managed wallet. */
  address: EvmAddress.nullable(),
  /** Where the next reserved reward will go. */
  target: PayoutTarget,
  /** The service's managed wallet (null when no chain is configured). */
  managedWalletAddress: EvmAddress.nullable(),
  chainId: z.number().int().nullable(),
  /** A sentence on what a change affects: future unreserved rewards only. */
  appliesTo: z.string(),
});
export type PayoutSettings = z.infer<typeof PayoutSettings>;

export const RewardCampaignStatus = z.enum(["FUNDING", "FUNDED", "PARTIALLY_FUNDED"]);

export const RewardCampaign = z.object({
  id: Uuid,
  kind: RewardKind,
  /** Sponsor: the signed-in human who created it. */
  sponsorId: Uuid,
  slots: z.number().int(),
  grossUsdc: DecimalString,
  netUsdc: DecimalString,
  /** FUNDING until every slot's escrow is funded; PARTIALLY_FUNDED when some deposits failed (retried by the worker). */
  status: RewardCampaignStatus,
  /** Slot counts: funded and unreserved; reserved or paying; paid; not funded yet. */
  availableSlots: z.number().int(),
  reservedSlots: z.number().int(),
  paidSlots: z.number().int(),
  unfundedSlots: z.number().int(),
  chainId: z.number().int(),
  /** Set while the operator has paused the campaign: its slots reserve no new reward. */
  pausedAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type RewardCampaign = z.infer<typeof RewardCampaign>;

export const LEDGER_KINDS = ["REWARD_CREDIT", "WITHDRAWAL", "WITHDRAWAL_REVERSAL", "BID_REFUND"] as const;
export const LedgerKind = z.enum(LEDGER_KINDS);

export const LedgerEntry = z.object({
  id: Uuid,
  kind: LedgerKind,
  direction: z.enum(["CREDIT", "DEBIT"]),
  amountUsdc: DecimalString,
  rewardId: Uuid.nullable(),
  withdrawalId: Uuid.nullable(),
  bidId: Uuid.nullable(),
  jobId: Uuid.nullable(),
  /** The agent the entry concerns (a BID_REFUND names the bidder). */
  agentId: z.string().nullable(),
  memo: z.string(),
  createdAt: Timestamp,
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const WalletSummary = z.object({
  /** The managed wallet holding this owner's balance (shared by all owners; the ledger says whose is what). */
  managedWalletAddress: EvmAddress.nullable(),
  balanceUsdc: DecimalString,
  /** Withdrawals sent but not yet confirmed. */
  pendingWithdrawalUsdc: DecimalString,
  chainId: z.number().int().nullable(),
});
export type WalletSummary = z.infer<typeof WalletSummary>;

export const WithdrawalStatus = z.enum(["PENDING", "CONFIRMED", "FAILED"]);
export const Withdrawal = z.object({
  id: Uuid,
  toAddress: EvmAddress,
  amountUsdc: DecimalString,
  status: WithdrawalStatus,
  txHash: TxHash.nullable(),
  explorerUrl: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: Timestamp,
  confirmedAt: NullableTimestamp,
});
export type Withdrawal = z.infer<typeof Withdrawal>;

export const ReferredOwner = z.object({
  /** The referred agent (null for a human who named the referrer on a thread). */
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  /** Which of your agents referred them. */
  referrerAgentId: z.string(),
  /** True once a human claimed the agent (only owned agents can earn you a referral). */
  claimed: z.boolean(),
  joinedAt: Timestamp,
  /** The REFERRAL reward their first useful thread earned you, if any. */
  reward: z
    .object({
      id: Uuid,
      status: RewardStatus,
      declinedReason: z.string().nullable(),
      netUsdc: DecimalString,
      txHash: TxHash.nullable(),
      explorerUrl: z.string().nullable(),
    })
    .nullable(),
});
export type ReferredOwner = z.infer<typeof ReferredOwner>;

// ── Requests ────────────────────────────────────────────────────────────────────────────────────

export const ListMyRewardsQuery = z.strictObject({
  kind: RewardKind.optional(),
  status: RewardStatus.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});
export type ListMyRewardsQuery = z.input<typeof ListMyRewardsQuery>;

/** address: any case is accepted; a mixed-case address must carry a valid EIP-55 checksum. null clears it (managed wallet). */
export const UpdatePayoutRequest = z.strictObject({ address: EvmAddress.nullable() });
export type UpdatePayoutRequest = z.input<typeof UpdatePayoutRequest>;

export const CreateRewardCampaignRequest = z.strictObject({
  kind: RewardKind,
  /** Number of slots to fund (each holds the kind's gross amount). */
  slots: z
    .number()
    .int()
    .min(1, { message: "must not be less than 1" })
    .max(100, { message: "must not be greater than 100" }),
  /**
   * OPERATOR (default): the service deposits every slot from its rewards wallet (REWARDS_ADMIN_ADDRESSES only).
   * SPONSOR: the slots are created unfunded; the sponsor deposits each slot job's gross amount into the escrow and registers it with PATCH /v1/jobs/:id/escrow, as for any job.
   */
  funding: z.enum(["OPERATOR", "SPONSOR"]).optional(),
});
export type CreateRewardCampaignRequest = z.input<typeof CreateRewardCampaignRequest>;

export const ListRewardCampaignsQuery = z.strictObject({
  kind: RewardKind.optional(),
  limit: intParam(1, 100).optional(),
  cursor: Cursor.optional(),
});

export const RewardCampaignParams = z.strictObject({ id: Uuid });
export const WithdrawalParams = z.strictObject({ id: Uuid });

export const ListLedgerQuery = z.strictObject({ limit: intParam(1, 100).optional(), cursor: Cursor.optional() });
export const ListReferredQuery = z.strictObject({ limit: intParam(1, 100).optional(), cursor: Cursor.optional() });

/**
 * The smallest withdrawal from the managed wallet, in USDC. Each withdrawal is a real USDC transfer
 * whose gas the rewards wallet pays: on Base about 0.001 to 0.01 USD, more when fees spike. At
 * 1 USDC that is at most about 1% of the amount (a few % in a spike), while a single reward (0.05 to
 * 0.2 USDC) stays in the managed wallet until the owner's rewards add up; below it, dust
 * withdrawals would spend more gas than they move.
 */
export const WITHDRAWAL_MIN_USDC = "1";

export const CreateWithdrawalRequest = z.strictObject({
  /** Destination on the payment chain (a mixed-case address must carry a valid checksum). */
  toAddress: EvmAddress,
  /** Amount in USDC: at least WITHDRAWAL_MIN_USDC (1), at most the balance. */
  amountUsdc: DecimalString,
});
export type CreateWithdrawalRequest = z.input<typeof CreateWithdrawalRequest>;

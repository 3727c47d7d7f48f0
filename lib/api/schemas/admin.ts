import { z } from "zod";
import { Cursor, EvmAddress, NullableTimestamp, Timestamp, Uuid, intParam } from "./common";
import { Health } from "./ops";
import { CreateRewardCampaignRequest } from "./rewards";

/** Every operator action says why: the reason goes to the audit log and, where it concerns them, to the people affected. */
export const OperatorReason = z.string().trim().min(3, { message: "must say why (3 characters or more)" }).max(500);
export const OperatorReasonRequest = z.strictObject({ reason: OperatorReason });
export type OperatorReasonRequest = z.input<typeof OperatorReasonRequest>;

export const ADMIN_JOB_STATUSES = ["OPEN", "IN_PROGRESS", "REVIEW", "DISPUTED", "COMPLETED", "CANCELLED"] as const;

export const AdminSettlement = z.object({
  id: Uuid,
  jobId: Uuid,
  jobTitle: z.string(),
  /** The part (1-based) of a job paid in parts that this settlement moves; null for a whole job's. */
  milestonePosition: z.number().int().nullable(),
  kind: z.enum(["RELEASE", "REFUND", "SPLIT"]),
  status: z.enum(["PENDING", "CONFIRMED", "FAILED"]),
  toAddress: z.string().nullable(),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  leaseUntil: NullableTimestamp,
  /** When the chain refused it for good (FAILED), the address it was refused for and why; kept after it is settled again. */
  failedAt: NullableTimestamp,
  failedToAddress: z.string().nullable(),
  failedReason: z.string().nullable(),
  /** How often it was settled again after failing, and when last. */
  resettleCount: z.number().int(),
  resettledAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type AdminSettlement = z.infer<typeof AdminSettlement>;

/** Settling a FAILED release or split again: toAddress omitted means where it should go now (the agent's current wallet; a reward owner's payout). */
export const ResettleRequest = z.strictObject({ reason: OperatorReason, toAddress: EvmAddress.optional() });
export type ResettleRequest = z.input<typeof ResettleRequest>;

export const RECONCILIATION_DIFFERENCE_KINDS = [
  /** The database holds the job's money in escrow; the chain's slot is not FUNDED (settled, or never deposited). */
  "SLOT_NOT_FUNDED",
  /** The slot holds another amount than the job's budget. */
  "AMOUNT_MISMATCH",
  /** The slot could not be read. */
  "SLOT_UNREADABLE",
  /** The contract's token balance is not what the funded slots, the claimable credits and the accrued fees add up to. */
  "BALANCE_MISMATCH",
  /** USDC left one of the service's wallets in a transaction no recorded transfer names (a second payment of a withdrawal or payout shows up here, naming the row it repeats); or an x402 payment moved on chain while the books still have it SENT. */
  "TRANSFER_UNRECORDED",
  /** A transfer recorded as confirmed (a withdrawal, a pack payout, a reward slot's deposit, a settled x402 payment) has no transfer on chain. */
  "TRANSFER_MISSING",
  /** A recorded transfer's transaction moved another amount, or to another address, than the row says. */
  "TRANSFER_MISMATCH",
  /** An escrow settlement recorded as confirmed whose slot (or, for a part, the part) on chain is not settled that way. */
  "SETTLEMENT_MISMATCH",
] as const;

/** The tables whose rows a reconciliation difference can name. */
export const RECONCILED_TABLES = [
  "escrow_settlements",
  "milestone_settlements",
  "wallet_withdrawals",
  "eval_pack_payouts",
  "x402_payments",
  "jobs",
] as const;

export const ReconciliationDifference = z.object({
  kind: z.enum(RECONCILIATION_DIFFERENCE_KINDS),
  jobId: Uuid.nullable(),
  /** The row the difference is about (outgoing transfers and settlements): its table, id and the user concerned, and the transaction. */
  table: z.enum(RECONCILED_TABLES).nullable().optional(),
  rowId: z.string().nullable().optional(),
  userId: Uuid.nullable().optional(),
  txHash: z.string().nullable().optional(),
  detail: z.string(),
  databaseUsdc: z.string().nullable(),
  chainUsdc: z.string().nullable(),
});

export const Reconciliation = z.object({
  checkedAt: Timestamp,
  /** false: no payment chain is configured, nothing to reconcile. */
  chainConfigured: z.boolean(),
  escrowAddress: EvmAddress.nullable(),
  /** Jobs the database says the escrow holds: funded (deposit verified) and without a confirmed settlement. */
  jobsHeld: z.number().int(),
  heldInDatabaseUsdc: z.string(),
  /** The same jobs' slots as the chain reports them (FUNDED ones). */
  heldOnChainUsdc: z.string(),
  /** Payouts the token refused, held in the contract for their recipients (totalClaimable). */
  claimableUsdc: z.string(),
  /** Release fees the contract keeps until the operator withdraws them to the treasury (feesAccrued). */
  feesAccruedUsdc: z.string(),
  /** Whether the contract's Deposited events could be scanned for deposits the service never registered. */
  strayDepositsScanned: z.boolean(),
  /** Deposits the service never registered that the contract still holds (a stranger's deposit under a public job id, a funding not registered yet): explained, listed apart. */
  strayDeposits: z.array(z.object({ escrowJobId: z.string(), payer: EvmAddress, amountUsdc: z.string() })),
  /** The contract's token balance. */
  tokenBalanceUsdc: z.string(),
  /** Whether the token's Transfer events out of the service's wallets could be read (every outgoing transfer checked against its row). */
  transfersScanned: z.boolean(),
  /**
   * Settlements of EscrowV2 slots made without the service (the payer's own release, its Approve
   * relayed, the agent's refund, a claimRefund after the expiry), recorded from the chain: counted
   * here, checked against their slots like the service's own, and never a difference.
   */
  settledOutsideService: z.number().int().meta({
    description:
      "How many confirmed settlements were made on chain without the service (EscrowV2: the payer's release, its Approve relayed by anyone, the agent's refund, a claimRefund after the expiry) and recorded from the chain. Not differences.",
  }),
  differences: z.array(ReconciliationDifference),
});
export type Reconciliation = z.infer<typeof Reconciliation>;

/** One outgoing transfer of any kind, for the operator's console. */
export const AdminTransfer = z.object({
  kind: z.enum(["ESCROW_SETTLEMENT", "WITHDRAWAL", "PACK_PAYOUT", "REWARD_FUNDING"]),
  /** The row: an escrow settlement, a withdrawal, a pack payout, or the reward slot's job. */
  id: Uuid,
  /** The row's own status (settlements PENDING, CONFIRMED, FAILED; withdrawals the same; pack payouts PENDING, SENT, CONFIRMED; funding UNFUNDED, SENT (its deposit kept and broadcast), FUNDED). */
  status: z.string(),
  detail: z.string(),
  amountUsdc: z.string().nullable(),
  toAddress: z.string().nullable(),
  txHash: z.string().nullable(),
  explorerUrl: z.string().nullable(),
  jobId: Uuid.nullable(),
  userId: Uuid.nullable(),
  lastError: z.string().nullable(),
  createdAt: Timestamp,
});
export type AdminTransfer = z.infer<typeof AdminTransfer>;

export const AdminOverview = z.object({
  generatedAt: Timestamp,
  jobsByStatus: z.array(z.object({ status: z.enum(ADMIN_JOB_STATUSES), count: z.number().int() })),
  /** Settlements not confirmed: PENDING (being sent or waiting for a retry) and FAILED; oldest first, at most 100. */
  settlements: z.array(AdminSettlement),
  /** Every kind of outgoing transfer (escrow settlements, managed-wallet withdrawals, pack payouts, reward slot funding), newest first, at most 25 of each kind. */
  transfers: z.array(AdminTransfer),
  /** The same answer as GET /v1/health: database, chain, workers with their lag. */
  health: Health,
  openReports: z.number().int(),
  suspendedPrincipals: z.number().int(),
});
export type AdminOverview = z.infer<typeof AdminOverview>;

export const Suspension = z.object({ suspendedAt: Timestamp, reason: z.string() }).nullable();

export const AdminPerson = z.object({
  kind: z.enum(["AGENT", "USER"]),
  principalId: Uuid,
  /** The agent's id (AGENT) or the user's id (USER). */
  id: z.string(),
  name: z.string(),
  /** USER: the signed-in address; AGENT: its wallet address. */
  address: z.string().nullable(),
  /** AGENT only. */
  ownerEmail: z.string().nullable(),
  ownerUserId: z.string().nullable(),
  agentStatus: z.string().nullable(),
  suspension: Suspension,
  createdAt: Timestamp,
});
export type AdminPerson = z.infer<typeof AdminPerson>;

export const ListPeopleQuery = z.strictObject({
  q: z.string().trim().max(200).optional(),
  kind: z.enum(["AGENT", "USER"]).optional(),
  suspended: z.enum(["true", "false"]).optional(),
  cursor: Cursor.optional(),
  limit: intParam(1, 100).optional(),
});

export const SuspendResult = z.object({
  person: AdminPerson,
  /** Pending bids the suspension withdrew. */
  withdrawnBidIds: z.array(Uuid),
  /** Assigned jobs the suspension put into dispute. */
  disputedJobIds: z.array(Uuid),
});

export const FORUM_MODERATION_ACTIONS = ["HIDE", "RESTORE", "LOCK", "UNLOCK", "PIN", "UNPIN"] as const;
export const ModerateForumRequest = z.strictObject({
  kind: z.enum(["THREAD", "REPLY"]),
  id: Uuid,
  action: z.enum(FORUM_MODERATION_ACTIONS),
  reason: OperatorReason,
});
export type ModerateForumRequest = z.input<typeof ModerateForumRequest>;

export const ModeratedPost = z.object({
  kind: z.enum(["THREAD", "REPLY"]),
  id: Uuid,
  threadId: Uuid,
  threadSlug: z.string(),
  status: z.enum(["VISIBLE", "DELETED", "HIDDEN"]),
  hiddenReason: z.string().nullable(),
  locked: z.boolean().nullable(),
  pinned: z.boolean().nullable(),
});

export const ReportPostRequest = z.strictObject({
  kind: z.enum(["THREAD", "REPLY"]),
  id: Uuid,
  reason: z.string().trim().min(3, { message: "must say why (3 characters or more)" }).max(500),
});
export type ReportPostRequest = z.input<typeof ReportPostRequest>;

export const ForumReport = z.object({
  id: Uuid,
  kind: z.enum(["THREAD", "REPLY"]),
  targetId: Uuid,
  threadId: Uuid,
  reason: z.string(),
  createdAt: Timestamp,
  resolvedAt: NullableTimestamp,
  resolution: z.enum(["HIDDEN", "DISMISSED"]).nullable(),
});

export const AdminForumReport = ForumReport.extend({
  threadSlug: z.string(),
  threadTitle: z.string(),
  /** The reported text (untrusted Markdown; the console shows it as plain text). */
  excerpt: z.string(),
  postStatus: z.enum(["VISIBLE", "DELETED", "HIDDEN"]),
  reporterName: z.string(),
  /** Open reports of the same post. */
  reportCount: z.number().int(),
});

export const ListReportsQuery = z.strictObject({
  status: z.enum(["OPEN", "RESOLVED"]).optional(),
  cursor: Cursor.optional(),
  limit: intParam(1, 100).optional(),
});

export const AuditEntry = z.object({
  id: Uuid,
  operatorAddress: z.string(),
  action: z.string(),
  subjectType: z.string(),
  subjectId: z.string(),
  reason: z.string(),
  details: z.record(z.string(), z.unknown()),
  createdAt: Timestamp,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const ListAuditQuery = z.strictObject({
  subjectType: z.string().max(40).optional(),
  subjectId: z.string().max(100).optional(),
  cursor: Cursor.optional(),
  limit: intParam(1, 100).optional(),
});

export const AddCampaignBudgetRequest = z.strictObject({
  slots: CreateRewardCampaignRequest.shape.slots,
  reason: OperatorReason,
});
export const AdminCampaignParams = z.strictObject({ id: Uuid });

export const EscrowFees = z.object({
  /** Fees of every confirmed settlement that paid an agent (whole jobs and parts, releases and dispute splits), as the database recorded them. */
  earnedUsdc: z.string(),
  /** Fees the contract holds now, not yet withdrawn (feesAccrued, read on chain). */
  accruedUsdc: z.string(),
  /** Where a withdrawal goes: the contract's immutable fee recipient (the treasury). */
  feeRecipient: EvmAddress,
  feeBps: z.number().int(),
});
export const FeeWithdrawal = z.object({ txHash: z.string(), amountUsdc: z.string(), to: EvmAddress });

export const AdminSettlementParams = z.strictObject({ id: Uuid });
export const AdminAgentParams = z.strictObject({ id: z.string().min(1).max(100) });
export const AdminUserParams = z.strictObject({ id: Uuid });
export const AdminReportParams = z.strictObject({ id: Uuid });

/** Where a deposit the escrow received stands (the deposit watcher's record of every Deposited event). */
export const ESCROW_DEPOSIT_STATUSES = [
  "OBSERVED",
  "REGISTERED",
  "REFUND_PENDING",
  "REFUNDED",
  "VANISHED",
  "SETTLED",
] as const;

export const AdminEscrowDeposit = z.object({
  id: Uuid,
  /** The job whose escrow id it was made under, when one has it. */
  jobId: Uuid.nullable(),
  jobTitle: z.string().nullable(),
  escrowJobId: z.string(),
  payer: z.string(),
  amountUsdc: z.string(),
  depositTxHash: z.string(),
  status: z.enum(ESCROW_DEPOSIT_STATUSES),
  /** Why it is being (or was) returned to its payer. */
  reason: z.string().nullable(),
  /** An unregistered deposit that could fund its job goes back to its payer at this time. */
  refundDueAt: Timestamp,
  refundTxHash: z.string().nullable(),
  refundedAt: NullableTimestamp,
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  seenAt: Timestamp,
});
export type AdminEscrowDeposit = z.infer<typeof AdminEscrowDeposit>;

export const ListEscrowDepositsQuery = z.strictObject({
  status: z.enum(ESCROW_DEPOSIT_STATUSES).optional(),
  cursor: Cursor.optional(),
  limit: intParam(1, 100).optional(),
});

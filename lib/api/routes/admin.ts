import { defineRoute } from "../contract";
import { dataEnvelope, listEnvelope } from "../schemas/common";
import { AgentIdParams } from "../schemas/agents";
import {
  AddCampaignBudgetRequest,
  AdminCampaignParams,
  AdminEscrowDeposit,
  ListEscrowDepositsQuery,
  EscrowFees,
  FeeWithdrawal,
  AdminForumReport,
  AdminOverview,
  AdminPerson,
  AdminReportParams,
  AdminSettlement,
  AdminSettlementParams,
  AdminUserParams,
  AuditEntry,
  ForumReport,
  ListAuditQuery,
  ListPeopleQuery,
  ListReportsQuery,
  ModerateForumRequest,
  ModeratedPost,
  OperatorReasonRequest,
  Reconciliation,
  ReportPostRequest,
  ResettleRequest,
  SuspendResult,
} from "../schemas/admin";
import { RewardCampaign } from "../schemas/rewards";

const T = "Operator";
const OPERATOR_ONLY = {
  status: 403,
  code: "NOT_OPERATOR",
  when: "the caller is not a human signed in with an address in OPERATOR_ADDRESSES (an agent key never is, even an operator's agent's)",
} as const;
const AUDITED =
  " Operator only. Recorded in the audit log (GET /v1/admin/audit) with the operator, the action, its subject and the reason, in the same transaction as the change.";

// The operator's console (/admin) and its API. Every route answers 403 NOT_OPERATOR to anyone
// but a listed human; every change takes a reason and writes one audit line.
export const adminRoutes = {
  getAdminOverview: defineRoute({
    method: "GET",
    path: "/v1/admin/overview",
    tag: T,
    auth: "required",
    budget: "read",
    summary:
      "The marketplace's health for the operator: jobs by state, settlements pending or failed, database, chain and worker lag, open reports",
    description: "Operator only. health is the same answer as GET /v1/health (computed by the same code).",
    response: dataEnvelope(AdminOverview),
    errors: [OPERATOR_ONLY],
  }),
  getEscrowReconciliation: defineRoute({
    method: "GET",
    path: "/v1/admin/reconciliation",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "The money the escrow holds on chain against what the database says, with every difference listed",
    description:
      "Operator only. For each job the database counts as held (deposit verified, no confirmed settlement) the chain's slot (getEscrow(escrowJobId, payer)) " +
      "must be FUNDED with the job's budget; otherwise a difference SLOT_NOT_FUNDED, AMOUNT_MISMATCH or SLOT_UNREADABLE names the job. " +
      "Deposits the service never registered that the contract still holds (a stranger's deposit under a public job id; found from the Deposited events) are listed apart as strayDeposits. " +
      "The contract's token balance must equal the funded slots plus the claimable credits (totalClaimable), the accrued fees (feesAccrued) and the stray deposits: otherwise BALANCE_MISMATCH. " +
      "Zero differences means the database and the chain agree to the unit.",
    response: dataEnvelope(Reconciliation),
    errors: [OPERATOR_ONLY, { status: 503, code: "CHAIN_UNAVAILABLE", when: "the chain could not be read" }],
  }),
  listEscrowDeposits: defineRoute({
    method: "GET",
    path: "/v1/admin/escrow/deposits",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "Every deposit the escrow received, registered or not, with where its money is going",
    description:
      "Operator only. Newest first, keyset cursor; filter by status. The service reads the escrow's Deposited events once final and returns a deposit that cannot fund its job to its payer by itself (refund(jobId, payer), once, recorded before it is sent): " +
      "at once when no job has its escrowJobId, the job is not fundable or is funded by another deposit, or the amount is not the budget; after 1 hour (refundDueAt) when it could fund its job but nobody registered it. " +
      "OBSERVED: waiting for its registration; REGISTERED: it funds its job; REFUND_PENDING: being returned (lastError, attempts); REFUNDED: returned (refundTxHash); VANISHED: a chain reorganisation removed it; SETTLED: the slot was settled otherwise.",
    query: ListEscrowDepositsQuery,
    response: listEnvelope(AdminEscrowDeposit),
    errors: [OPERATOR_ONLY],
  }),
  retrySettlement: defineRoute({
    method: "POST",
    path: "/v1/admin/settlements/:id/retry",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Send a PENDING escrow settlement (or a FAILED refund), a whole job's or one part's, now",
    description:
      "Sends (or finds) the recorded release, refund or split of a whole job or of one part of a job paid in parts (milestonePosition) at once, as the settlement worker would, clearing its backoff. Money still moves once: the contract settles each slot once, and a settlement keeps the transaction it signed before broadcasting it, so a second send asks the chain about that transaction instead of signing another. " +
      "A FAILED refund goes back to PENDING and is sent again (the payer is its only destination; a slot refunded meanwhile is recorded as it stands). " +
      "A FAILED release or split (the chain reverted it, e.g. InvalidRecipient; the reason is in failedReason) is refused with 409 SETTLEMENT_FAILED and its reason: sending it again unchanged cannot succeed; settle it again to a valid address with POST /v1/admin/settlements/:id/resettle." +
      AUDITED,
    params: AdminSettlementParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(AdminSettlement),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such settlement" },
      { status: 409, code: "INVALID_STATE", when: "the settlement is already CONFIRMED" },
      {
        status: 409,
        code: "SETTLEMENT_FAILED",
        when: "the settlement is FAILED for good: re-settle it to a valid address instead",
      },
    ],
  }),
  resettleSettlement: defineRoute({
    method: "POST",
    path: "/v1/admin/settlements/:id/resettle",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Settle a FAILED release or split (a whole job's or one part's) again, to a valid address",
    description:
      "A settlement the chain refused for good (FAILED: the escrow slot is still funded, nothing moved) is put back to PENDING addressed to toAddress, or, when toAddress is omitted, to where it should go now: " +
      "the job's agent's current walletAddress (the agent or its owner sets a new one first), or for a forum reward's slot the reward owner's current payout destination. " +
      "The address passes the payable-address check (400 ADDRESS_NOT_PAYABLE: not the zero address, the escrow, the token, the fee recipient or treasury, a service wallet, nor an address the token refuses), and the address that failed is refused (409 SETTLEMENT_FAILED). " +
      "Once: the row moves FAILED → PENDING in one locked update, so of parallel calls one wins and the others answer 409 SETTLEMENT_NOT_FAILED; a CONFIRMED settlement is never settled again. " +
      "It is then sent at once: a split pays the agent's share less the fee to the new address and the rest to the payer in one transaction. A refund goes only to its payer and is not re-addressed (409 INVALID_STATE)." +
      AUDITED,
    params: AdminSettlementParams,
    body: ResettleRequest,
    response: dataEnvelope(AdminSettlement),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such settlement" },
      { status: 400, code: "ADDRESS_NOT_PAYABLE", when: "the address to settle to is refused (reason says why)" },
      {
        status: 409,
        code: "SETTLEMENT_NOT_FAILED",
        when: "the settlement is PENDING or CONFIRMED (it was settled again already, or never failed)",
      },
      {
        status: 409,
        code: "SETTLEMENT_FAILED",
        when: "the address named (or the agent's wallet) is the one the chain already refused",
      },
      { status: 409, code: "AGENT_WALLET_MISSING", when: "no toAddress and the agent has no walletAddress" },
      { status: 409, code: "INVALID_STATE", when: "a refund, which goes only to its payer" },
    ],
  }),
  listPeople: defineRoute({
    method: "GET",
    path: "/v1/admin/people",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "Search agents and people: name, agent id, owner email, address; with their suspension",
    description: "Operator only. Newest first, keyset cursor.",
    query: ListPeopleQuery,
    response: listEnvelope(AdminPerson),
    errors: [OPERATOR_ONLY],
  }),
  suspendAgent: defineRoute({
    method: "POST",
    path: "/v1/admin/agents/:id/suspend",
    tag: T,
    auth: "required",
    budget: "write",
    summary:
      "Suspend an agent: it can no longer bid, claim, submit or post (403 AGENT_SUSPENDED); its pending bids are withdrawn and its assigned jobs go to dispute",
    description:
      'In one transaction: the suspension with its reason (shown on the agent\'s record, GET /v1/agents/:id suspension), every PENDING bid WITHDRAWN, every IN_PROGRESS or REVIEW job assigned to it DISPUTED with the reason "agent suspended by the operator: <reason>" (a job whose escrow is already being settled is left as it is), the event agent.suspended.' +
      AUDITED,
    params: AgentIdParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(SuspendResult),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such agent" },
      { status: 409, code: "INVALID_STATE", when: "the agent is already suspended" },
    ],
  }),
  restoreAgent: defineRoute({
    method: "POST",
    path: "/v1/admin/agents/:id/restore",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Lift an agent's suspension (withdrawn bids and disputes stay as they are)",
    description: "Publishes agent.restored." + AUDITED,
    params: AgentIdParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(SuspendResult),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such agent" },
      { status: 409, code: "INVALID_STATE", when: "the agent is not suspended" },
    ],
  }),
  suspendUser: defineRoute({
    method: "POST",
    path: "/v1/admin/users/:id/suspend",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Suspend a person: they can no longer post jobs or forum posts (403 USER_SUSPENDED)",
    description: "An operator cannot suspend themself." + AUDITED,
    params: AdminUserParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(SuspendResult),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such user" },
      { status: 409, code: "INVALID_STATE", when: "already suspended, or the operator's own account" },
    ],
  }),
  restoreUser: defineRoute({
    method: "POST",
    path: "/v1/admin/users/:id/restore",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Lift a person's suspension",
    description: AUDITED.trim(),
    params: AdminUserParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(SuspendResult),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such user" },
      { status: 409, code: "INVALID_STATE", when: "the user is not suspended" },
    ],
  }),
  listForumReports: defineRoute({
    method: "GET",
    path: "/v1/admin/forum/reports",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "Readers' reports of forum posts: OPEN (default) or RESOLVED, newest first",
    query: ListReportsQuery,
    response: listEnvelope(AdminForumReport),
    errors: [OPERATOR_ONLY],
  }),
  dismissForumReport: defineRoute({
    method: "POST",
    path: "/v1/admin/forum/reports/:id/dismiss",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Dismiss a report (the post stays visible)",
    description: AUDITED.trim(),
    params: AdminReportParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(ForumReport),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such report" },
      { status: 409, code: "INVALID_STATE", when: "the report is already resolved" },
    ],
  }),
  moderateForumPost: defineRoute({
    method: "POST",
    path: "/v1/admin/forum/moderation",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Hide or restore a thread or reply; lock, unlock, pin or unpin a thread",
    description:
      "HIDE: the post disappears from the thread, the forum lists and search, and the rewards (a review not yet paid is declined; a hidden post earns nothing); " +
      "a hidden reply no longer counts in the thread's replyCount. Open reports of the post are resolved HIDDEN. RESTORE makes a hidden post visible again " +
      "(it is not reviewed for a reward again). LOCK stops replies (409 THREAD_LOCKED); PIN keeps a thread on top of its list." +
      AUDITED,
    body: ModerateForumRequest,
    response: dataEnvelope(ModeratedPost),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such post (a post its author deleted cannot be moderated)" },
      {
        status: 409,
        code: "INVALID_STATE",
        when: "the action does not apply: HIDE of a hidden post, RESTORE of a visible one, LOCK/PIN of a reply",
      },
    ],
  }),
  addCampaignBudget: defineRoute({
    method: "POST",
    path: "/v1/admin/campaigns/:id/budget",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Add budget to a reward campaign: more slots of its kind",
    description:
      "The new slots are numbered after the existing ones. An OPERATOR-funded campaign's slots are deposited from the rewards wallet before the answer (a failed deposit is retried by the worker); a SPONSOR campaign's wait for its sponsor." +
      AUDITED,
    params: AdminCampaignParams,
    body: AddCampaignBudgetRequest,
    response: dataEnvelope(RewardCampaign),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such campaign" },
      { status: 409, code: "INVALID_STATE", when: "the campaign is on another chain" },
      { status: 503, code: "CHAIN_UNAVAILABLE", when: "no payment chain is configured" },
    ],
  }),
  pauseCampaign: defineRoute({
    method: "POST",
    path: "/v1/admin/campaigns/:id/pause",
    tag: T,
    auth: "required",
    budget: "write",
    summary:
      "Pause a reward campaign: its slots reserve no new reward (rewards wait for another campaign's slot or the resume)",
    description: AUDITED.trim(),
    params: AdminCampaignParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(RewardCampaign),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such campaign" },
      { status: 409, code: "INVALID_STATE", when: "already paused" },
    ],
  }),
  resumeCampaign: defineRoute({
    method: "POST",
    path: "/v1/admin/campaigns/:id/resume",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Resume a paused reward campaign (waiting rewards are paid from it at once)",
    description: AUDITED.trim(),
    params: AdminCampaignParams,
    body: OperatorReasonRequest,
    response: dataEnvelope(RewardCampaign),
    errors: [
      OPERATOR_ONLY,
      { status: 404, code: "NOT_FOUND", when: "no such campaign" },
      { status: 409, code: "INVALID_STATE", when: "not paused" },
    ],
  }),
  getEscrowFees: defineRoute({
    method: "GET",
    path: "/v1/admin/fees",
    tag: T,
    auth: "required",
    budget: "read",
    summary:
      "Fees earned by the escrow (every confirmed release and dispute split, of whole jobs and parts) and accrued in the contract, not yet withdrawn",
    response: dataEnvelope(EscrowFees),
    errors: [
      OPERATOR_ONLY,
      { status: 503, code: "CHAIN_UNAVAILABLE", when: "no chain configured, or it could not be read" },
    ],
  }),
  withdrawEscrowFees: defineRoute({
    method: "POST",
    path: "/v1/admin/fees/withdraw",
    tag: T,
    auth: "required",
    budget: "write",
    summary: "Withdraw every accrued fee to the treasury (the contract's immutable fee recipient)",
    description:
      "withdrawFees() on the escrow with the operator key. The contract moves the fees once: a second withdrawal (or one racing this) finds nothing and is refused with 409 NO_FEES_ACCRUED, sending nothing." +
      AUDITED,
    body: OperatorReasonRequest,
    response: dataEnvelope(FeeWithdrawal),
    errors: [
      OPERATOR_ONLY,
      { status: 409, code: "NO_FEES_ACCRUED", when: "nothing is accrued" },
      { status: 503, code: "CHAIN_UNAVAILABLE", when: "no chain configured, or the send failed" },
    ],
  }),
  listAuditLog: defineRoute({
    method: "GET",
    path: "/v1/admin/audit",
    tag: T,
    auth: "required",
    budget: "read",
    summary: "The operator's audit log: who did what, to what, why and when; newest first, keyset cursor",
    query: ListAuditQuery,
    response: listEnvelope(AuditEntry),
    errors: [OPERATOR_ONLY],
  }),
  // Any reader: the report button on every post.
  reportForumPost: defineRoute({
    method: "POST",
    path: "/v1/forum/reports",
    tag: "Forum",
    auth: "required",
    budget: "write",
    status: 201,
    summary: "Report a thread or reply to the operator, with a reason (one report per reader per post)",
    description:
      "Any signed-in reader (an agent key or a person). The report goes to the operator's moderation queue; the reporter is never shown to the author.",
    body: ReportPostRequest,
    response: dataEnvelope(ForumReport),
    errors: [
      { status: 404, code: "NOT_FOUND", when: "no such visible post" },
      { status: 409, code: "ALREADY_REPORTED", when: "you already reported this post" },
    ],
  }),
};

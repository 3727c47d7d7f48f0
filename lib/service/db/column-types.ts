// The column types the code relies on where the database's own type is wider: a status column is
// text with a check constraint (a union here), a JSON column holds one shape (read parsed, written as
// the text of JSON.stringify). scripts/db-types.ts generates database.generated.ts from the migrated
// schema and puts these in place of the generated types of those columns (kysely-codegen's
// overrides); schema.ts re-exports everything under the names the code uses.
import type { ColumnType } from "kysely";
import type { ProofStatus, ProofTrigger } from "@/lib/api/schemas/deliverables";

export type { ProofStatus, ProofTrigger };

/** An int8 column: read as a number (connection.ts sets pg's parser; PGlite agrees), written as a number, a bigint or its digits. */
export type Int8 = ColumnType<number, number | string | bigint, number | string | bigint>;

/** A JSON column read as T and written as the text of JSON.stringify. */
export type JsonColumn<T = unknown> = ColumnType<T, string, string>;
export type NullableJsonColumn<T = unknown> = ColumnType<T | null, string | null | undefined, string | null>;

export type JobStatus = "OPEN" | "IN_PROGRESS" | "REVIEW" | "DISPUTED" | "COMPLETED" | "CANCELLED";
export type ParticipationMode = "BOUNTY" | "BID" | "AUTOMATIC_FORUM_REWARD";
export type BidStatus = "PENDING" | "ACCEPTED" | "REJECTED" | "WITHDRAWN" | "EXPIRED";
export type EscrowDepositStatus = "OBSERVED" | "REGISTERED" | "REFUND_PENDING" | "REFUNDED" | "VANISHED" | "SETTLED";
export type EvalPackReviewStatus = "PENDING" | "APPROVED" | "REFUSED";
export type EvalItemKind = "MULTIPLE_CHOICE" | "SHORT_ANSWER" | "STRUCTURED";
export type EvalMode = "CLOSED_BOOK" | "TOOL_ALLOWED" | "WEB_ALLOWED";
export type EvalGrading = { keywords: string[] } | { expected: unknown } | { schema: unknown };
export type CriterionStatus = "PASS" | "FAIL" | "PENDING" | "OVERRIDDEN";
export type RewardKindDb = "THREAD" | "REPLY" | "REFERRAL";
export type RewardStatusDb = "PENDING_REVIEW" | "DECLINED" | "NOT_ELIGIBLE" | "WAITING_FOR_BUDGET" | "PAYING" | "PAID";
export type DisputeSide = "POSTER" | "AGENT";
export type DisputeCaseStatus = "OPEN" | "ESCALATED" | "RULED";
export type DisputeOutcome = "PAY_AGENT" | "REFUND_POSTER" | "SPLIT";
export type WebhookDeliveryStatus = "PENDING" | "DELIVERED" | "FAILED";

/**
 * "table.column" → the TypeScript type generated for it instead of the database's, written with the
 * types above (each must be exported here: the generated file imports what it names from this file),
 * kysely's `ColumnType` and `GeneratedAlways`, and the generated file's own `Generated`.
 */
export const COLUMN_TYPES: Record<string, string> = {
  "principals.kind": '"USER" | "AGENT"',
  "agents.status": '"PENDING_PROOF" | "ACTIVE"',
  "jobs.search_document": "GeneratedAlways<string>",
  "jobs.status": "JobStatus",
  "jobs.purpose": 'Generated<"MARKETPLACE" | "PLATFORM_REFERRAL">',
  "jobs.participation_mode": "ParticipationMode",
  "jobs.input_data": "JsonColumn<Record<string, unknown>>",
  "jobs.output_data": "NullableJsonColumn<Record<string, unknown>>",
  "jobs.acceptance_criteria": "JsonColumn<Array<{ id: string; check: unknown; description: string }>>",
  "jobs.proof_check_status": "ProofStatus | null",
  "jobs.escrow_version": "1 | 2 | null",
  "bids.status": "BidStatus",
  "bids.milestones": "ColumnType<unknown | null, string | null | undefined, string | null>",
  "idempotency_keys.response_body": "NullableJsonColumn",
  "job_milestones.status":
    'Generated<"OPEN" | "SUBMITTED" | "APPROVED" | "DISPUTED" | "RELEASED" | "SPLIT" | "REFUNDED">',
  "job_milestones.ruling_outcome": '"PAY_AGENT" | "REFUND_POSTER" | "SPLIT" | null',
  "milestone_settlements.kind": '"RELEASE" | "REFUND" | "SPLIT"',
  "milestone_settlements.status": '"PENDING" | "CONFIRMED" | "FAILED"',
  "escrow_settlements.kind": '"RELEASE" | "REFUND" | "SPLIT"',
  "escrow_settlements.status": '"PENDING" | "CONFIRMED" | "FAILED"',
  "agent_wallet_changes.changed_by_kind": '"OWNER" | "AGENT_KEY"',
  "escrow_deposits.status": "Generated<EscrowDepositStatus>",
  "proof_checks.trigger": "ProofTrigger",
  "proof_checks.status": "ProofStatus",
  "forum_reports.target_kind": '"THREAD" | "REPLY"',
  "forum_reports.resolution": '"HIDDEN" | "DISMISSED" | null',
  "forum_threads.status": 'Generated<"VISIBLE" | "DELETED" | "HIDDEN">',
  "forum_replies.status": 'Generated<"VISIBLE" | "DELETED" | "HIDDEN">',
  "forum_votes.target_kind": '"THREAD" | "REPLY"',
  "eval_packs.review_status": "Generated<EvalPackReviewStatus>",
  "eval_questions.choices": "JsonColumn<Array<{ id: string; text: string }>>",
  "eval_questions.kind": "Generated<EvalItemKind>",
  "eval_questions.grading": "NullableJsonColumn<EvalGrading>",
  "eval_attempts.status": 'Generated<"IN_PROGRESS" | "PASSED" | "FAILED">',
  "eval_attempts.answers": "NullableJsonColumn<Array<{ questionId: string; choice: string }>>",
  "eval_attempts.mode": "Generated<EvalMode | null>",
  "eval_attempts.section_scores": "NullableJsonColumn<Array<{ section: string; points: number; maxPoints: number }>>",
  "eval_attempt_items.answer": "NullableJsonColumn<unknown>",
  "eval_pack_payouts.status": 'Generated<"PENDING" | "CONFIRMED">',
  "x402_payments.status": 'Generated<"PENDING" | "SETTLED" | "FAILED">',
  "job_claims.outcome": '"SUBMITTED" | "LAPSED" | "RELEASED" | null',
  "job_criteria_results.status": "CriterionStatus",
  "job_criteria_results.check_status": 'Exclude<CriterionStatus, "OVERRIDDEN">',
  "forum_reward_campaigns.kind": "RewardKindDb",
  "forum_reward_campaigns.funding": '"OPERATOR" | "SPONSOR"',
  "forum_reward_slots.kind": "RewardKindDb",
  "forum_reward_slots.status": 'Generated<"OPEN" | "RESERVED" | "PAID">',
  "forum_reward_slots.fund_status": 'Generated<"PENDING" | "FUNDED" | "SPONSOR">',
  "forum_rewards.kind": "RewardKindDb",
  "forum_rewards.contribution_kind": '"THREAD" | "REPLY"',
  "forum_rewards.status": "RewardStatusDb",
  "forum_rewards.review_status": 'Generated<"PENDING" | "PASSED" | "DECLINED">',
  "forum_rewards.payout_target": '"ADDRESS" | "MANAGED_WALLET" | null',
  "wallet_withdrawals.status": 'Generated<"PENDING" | "CONFIRMED" | "FAILED">',
  "wallet_ledger.kind": '"REWARD_CREDIT" | "WITHDRAWAL" | "WITHDRAWAL_REVERSAL" | "BID_REFUND"',
  "wallet_ledger.direction": '"CREDIT" | "DEBIT"',
  "reconciliation_runs.report": "JsonColumn<unknown>",
  "domain_events.data": "ColumnType<Record<string, unknown>, string | undefined, string>",
  "operator_actions.details": "ColumnType<Record<string, unknown>, string | undefined, string>",
  "webhook_endpoints.owner_kind": '"AGENT" | "USER"',
  "webhook_deliveries.status": "WebhookDeliveryStatus",
  "notification_settings.email_kinds": "ColumnType<Record<string, boolean>, string | undefined, string>",
  "saved_searches.query": "ColumnType<Record<string, unknown>, string, string>",
  "job_reviews.author_side": '"POSTER" | "AGENT"',
  "job_reviews.subject_kind": '"AGENT" | "POSTER"',
  "job_messages.sender_side": '"POSTER" | "AGENT"',
  "job_conversation_reads.side": '"POSTER" | "AGENT"',
  "dispute_cases.opened_by_side": "DisputeSide | null",
  "dispute_cases.opened_by_kind": '"USER" | "AGENT" | null',
  "dispute_cases.status": "Generated<DisputeCaseStatus>",
  "dispute_statements.side": "DisputeSide",
  "dispute_statements.author_kind": '"USER" | "AGENT"',
  "dispute_evidence.status": "ProofStatus | null",
  "dispute_rulings.outcome": "DisputeOutcome",
  "dispute_rulings.arbiter": '"EVALUATOR" | "OPERATOR"',
  "agent_identities.services": "JsonColumn<Array<{ name: string; endpoint: string; version?: string }>>",
};

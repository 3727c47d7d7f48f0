import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";
import type { ProofStatus, ProofTrigger } from "@/lib/api/schemas/deliverables";

// Row types of the database, one interface per table. A domain that adds tables declares them in
// its own `lib/service/<domain>/tables.ts` and they are joined into `Database` below.

export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
export type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
export type Json<T = unknown> = ColumnType<T, string, string>;
export type NullableJson<T = unknown> = ColumnType<T | null, string | null | undefined, string | null>;

export interface PrincipalsTable {
  id: Generated<string>;
  kind: "USER" | "AGENT";
  display_name: string;
  avatar_url: string | null;
  created_at: CreatedAt;
  /** Set while the operator has suspended this agent or person (0017-admin). */
  suspended_at: Generated<Date | null>;
  suspension_reason: Generated<string | null>;
}

export interface UsersTable {
  id: string;
  address: string;
  payout_address: string | null;
  created_at: CreatedAt;
}

export interface SiweNoncesTable {
  nonce: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface UserSessionsTable {
  id: Generated<string>;
  token_hash: string;
  user_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface AgentsTable {
  id: string;
  principal_id: string;
  name: string;
  vertical: string | null;
  description: string | null;
  status: "PENDING_PROOF" | "ACTIVE";
  verified_at: NullableTimestamp;
  verification_method: string | null;
  max_active_jobs: number | null;
  owner_email: string;
  owner_user_id: string | null;
  referral_code: string;
  referred_by_agent_id: string | null;
  wallet_address: string | null;
  skills: Generated<string[]>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApiKeysTable {
  id: Generated<string>;
  agent_id: string;
  key_hash: string;
  key_prefix: string;
  scopes: string[];
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** Shown to people; rotation keeps it. Existing keys were named "default". */
  name: Generated<string>;
  /** null: never. Rotation sets it on the old key (now + overlap). */
  expires_at: NullableTimestamp;
}

export interface AgentClaimsTable {
  token_hash: string;
  agent_id: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  claimed_at: NullableTimestamp;
  claimed_by_user_id: string | null;
}

export type JobStatus = "OPEN" | "IN_PROGRESS" | "REVIEW" | "DISPUTED" | "COMPLETED" | "CANCELLED";
export type ParticipationMode = "BOUNTY" | "BID" | "AUTOMATIC_FORUM_REWARD";

export interface JobsTable {
  id: Generated<string>;
  poster_id: string;
  parent_job_id: string | null;
  allow_subcontracting: Generated<boolean>;
  source_forum_thread_id: string | null;
  source_forum_reply_id: string | null;
  agent_id: string | null;
  status: JobStatus;
  purpose: Generated<"MARKETPLACE" | "PLATFORM_REFERRAL">;
  participation_mode: ParticipationMode;
  claim_window_minutes: number | null;
  claimed_at: NullableTimestamp;
  claim_expires_at: NullableTimestamp;
  template_id: string;
  title: string;
  description: string;
  budget_usdc: string;
  input_data: Json<Record<string, unknown>>;
  output_data: NullableJson<Record<string, unknown>>;
  proof_hash: string | null;
  deadline_at: NullableTimestamp;
  submitted_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  auto_approved: Generated<boolean>;
  escrow_job_id: string;
  escrow_tx_hash: string | null;
  escrow_payer: string | null;
  funded_at: NullableTimestamp;
  release_tx_hash: string | null;
  refund_tx_hash: string | null;
  chain_id: number;
  token_symbol: string;
  token_address: string;
  payment_provider: string;
  payment_status: string | null;
  acceptance_criteria: Json<Array<{ id: string; check: unknown; description: string }>>;
  required_pack_id: string | null;
  required_skills: Generated<string[]>;
  preferred_skills: Generated<string[]>;
  is_publicly_shareable: Generated<boolean>;
  share_count: Generated<number>;
  last_shared_at: NullableTimestamp;
  forum_reward_campaign_id: string | null;
  proof_checked_at: NullableTimestamp;
  proof_check_status: ProofStatus | null;
  proof_check_reason: string | null;
  approved_at: NullableTimestamp;
  release_at: NullableTimestamp;
  /** The assigned agent's latest progress report (0 to 1), its note and when it came (migration 0014). */
  progress: number | null;
  progress_note: string | null;
  last_heartbeat_at: NullableTimestamp;
  release_held_reason: string | null;
  disputed_at: NullableTimestamp;
  dispute_reason: string | null;
  /** The arbiter the poster named at creation (lower-case address; migration 0016), or null: the operator. */
  evaluator_address: Generated<string | null>;
  review_attempted_at: NullableTimestamp;
  /** The poster's latest reminder to the agent's owner to set a payout wallet (one a day). */
  wallet_reminder_sent_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type BidStatus = "PENDING" | "ACCEPTED" | "REJECTED" | "WITHDRAWN" | "EXPIRED";

export interface BidsTable {
  id: Generated<string>;
  job_id: string;
  agent_id: string;
  proposed_usdc: string;
  cover_letter: string | null;
  status: BidStatus;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface RateLimitCountersTable {
  bucket: string;
  window_start: Timestamp;
  count: number;
}

export interface IdempotencyKeysTable {
  identity: string;
  scope: string;
  key: string;
  request_hash: string;
  response_status: number | null;
  response_body: NullableJson;
  created_at: CreatedAt;
}

export interface MailOutboxTable {
  id: Generated<string>;
  to_address: string;
  subject: string;
  /** The body sealed with the outbox secret (mail/seal-mail-text.ts), or null: not kept. */
  text: string | null;
  created_at: CreatedAt;
  sent_at: NullableTimestamp;
  error: string | null;
}

export interface CoreTables {
  principals: PrincipalsTable;
  users: UsersTable;
  siwe_nonces: SiweNoncesTable;
  user_sessions: UserSessionsTable;
  agents: AgentsTable;
  api_keys: ApiKeysTable;
  agent_claims: AgentClaimsTable;
  jobs: JobsTable;
  bids: BidsTable;
  rate_limit_counters: RateLimitCountersTable;
  idempotency_keys: IdempotencyKeysTable;
  mail_outbox: MailOutboxTable;
}

export interface EscrowSettlementsTable {
  id: Generated<string>;
  job_id: string;
  kind: "RELEASE" | "REFUND" | "SPLIT";
  status: "PENDING" | "CONFIRMED" | "FAILED";
  /** SPLIT: the agent's share of the deposit in token units, before the fee the contract takes from it (migration 0016). */
  agent_share_units: Generated<string | null>;
  /** SPLIT: what went back to the payer, as the chain reported it. */
  payer_amount_units: Generated<string | null>;
  to_address: string | null;
  amount_units: string | null;
  fee_units: string | null;
  tx_hash: string | null;
  attempts: Generated<number>;
  last_error: string | null;
  lease_until: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  confirmed_at: NullableTimestamp;
}

export interface ProofChecksTable {
  id: Generated<string>;
  job_id: string;
  url: string;
  trigger: ProofTrigger;
  status: ProofStatus;
  reason: string | null;
  http_status: number | null;
  final_url: string | null;
  content_sha256: string | null;
  checked_at: CreatedAt;
}

export interface EscrowTables {
  escrow_settlements: EscrowSettlementsTable;
  proof_checks: ProofChecksTable;
}

export interface ForumThreadsTable {
  id: Generated<string>;
  slug: string;
  title: string;
  body: string;
  category: string;
  intent: string | null;
  author_principal_id: string;
  status: Generated<"VISIBLE" | "DELETED" | "HIDDEN">;
  /** Why the operator hid it (status HIDDEN, 0017-admin). */
  hidden_reason: Generated<string | null>;
  pinned: Generated<boolean>;
  locked: Generated<boolean>;
  reply_count: Generated<number>;
  view_count: Generated<number>;
  helpful_count: Generated<number>;
  last_reply_at: NullableTimestamp;
  last_activity_at: UpdatedAt;
  created_at: CreatedAt;
  edited_at: NullableTimestamp;
  accepted_reply_id: string | null;
  linked_job_id: string | null;
  context_job_id: string | null;
  job_context_kind: string | null;
  /** The referrer the author named on the thread (0008-rewards). */
  referred_by_agent_id: string | null;
  /** Keyed hash of the posting client's network prefix (0009-reward-guards). */
  origin_key: Generated<string | null>;
}

export interface ForumRepliesTable {
  id: Generated<string>;
  thread_id: string;
  body: string;
  author_principal_id: string;
  status: Generated<"VISIBLE" | "DELETED" | "HIDDEN">;
  /** Why the operator hid it (status HIDDEN, 0017-admin). */
  hidden_reason: Generated<string | null>;
  helpful_count: Generated<number>;
  created_at: CreatedAt;
  edited_at: NullableTimestamp;
  /** Keyed hash of the posting client's network prefix (0009-reward-guards). */
  origin_key: Generated<string | null>;
}

export interface ForumVotesTable {
  voter_principal_id: string;
  target_kind: "THREAD" | "REPLY";
  target_id: string;
  helpful: boolean;
  updated_at: UpdatedAt;
}

export interface ForumThreadStateTable {
  principal_id: string;
  thread_id: string;
  following: Generated<boolean>;
  last_read_at: NullableTimestamp;
}

export interface ForumReportsTable {
  id: Generated<string>;
  target_kind: "THREAD" | "REPLY";
  target_id: string;
  thread_id: string;
  reporter_principal_id: string;
  reason: string;
  created_at: CreatedAt;
  resolved_at: NullableTimestamp;
  resolution: "HIDDEN" | "DISMISSED" | null;
}

export interface ForumTables {
  forum_reports: ForumReportsTable;
  forum_threads: ForumThreadsTable;
  forum_replies: ForumRepliesTable;
  forum_votes: ForumVotesTable;
  forum_thread_state: ForumThreadStateTable;
  forum_me_polls: { identity: string; last_polled_at: Timestamp };
}

export interface EvalPacksTable {
  id: Generated<string>;
  slug: string;
  title: string;
  description: string;
  vertical: string | null;
  is_free: boolean;
  price_usdc: string | null;
  pass_score: number;
  created_at: CreatedAt;
  /** 0020: the community pack's publisher; null for the seeded packs. */
  publisher_user_id: Generated<string | null>;
  review_status: Generated<EvalPackReviewStatus>;
  review_reason: Generated<string | null>;
  reviewed_at: NullableTimestamp;
  /** Session time; null: no session clock (the seeded packs). */
  time_limit_seconds: Generated<number | null>;
  /** Items drawn per attempt from the live pool; null: all of them. */
  items_per_attempt: Generated<number | null>;
  /** Pass mark in percent of the drawn points; null: pass_score points (the seeded packs). */
  pass_percent: Generated<number | null>;
  validity_days: Generated<number>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type EvalPackReviewStatus = "PENDING" | "APPROVED" | "REFUSED";
export type EvalItemKind = "MULTIPLE_CHOICE" | "SHORT_ANSWER" | "STRUCTURED";
export type EvalMode = "CLOSED_BOOK" | "TOOL_ALLOWED" | "WEB_ALLOWED";
/** The grading key of an item (never leaves the service). */
export type EvalGrading = { keywords: string[] } | { expected: unknown } | { schema: unknown };

export interface EvalQuestionsTable {
  pack_id: string;
  id: string;
  position: number;
  prompt: string;
  choices: Json<Array<{ id: string; text: string }>>;
  answer: string;
  kind: Generated<EvalItemKind>;
  section: Generated<string>;
  points: Generated<number>;
  time_limit_seconds: Generated<number | null>;
  grading: NullableJson<EvalGrading>;
  retired_at: NullableTimestamp;
}

export interface EvalAttemptItemsTable {
  attempt_id: string;
  position: number;
  pack_id: string;
  question_id: string;
  max_points: number;
  served_at: NullableTimestamp;
  answered_at: NullableTimestamp;
  answer: NullableJson<unknown>;
  points_awarded: number | null;
  ttfb_ms: number | null;
  total_ms: number | null;
}

export interface EvalPackPayoutsTable {
  id: Generated<string>;
  attempt_id: string;
  pack_id: string;
  publisher_user_id: string;
  to_address: string;
  amount_units: string;
  fee_units: string;
  status: Generated<"PENDING" | "SENT" | "CONFIRMED">;
  tx_hash: string | null;
  raw_tx: string | null;
  lease_until: NullableTimestamp;
  attempts: Generated<number>;
  last_error: string | null;
  created_at: CreatedAt;
  sent_at: NullableTimestamp;
}

export interface EvalAttemptsTable {
  id: Generated<string>;
  pack_id: string;
  agent_id: string;
  status: Generated<"IN_PROGRESS" | "PASSED" | "FAILED">;
  payment_tx_hash: string | null;
  payment_units: string | null;
  payer_address: string | null;
  answers: NullableJson<Array<{ questionId: string; choice: string }>>;
  score: number | null;
  question_count: number;
  pass_score: number;
  started_at: CreatedAt;
  submitted_at: NullableTimestamp;
  created_at: CreatedAt;
  /** Consecutive failed attempts at the pack ending with this one; null unless FAILED (0009). */
  failure_streak: Generated<number | null>;
  /** 0020: session attempts have a mode; the one-request attempt has null. */
  mode: Generated<EvalMode | null>;
  deadline_at: NullableTimestamp;
  last_heartbeat_at: NullableTimestamp;
  total_points: number | null;
  section_scores: NullableJson<Array<{ section: string; points: number; maxPoints: number }>>;
}

export interface EvalCertificationsTable {
  id: Generated<string>;
  agent_id: string;
  pack_id: string;
  attempt_id: string;
  score: number;
  certified_at: CreatedAt;
  /** 0020: the public short code, the mode and points of the passing attempt, and the expiry. */
  code: string;
  mode: string | null;
  total_points: number | null;
  expires_at: Timestamp;
}

export interface EvalTables {
  eval_packs: EvalPacksTable;
  eval_questions: EvalQuestionsTable;
  eval_attempts: EvalAttemptsTable;
  eval_certifications: EvalCertificationsTable;
  eval_attempt_items: EvalAttemptItemsTable;
  eval_pack_payouts: EvalPackPayoutsTable;
}

export interface JobClaimsTable {
  id: Generated<string>;
  job_id: string;
  agent_id: string;
  claimed_at: Timestamp;
  expires_at: Timestamp;
  ended_at: NullableTimestamp;
  outcome: "SUBMITTED" | "LAPSED" | "RELEASED" | null;
  created_at: CreatedAt;
}

export type CriterionStatus = "PASS" | "FAIL" | "PENDING" | "OVERRIDDEN";

export interface JobCriteriaResultsTable {
  job_id: string;
  criterion_id: string;
  status: CriterionStatus;
  check_status: Exclude<CriterionStatus, "OVERRIDDEN">;
  detail: string | null;
  checked_url: string | null;
  http_status: number | null;
  evaluated_at: NullableTimestamp;
  ticked: Generated<boolean>;
  ticked_by: string | null;
  ticked_at: NullableTimestamp;
  overridden_by: string | null;
  override_reason: string | null;
  overridden_at: NullableTimestamp;
  updated_at: UpdatedAt;
}

export interface JobModeTables {
  job_claims: JobClaimsTable;
  job_criteria_results: JobCriteriaResultsTable;
}

export type RewardKindDb = "THREAD" | "REPLY" | "REFERRAL";
export type RewardStatusDb = "PENDING_REVIEW" | "DECLINED" | "NOT_ELIGIBLE" | "WAITING_FOR_BUDGET" | "PAYING" | "PAID";

export interface ForumRewardCampaignsTable {
  id: Generated<string>;
  kind: RewardKindDb;
  sponsor_user_id: string;
  slots: number;
  gross_usdc: string;
  funding: "OPERATOR" | "SPONSOR";
  chain_key: string;
  chain_id: number;
  from_block: string | null;
  created_at: CreatedAt;
  /** A paused campaign's slots reserve no new reward (0017-admin). */
  paused_at: Generated<Date | null>;
}

export interface ForumRewardSlotsTable {
  job_id: string;
  campaign_id: string;
  kind: RewardKindDb;
  chain_key: string;
  slot_no: number;
  status: Generated<"OPEN" | "RESERVED" | "PAID">;
  reward_id: string | null;
  funded: Generated<boolean>;
  fund_error: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ForumRewardsTable {
  id: Generated<string>;
  kind: RewardKindDb;
  owner_user_id: string | null;
  author_principal_id: string;
  author_agent_id: string | null;
  author_key: string;
  contribution_kind: "THREAD" | "REPLY";
  contribution_id: string;
  thread_id: string;
  thread_title: string;
  url: string;
  body_length: number;
  content_hash: string;
  published_at: Timestamp;
  referrer_agent_id: string | null;
  referred_agent_id: string | null;
  referred_owner_user_id: string | null;
  status: RewardStatusDb;
  review_status: Generated<"PENDING" | "PASSED" | "DECLINED">;
  declined_reason: string | null;
  gross_usdc: string;
  fee_usdc: string;
  net_usdc: string;
  chain_key: string;
  chain_id: number;
  payout_target: "ADDRESS" | "MANAGED_WALLET" | null;
  payout_address: string | null;
  campaign_id: string | null;
  slot_job_id: string | null;
  tx_hash: string | null;
  created_at: CreatedAt;
  reviewed_at: NullableTimestamp;
  paid_at: NullableTimestamp;
  updated_at: UpdatedAt;
  /** Where the reward goes: "address:<lowercase>" or "owner:<uuid>" (managed wallet); unique per kind while eligible (0009). */
  payout_key: Generated<string | null>;
  /** The contribution's network origin (0009). */
  origin_key: Generated<string | null>;
  /** The contribution's MinHash signature, hex (0009). */
  minhash: Generated<string | null>;
}

export interface WalletWithdrawalsTable {
  id: Generated<string>;
  owner_user_id: string;
  to_address: string;
  amount_usdc: string;
  chain_key: string;
  status: Generated<"PENDING" | "CONFIRMED" | "FAILED">;
  tx_hash: string | null;
  raw_tx: string | null;
  failure_reason: string | null;
  attempts: Generated<number>;
  lease_until: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  confirmed_at: NullableTimestamp;
}

export interface WalletLedgerTable {
  id: Generated<string>;
  owner_user_id: string | null;
  agent_id: string | null;
  kind: "REWARD_CREDIT" | "WITHDRAWAL" | "WITHDRAWAL_REVERSAL" | "BID_REFUND";
  direction: "CREDIT" | "DEBIT";
  amount_usdc: string;
  reward_id: string | null;
  withdrawal_id: string | null;
  bid_id: string | null;
  job_id: string | null;
  memo: string;
  created_at: CreatedAt;
}

export interface RewardTables {
  forum_reward_campaigns: ForumRewardCampaignsTable;
  forum_reward_slots: ForumRewardSlotsTable;
  forum_rewards: ForumRewardsTable;
  forum_reward_sweeps: { id: string; published_at: Timestamp; key: string; updated_at: UpdatedAt };
  wallet_withdrawals: WalletWithdrawalsTable;
  wallet_ledger: WalletLedgerTable;
}

export interface WorkerHeartbeatsTable {
  name: string;
  started_at: Timestamp;
  last_run_at: NullableTimestamp;
  last_error: string | null;
  last_error_at: NullableTimestamp;
}

export interface DomainEventsTable {
  id: Generated<string>;
  /** Insertion order (for ordering only: taken at insert, not at commit, so never a watermark). */
  seq: Generated<string>;
  type: string;
  job_id: string | null;
  /** User ids and agent ids the event concerns. */
  recipient_ids: Generated<string[]>;
  actor_id: string | null;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: CreatedAt;
  /** Set by the webhook fan-out once it has queued a delivery per matching endpoint. */
  webhooks_done_at: NullableTimestamp;
  /** Set by the notification fan-out once it has written the inbox rows (and mails). */
  notifications_done_at: NullableTimestamp;
}

export interface OperatorActionsTable {
  id: Generated<string>;
  operator_user_id: string;
  operator_address: string;
  action: string;
  subject_type: string;
  subject_id: string;
  reason: string;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: CreatedAt;
}

export type DisputeSide = "POSTER" | "AGENT";
export type DisputeCaseStatus = "OPEN" | "ESCALATED" | "RULED";
export type DisputeOutcome = "PAY_AGENT" | "REFUND_POSTER" | "SPLIT";

export interface DisputeCasesTable {
  id: Generated<string>;
  job_id: string;
  /** Null on cases backfilled by migration 0016 for jobs disputed before cases existed. */
  opened_by_side: DisputeSide | null;
  opened_by_kind: "USER" | "AGENT" | null;
  opened_by_id: string | null;
  reason: string;
  evaluator_address: string | null;
  status: Generated<DisputeCaseStatus>;
  answer_deadline_at: Timestamp;
  ruling_deadline_at: Timestamp;
  escalated_at: NullableTimestamp;
  ruled_at: NullableTimestamp;
  resolved_event_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface DisputeStatementsTable {
  id: Generated<string>;
  case_id: string;
  side: DisputeSide;
  author_kind: "USER" | "AGENT";
  author_id: string;
  body: string;
  created_at: CreatedAt;
}

export interface DisputeEvidenceTable {
  id: Generated<string>;
  case_id: string;
  statement_id: string;
  url: string;
  status: ProofStatus | null;
  reason: string | null;
  http_status: number | null;
  final_url: string | null;
  content_type: string | null;
  content_sha256: string | null;
  checked_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface DisputeRulingsTable {
  id: Generated<string>;
  case_id: string;
  outcome: DisputeOutcome;
  agent_share: number;
  arbiter: "EVALUATOR" | "OPERATOR";
  ruled_by_user_id: string;
  ruled_by_address: string;
  reason: string;
  settlement_id: string | null;
  created_at: CreatedAt;
}

export interface DisputeTables {
  dispute_cases: DisputeCasesTable;
  dispute_statements: DisputeStatementsTable;
  dispute_evidence: DisputeEvidenceTable;
  dispute_rulings: DisputeRulingsTable;
}

export interface WebhookEndpointsTable {
  id: Generated<string>;
  owner_kind: "AGENT" | "USER";
  /** An agent id or a user id, as domain_events.recipient_ids names recipients. */
  owner_id: string;
  url: string;
  description: Generated<string>;
  /** Event types it wants; empty: every type. */
  events: Generated<string[]>;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  /** The signing secret, sealed with the server's webhook key (webhooks/endpoint-secret.ts). */
  secret_sealed: string;
  secret_prefix: string;
  failing_since: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type WebhookDeliveryStatus = "PENDING" | "DELIVERED" | "FAILED";

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  give_up_at: Timestamp;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  status_code: number | null;
  latency_ms: number;
  response_excerpt: string | null;
  error: string | null;
  created_at: CreatedAt;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

export interface OpsTables {
  worker_heartbeats: WorkerHeartbeatsTable;
  domain_events: DomainEventsTable;
  operator_actions: OperatorActionsTable;
}

export interface JobReviewsTable {
  id: Generated<string>;
  job_id: string;
  author_side: "POSTER" | "AGENT";
  author_id: string;
  written_by_user_id: string | null;
  subject_kind: "AGENT" | "POSTER";
  subject_id: string;
  rating: number;
  body: Generated<string>;
  created_at: CreatedAt;
}

export interface JobMessagesTable {
  id: Generated<string>;
  job_id: string;
  agent_id: string;
  sender_side: "POSTER" | "AGENT";
  sender_id: string;
  body: string;
  created_at: CreatedAt;
}

export interface JobConversationReadsTable {
  job_id: string;
  agent_id: string;
  side: "POSTER" | "AGENT";
  last_read_at: Timestamp;
}

export interface RecordTables {
  job_reviews: JobReviewsTable;
  job_messages: JobMessagesTable;
  job_conversation_reads: JobConversationReadsTable;
}

export interface NotificationsTable {
  id: Generated<string>;
  user_id: string;
  event_id: string;
  kind: string;
  type: string;
  text: string;
  link: string | null;
  job_id: string | null;
  created_at: CreatedAt;
  read_at: NullableTimestamp;
}

export interface NotificationSettingsTable {
  user_id: string;
  email: string | null;
  email_verified_at: NullableTimestamp;
  pending_email: string | null;
  pending_token_hash: string | null;
  pending_expires_at: NullableTimestamp;
  /** Mail on or off per kind, overriding NOTIFICATION_KINDS' defaults. */
  email_kinds: ColumnType<Record<string, boolean>, string | undefined, string>;
  updated_at: UpdatedAt;
}

export interface SavedSearchesTable {
  id: Generated<string>;
  owner_id: string;
  owner_principal_id: string;
  name: string;
  query: ColumnType<Record<string, unknown>, string, string>;
  created_at: CreatedAt;
}

export interface NotificationTables {
  notifications: NotificationsTable;
  notification_settings: NotificationSettingsTable;
  saved_searches: SavedSearchesTable;
  saved_search_matches: { saved_search_id: string; job_id: string; created_at: CreatedAt };
}

// Domains add their tables here: `export interface Database extends CoreTables, ForumTables {}`.
export interface Database extends CoreTables, EscrowTables, ForumTables, EvalTables, JobModeTables, RewardTables, OpsTables, WebhookTables, NotificationTables, RecordTables, DisputeTables {}

export type JobRow = Selectable<JobsTable>;
export type NewJob = Insertable<JobsTable>;
export type JobUpdate = Updateable<JobsTable>;
export type AgentRow = Selectable<AgentsTable>;
export type BidRow = Selectable<BidsTable>;

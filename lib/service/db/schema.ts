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
  review_attempted_at: NullableTimestamp;
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
  kind: "RELEASE" | "REFUND";
  status: "PENDING" | "CONFIRMED" | "FAILED";
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
  status: Generated<"VISIBLE" | "DELETED">;
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
  status: Generated<"VISIBLE" | "DELETED">;
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

export interface ForumTables {
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
}

export interface EvalQuestionsTable {
  pack_id: string;
  id: string;
  position: number;
  prompt: string;
  choices: Json<Array<{ id: string; text: string }>>;
  answer: string;
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
}

export interface EvalCertificationsTable {
  id: Generated<string>;
  agent_id: string;
  pack_id: string;
  attempt_id: string;
  score: number;
  certified_at: CreatedAt;
}

export interface EvalTables {
  eval_packs: EvalPacksTable;
  eval_questions: EvalQuestionsTable;
  eval_attempts: EvalAttemptsTable;
  eval_certifications: EvalCertificationsTable;
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

export interface OpsTables {
  worker_heartbeats: WorkerHeartbeatsTable;
}

// Domains add their tables here: `export interface Database extends CoreTables, ForumTables {}`.
export interface Database extends CoreTables, EscrowTables, ForumTables, EvalTables, JobModeTables, RewardTables, OpsTables {}

export type JobRow = Selectable<JobsTable>;
export type NewJob = Insertable<JobsTable>;
export type JobUpdate = Updateable<JobsTable>;
export type AgentRow = Selectable<AgentsTable>;
export type BidRow = Selectable<BidsTable>;

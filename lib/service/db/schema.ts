// The database's row types. They are generated from the schema the migrations build
// (database.generated.ts, by `npm run db:types`; docs/conventions.md), with the narrower column
// types the code relies on (statuses, JSON shapes) from column-types.ts. This file only gives them
// the names the code uses.
import type { Insertable, Selectable, Updateable } from "kysely";
import type * as Generated from "./database.generated";

export type * from "./column-types";

export type Database = Generated.DB;

export type AgentClaimsTable = Generated.AgentClaims;
export type AgentEndpointChecksTable = Generated.AgentEndpointChecks;
export type AgentIdentitiesTable = Generated.AgentIdentities;
export type AgentWalletChangesTable = Generated.AgentWalletChanges;
export type AgentsTable = Generated.Agents;
export type ApiKeysTable = Generated.ApiKeys;
export type BidsTable = Generated.Bids;
export type ChainScanCursorsTable = Generated.ChainScanCursors;
export type DisputeCasesTable = Generated.DisputeCases;
export type DisputeEvidenceTable = Generated.DisputeEvidence;
export type DisputeRulingsTable = Generated.DisputeRulings;
export type DisputeStatementsTable = Generated.DisputeStatements;
export type DomainEventsTable = Generated.DomainEvents;
export type EscrowDepositsTable = Generated.EscrowDeposits;
export type EscrowSettlementsTable = Generated.EscrowSettlements;
export type EvalAttemptGroupsTable = Generated.EvalAttemptGroups;
export type EvalAttemptItemsTable = Generated.EvalAttemptItems;
export type EvalAttemptsTable = Generated.EvalAttempts;
export type EvalCertificationsTable = Generated.EvalCertifications;
export type EvalPackPayoutsTable = Generated.EvalPackPayouts;
export type EvalPacksTable = Generated.EvalPacks;
export type EvalQuestionsTable = Generated.EvalQuestions;
export type FeedbackDocumentsTable = Generated.FeedbackDocuments;
export type ForumRepliesTable = Generated.ForumReplies;
export type ForumReportsTable = Generated.ForumReports;
export type ForumRewardCampaignsTable = Generated.ForumRewardCampaigns;
export type ForumRewardSlotsTable = Generated.ForumRewardSlots;
export type ForumRewardsTable = Generated.ForumRewards;
export type ForumThreadStateTable = Generated.ForumThreadState;
export type ForumThreadsTable = Generated.ForumThreads;
export type ForumVotesTable = Generated.ForumVotes;
export type IdempotencyKeysTable = Generated.IdempotencyKeys;
export type JobChangeRequestsTable = Generated.JobChangeRequests;
export type JobClaimsTable = Generated.JobClaims;
export type JobConversationReadsTable = Generated.JobConversationReads;
export type JobCriteriaResultsTable = Generated.JobCriteriaResults;
export type JobMessagesTable = Generated.JobMessages;
export type JobMilestonesTable = Generated.JobMilestones;
export type JobReviewsTable = Generated.JobReviews;
export type JobsTable = Generated.Jobs;
export type MailOutboxTable = Generated.MailOutbox;
export type MilestoneSettlementsTable = Generated.MilestoneSettlements;
export type NotificationSettingsTable = Generated.NotificationSettings;
export type NotificationsTable = Generated.Notifications;
export type OperatorActionsTable = Generated.OperatorActions;
export type PrincipalsTable = Generated.Principals;
export type ProofChecksTable = Generated.ProofChecks;
export type RateLimitCountersTable = Generated.RateLimitCounters;
export type ReconciliationRunsTable = Generated.ReconciliationRuns;
export type SavedSearchesTable = Generated.SavedSearches;
export type SiweNoncesTable = Generated.SiweNonces;
export type UserSessionsTable = Generated.UserSessions;
export type UsersTable = Generated.Users;
export type WalletLedgerTable = Generated.WalletLedger;
export type WalletWithdrawalsTable = Generated.WalletWithdrawals;
export type WebhookAttemptsTable = Generated.WebhookAttempts;
export type WebhookDeliveriesTable = Generated.WebhookDeliveries;
export type WebhookEndpointsTable = Generated.WebhookEndpoints;
export type WorkerHeartbeatsTable = Generated.WorkerHeartbeats;
export type X402PaymentsTable = Generated.X402Payments;

/** A job as the service reads it: without its search document, which only the board's search reads (list-jobs.ts). */
export type JobRow = Omit<Selectable<JobsTable>, "search_document">;
export type NewJob = Insertable<JobsTable>;
export type JobUpdate = Updateable<JobsTable>;
export type AgentRow = Selectable<AgentsTable>;
export type BidRow = Selectable<BidsTable>;

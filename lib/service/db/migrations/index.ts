import type { Migration } from "kysely";
import { coreMigration } from "./0001-core";
import { escrowMigration } from "./0002-escrow";
import { deliverablesMigration } from "./0003-deliverables";
import { forumMigration } from "./0004-forum";
import { settlementLeasesMigration } from "./0005-settlement-leases";
import { evalsMigration } from "./0006-evals";
import { jobModesMigration } from "./0007-job-modes";
import { rewardsMigration } from "./0008-rewards";
import { farmingGuardsMigration } from "./0009-farming-guards";
import { workerHeartbeatsMigration } from "./0010-worker-heartbeats";
import { jobSearchMigration } from "./0011-job-search";
import { agentKeysMigration } from "./0012-agent-keys";
import { sealedOutboxMigration } from "./0013-sealed-outbox";
import { jobProgressMigration } from "./0014-job-progress";
import { eventsAndAuditMigration } from "./0015-events-and-audit";
import { disputesMigration } from "./0016-disputes";
import { adminMigration } from "./0017-admin";
import { webhooksMigration } from "./0018-webhooks";
import { certificationSessionsMigration } from "./0020-certification-sessions";
import { recordsAndMessagesMigration } from "./0021-records-and-messages";
import { notificationsMigration } from "./0022-notifications";
import { walletRemindersMigration } from "./0023-wallet-reminders";
import { jobSearchDocumentMigration } from "./0024-job-search-document";
import { boardSortIndexesMigration } from "./0025-board-sort-indexes";
import { jobBidCountMigration } from "./0026-job-bid-count";
import { payoutWalletChangesMigration } from "./0029-payout-wallet-changes";
import { settlementResettleMigration } from "./0030-settlement-resettle";
import { escrowDepositsMigration } from "./0031-escrow-deposits";
import { outgoingTransfersMigration } from "./0033-outgoing-transfers";
import { campaignCreationLeasesMigration } from "./0035-campaign-creation-leases";
import { certificationBudgetsMigration } from "./0037-certification-budgets";
import { standardWebhooksMigration } from "./0039-standard-webhooks";
import { agentEventFeedMigration } from "./0041-agent-event-feed";
import { jobChangeOrderMigration } from "./0045-job-change-order";
import { milestonesMigration } from "./0049-milestones";
import { agentIdentitiesMigration } from "./0051-agent-identities";
import { x402PaymentsMigration } from "./0053-x402-payments";
import { bidMilestonePlansMigration } from "./0059-bid-milestone-plans";
import { forumPostEventsMigration } from "./0063-forum-post-events";
import { idempotencyLeasesMigration } from "./0065-idempotency-leases";
import { withdrawalIdempotencyMigration } from "./0066-withdrawal-idempotency";
import { forumPostIdempotencyMigration } from "./0067-forum-post-idempotency";
import { partsInFlightMigration } from "./0070-parts-in-flight";
import { releaseLeasesMigration } from "./0071-release-leases";
import { eventBusNotifyMigration } from "./0085-event-bus-notify";
import { revisionsMigration } from "./0090-revisions";
import { displayNamesMigration } from "./0091-display-names";
import { followOnReplyMigration } from "./0092-follow-on-reply";
import { partSettlementFailuresMigration } from "./0100-part-settlement-failures";
import { settlementSignedTransactionsMigration } from "./0105-settlement-signed-transactions";
import { serviceWalletTransfersMigration } from "./0120-service-wallet-transfers";
import { jobEscrowContractMigration } from "./0125-job-escrow-contract";
import { engineStraysAndX402Migration } from "./0130-engine-strays-and-x402";
import { escrowV2DepositsMigration } from "./0135-escrow-v2-deposits";
import { escrowExpiryNeededMigration } from "./0136-escrow-expiry-needed";
import { escrowAgentAssignmentMigration } from "./0140-escrow-agent-assignment";
import { escrowExpiryWarningsMigration } from "./0145-escrow-expiry-warnings";
import { escrowFundingAuthorizationMigration } from "./0146-escrow-funding-authorization";
import { campaignFundingEngineMigration } from "./0150-campaign-funding-engine";
import { escrowOutsideSettlementsMigration } from "./0155-escrow-outside-settlements";
import { bidWalletRequestsMigration } from "./0165-bid-wallet-requests";

// Every migration, by name, listed in the order they run: the order of their names (Kysely sorts
// them; migration-order.test.ts checks this list keeps that order). A domain adds its own file
// (0002-escrow.ts, 0004-forum.ts, …) and one line here, in its place. A name is never changed once
// it landed: databases recorded it.
export const migrations: Record<string, Migration> = {
  "0001-core": coreMigration,
  "0002-escrow": escrowMigration,
  "0003-deliverables": deliverablesMigration,
  "0004-forum": forumMigration,
  "0005-settlement-leases": settlementLeasesMigration,
  "0006-evals": evalsMigration,
  "0007-job-modes": jobModesMigration,
  "0008-rewards": rewardsMigration,
  "0009-farming-guards": farmingGuardsMigration,
  "0010-worker-heartbeats": workerHeartbeatsMigration,
  "0011-job-search": jobSearchMigration,
  "0012-agent-keys": agentKeysMigration,
  "0013-sealed-outbox": sealedOutboxMigration,
  "0014-job-progress": jobProgressMigration,
  "0015-events-and-audit": eventsAndAuditMigration,
  "0016-disputes": disputesMigration,
  "0017-admin": adminMigration,
  "0018-webhooks": webhooksMigration,
  "0020-certification-sessions": certificationSessionsMigration,
  "0021-records-and-messages": recordsAndMessagesMigration,
  "0022-notifications": notificationsMigration,
  "0023-wallet-reminders": walletRemindersMigration,
  "0024-job-search-document": jobSearchDocumentMigration,
  "0025-board-sort-indexes": boardSortIndexesMigration,
  "0026-job-bid-count": jobBidCountMigration,
  "0029-payout-wallet-changes": payoutWalletChangesMigration,
  "0030-settlement-resettle": settlementResettleMigration,
  "0031-escrow-deposits": escrowDepositsMigration,
  "0033-outgoing-transfers": outgoingTransfersMigration,
  "0035-campaign-creation-leases": campaignCreationLeasesMigration,
  "0037-certification-budgets": certificationBudgetsMigration,
  "0039-standard-webhooks": standardWebhooksMigration,
  "0041-agent-event-feed": agentEventFeedMigration,
  "0045-job-change-order": jobChangeOrderMigration,
  "0049-milestones": milestonesMigration,
  "0051-agent-identities": agentIdentitiesMigration,
  "0053-x402-payments": x402PaymentsMigration,
  "0059-bid-milestone-plans": bidMilestonePlansMigration,
  "0063-forum-post-events": forumPostEventsMigration,
  "0065-idempotency-leases": idempotencyLeasesMigration,
  "0066-withdrawal-idempotency": withdrawalIdempotencyMigration,
  "0067-forum-post-idempotency": forumPostIdempotencyMigration,
  "0070-parts-in-flight": partsInFlightMigration,
  "0071-release-leases": releaseLeasesMigration,
  "0085-event-bus-notify": eventBusNotifyMigration,
  "0090-revisions": revisionsMigration,
  "0091-display-names": displayNamesMigration,
  "0092-follow-on-reply": followOnReplyMigration,
  "0100-part-settlement-failures": partSettlementFailuresMigration,
  "0105-settlement-signed-transactions": settlementSignedTransactionsMigration,
  "0120-service-wallet-transfers": serviceWalletTransfersMigration,
  "0125-job-escrow-contract": jobEscrowContractMigration,
  "0130-engine-strays-and-x402": engineStraysAndX402Migration,
  "0135-escrow-v2-deposits": escrowV2DepositsMigration,
  "0136-escrow-expiry-needed": escrowExpiryNeededMigration,
  "0140-escrow-agent-assignment": escrowAgentAssignmentMigration,
  "0145-escrow-expiry-warnings": escrowExpiryWarningsMigration,
  "0146-escrow-funding-authorization": escrowFundingAuthorizationMigration,
  "0150-campaign-funding-engine": campaignFundingEngineMigration,
  "0155-escrow-outside-settlements": escrowOutsideSettlementsMigration,
  "0165-bid-wallet-requests": bidWalletRequestsMigration,
};

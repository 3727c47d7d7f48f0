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
import { webhooksMigration } from "./0018-webhooks";
import { certificationSessionsMigration } from "./0020-certification-sessions";
import { recordsAndMessagesMigration } from "./0021-records-and-messages";
import { adminMigration } from "./0017-admin";
import { notificationsMigration } from "./0022-notifications";
import { walletRemindersMigration } from "./0023-wallet-reminders";
import { jobSearchDocumentMigration } from "./0024-job-search-document";
import { boardSortIndexesMigration } from "./0025-board-sort-indexes";
import { jobBidCountMigration } from "./0026-job-bid-count";

// Every migration, by name. Names sort in the order they must run; a domain adds its own file
// (0002-escrow.ts, 0004-forum.ts, …) and one line here.
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
  "0018-webhooks": webhooksMigration,
  "0020-certification-sessions": certificationSessionsMigration,
  "0021-records-and-messages": recordsAndMessagesMigration,
  "0017-admin": adminMigration,
  "0022-notifications": notificationsMigration,
  "0023-wallet-reminders": walletRemindersMigration,
  "0024-job-search-document": jobSearchDocumentMigration,
  "0025-board-sort-indexes": boardSortIndexesMigration,
  "0026-job-bid-count": jobBidCountMigration,
};

import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import type { Worker } from "../context";
import { requireActor } from "../auth/actor";
import { requireOperator } from "../auth/operator";
import { dismissReport, listReports, reportPost } from "../forum/report-post";
import { moderatePost } from "../forum/moderate-post";
import { getAdminOverview } from "./get-overview";
import { reconcileEscrow } from "./reconcile-escrow";
import { resettleSettlement, retrySettlement } from "./retry-settlement";
import { listEscrowDeposits } from "./list-escrow-deposits";
import { listPeople } from "./list-people";
import { restoreAgent, restoreUser, suspendAgent, suspendUser } from "./suspend-principal";
import { listAuditLog } from "./list-audit";
import { getEscrowFees, withdrawFees } from "./escrow-fees";
import { addCampaignBudget, setCampaignPaused } from "../rewards/campaigns";

/** /v1/admin/*: the operator's console. Reads check the operator here; changes inside asOperator. */
export function registerAdminRoutes(router: ServiceRouter, workers: Worker[]) {
  router.implement(routes.getAdminOverview, async ({ ctx, actor }) => {
    await requireOperator(ctx, actor);
    return await getAdminOverview(ctx, workers);
  });
  router.implement(routes.getEscrowReconciliation, async ({ ctx, actor }) => {
    await requireOperator(ctx, actor);
    return await reconcileEscrow(ctx);
  });
  router.implement(routes.listEscrowDeposits, async ({ ctx, actor, query }) => {
    await requireOperator(ctx, actor);
    return listEscrowDeposits(ctx, query);
  });
  router.implement(routes.retrySettlement, ({ ctx, actor, params, body }) =>
    retrySettlement(ctx, actor, params.id, body.reason),
  );
  router.implement(routes.resettleSettlement, ({ ctx, actor, params, body }) =>
    resettleSettlement(ctx, actor, params.id, body),
  );
  router.implement(routes.listPeople, async ({ ctx, actor, query }) => {
    await requireOperator(ctx, actor);
    return listPeople(ctx, query);
  });
  router.implement(routes.suspendAgent, ({ ctx, actor, params, body }) =>
    suspendAgent(ctx, actor, params.id, body.reason),
  );
  router.implement(routes.restoreAgent, ({ ctx, actor, params, body }) =>
    restoreAgent(ctx, actor, params.id, body.reason),
  );
  router.implement(routes.suspendUser, ({ ctx, actor, params, body }) =>
    suspendUser(ctx, actor, params.id, body.reason),
  );
  router.implement(routes.restoreUser, ({ ctx, actor, params, body }) =>
    restoreUser(ctx, actor, params.id, body.reason),
  );
  router.implement(routes.listForumReports, ({ ctx, actor, query }) => listReports(ctx, actor, query));
  router.implement(routes.dismissForumReport, ({ ctx, actor, params, body }) =>
    dismissReport(ctx, actor, params.id, body.reason),
  );
  router.implement(routes.moderateForumPost, ({ ctx, actor, body }) => moderatePost(ctx, actor, body));
  router.implement(routes.addCampaignBudget, ({ ctx, actor, params, body }) =>
    addCampaignBudget(ctx, actor, params.id, body.slots, body.reason),
  );
  router.implement(routes.pauseCampaign, ({ ctx, actor, params, body }) =>
    setCampaignPaused(ctx, actor, params.id, true, body.reason),
  );
  router.implement(routes.resumeCampaign, ({ ctx, actor, params, body }) =>
    setCampaignPaused(ctx, actor, params.id, false, body.reason),
  );
  router.implement(routes.getEscrowFees, async ({ ctx, actor }) => getEscrowFees(ctx, actor));
  router.implement(routes.withdrawEscrowFees, ({ ctx, actor, body }) => withdrawFees(ctx, actor, body.reason));
  router.implement(routes.listAuditLog, async ({ ctx, actor, query }) => {
    await requireOperator(ctx, actor);
    return listAuditLog(ctx, query);
  });
  // POST /v1/forum/reports: any signed-in reader.
  router.implement(routes.reportForumPost, ({ ctx, actor, body }) => reportPost(ctx, requireActor(actor), body));
}

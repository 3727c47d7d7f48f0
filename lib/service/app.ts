import { buildOpenApiDocument } from "@/lib/api/openapi";
import type { ServiceContext } from "./context";
import { ServiceRouter, type ServiceApp } from "./router";
import { registerAgentRoutes } from "./agents/routes";
import { registerJobRoutes } from "./jobs/routes";
import { registerBidRoutes } from "./bids/routes";
import { registerAuthRoutes } from "./auth/routes";
import { registerDeliverableRoutes } from "./deliverables/routes";
import { registerMilestoneRoutes } from "./milestones/routes";
import { registerForumRoutes } from "./forum/routes";
import { registerEvalRoutes } from "./evals/routes";
import { registerJobModeRoutes } from "./job-modes/routes";
import { registerRewardRoutes } from "./rewards/routes";
import { registerOpsRoutes } from "./ops/routes";
import { registerMailRoutes } from "./mail/routes";
import { registerRecordRoutes } from "./records/routes";
import { registerReviewRoutes } from "./reviews/routes";
import { registerMessageRoutes } from "./messages/routes";
import { registerEventRoutes } from "./events/routes";
import { registerDisputeRoutes } from "./disputes/routes";
import { registerWebhookRoutes } from "./webhooks/routes";
import { registerAdminRoutes } from "./admin/routes";
import { registerNotificationRoutes } from "./notifications/routes";
import { workers } from "./workers";
import { releaseWaitingForWallet } from "./payout-wallet-set";
import { registerIdentityRoutes } from "./identity/routes";
import { assertEscrowWindowsFit } from "./jobs/escrow-expiry";

/** The whole /v1 service as one fetch handler: Next mounts it at /v1, tests and the bench serve it directly. */
export function createServiceApp(ctx: ServiceContext): ServiceApp {
  // A deployment with EscrowV2 hands out expiries: its windows must fit them, or it does not start.
  if (ctx.config.chain?.escrowV2Address) assertEscrowWindowsFit(ctx.config);
  const router = new ServiceRouter(ctx);
  registerAgentRoutes(router, { afterPayoutWalletSet: releaseWaitingForWallet });
  registerJobRoutes(router);
  registerBidRoutes(router);
  registerAuthRoutes(router);
  registerMailRoutes(router);
  registerDeliverableRoutes(router);
  registerMilestoneRoutes(router);
  registerForumRoutes(router);
  registerEvalRoutes(router);
  registerJobModeRoutes(router);
  registerWebhookRoutes(router);
  registerRewardRoutes(router);
  registerOpsRoutes(router, workers);
  registerRecordRoutes(router);
  registerReviewRoutes(router);
  registerMessageRoutes(router);
  registerAdminRoutes(router, workers);
  registerDisputeRoutes(router);
  registerNotificationRoutes(router);
  registerEventRoutes(router);
  registerIdentityRoutes(router);

  let openapi: unknown;
  // GET /v1/openapi.json
  router.app.get("/v1/openapi.json", (c) => c.json((openapi ??= buildOpenApiDocument())));
  return router.app;
}

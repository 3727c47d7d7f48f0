import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { addDisputeStatement } from "./add-statement";
import { disputeJob } from "./open-dispute";
import { getDispute, listDisputes, listMyCases } from "./present-dispute";
import { ruleDispute } from "./rule-dispute";
import { resettleRuling } from "./resettle-ruling";

export function registerDisputeRoutes(router: ServiceRouter) {
  // POST /v1/jobs/:id/dispute (defined with the deliverables' routes: the review's other way out)
  router.implement(routes.disputeJob, ({ ctx, actor, params, body }) => disputeJob(ctx, actor, params.id, body.reason));
  // GET /v1/jobs/:id/dispute
  router.implement(routes.getDispute, ({ ctx, actor, params }) => getDispute(ctx, actor, params.id));
  // POST /v1/jobs/:id/dispute/statements
  router.implement(routes.addDisputeStatement, ({ ctx, actor, params, body }) =>
    addDisputeStatement(ctx, actor, params.id, body),
  );
  // POST /v1/jobs/:id/dispute/ruling
  router.implement(routes.ruleDispute, ({ ctx, actor, params, body }) => ruleDispute(ctx, actor, params.id, body));
  // POST /v1/jobs/:id/dispute/resettle
  router.implement(routes.resettleRuling, ({ ctx, actor, params, body }) =>
    resettleRuling(ctx, actor, params.id, body),
  );
  // GET /v1/disputes
  // GET /v1/me/cases
  router.implement(routes.listMyCases, ({ ctx, actor, query }) => listMyCases(ctx, actor, query));
  router.implement(routes.listDisputes, ({ ctx, actor, query }) => listDisputes(ctx, actor, query));
}

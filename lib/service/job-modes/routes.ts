import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { lapseExpiredClaims } from "../jobs/read-job";
import { claimJob, releaseJobClaim } from "./claims";
import { getJobTree } from "./tree";
import { getShareCard, shareJob } from "./share";
import { evaluateJobCriteriaNow, listJobCriteria, overrideCriterion, tickCriterion } from "./criteria";

export function registerJobModeRoutes(router: ServiceRouter) {
  // POST /v1/jobs/:id/claim
  router.implement(routes.claimJob, ({ ctx, actor, params, body }) => claimJob(ctx, actor, params.id, body));
  // POST /v1/jobs/:id/release-claim
  router.implement(routes.releaseJobClaim, async ({ ctx, actor, params }) => {
    await lapseExpiredClaims(ctx, { jobId: params.id });
    return releaseJobClaim(ctx, actor, params.id);
  });
  // GET /v1/jobs/:id/children
  router.implement(routes.getJobTree, ({ ctx, actor, params }) => getJobTree(ctx, actor, params.id));
  // POST /v1/jobs/:id/share
  router.implement(routes.shareJob, ({ ctx, params, siteUrl }) => shareJob(ctx, params.id, siteUrl));
  // GET /v1/jobs/:id/share-card
  router.implement(routes.getJobShareCard, ({ ctx, params, siteUrl }) => getShareCard(ctx, params.id, siteUrl));
  // GET /v1/jobs/:id/criteria
  router.implement(routes.listJobCriteria, ({ ctx, actor, params }) => listJobCriteria(ctx, actor, params.id));
  // POST /v1/jobs/:id/criteria/evaluate
  router.implement(routes.evaluateJobCriteria, ({ ctx, actor, params }) =>
    evaluateJobCriteriaNow(ctx, actor, params.id),
  );
  // PUT /v1/jobs/:id/criteria/:criterionId
  router.implement(routes.tickJobCriterion, ({ ctx, actor, params, body }) =>
    tickCriterion(ctx, actor, params.id, params.criterionId, body.ticked),
  );
  // POST /v1/jobs/:id/criteria/:criterionId/override
  router.implement(routes.overrideJobCriterion, ({ ctx, actor, params, body }) =>
    overrideCriterion(ctx, actor, params.id, params.criterionId, body.reason),
  );
}

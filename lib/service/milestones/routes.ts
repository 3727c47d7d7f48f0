import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { getJobRowOrThrow } from "../jobs/read-job";
import { listMilestonesOf, partReaderOf } from "./present-milestone";
import {
  approveMilestone,
  cancelLateMilestone,
  disputeMilestone,
  requestMilestoneChanges,
  ruleMilestone,
  submitMilestone,
} from "./milestone-actions";

export function registerMilestoneRoutes(router: ServiceRouter) {
  // GET /v1/jobs/:id/milestones
  router.implement(routes.listMilestones, async ({ ctx, actor, params }) => {
    const job = await getJobRowOrThrow(ctx, params.id);
    return await listMilestonesOf(ctx.db, params.id, partReaderOf(actor, job));
  });
  // POST /v1/jobs/:id/milestones/:position/submit
  router.implement(routes.submitMilestone, ({ ctx, actor, params, body }) =>
    submitMilestone(ctx, actor, params.id, params.position, body.outputData.url),
  );
  // POST /v1/jobs/:id/milestones/:position/approve
  router.implement(routes.approveMilestone, ({ ctx, actor, params }) =>
    approveMilestone(ctx, actor, params.id, params.position),
  );
  // POST /v1/jobs/:id/milestones/:position/request-changes
  router.implement(routes.requestMilestoneChanges, ({ ctx, actor, params, body }) =>
    requestMilestoneChanges(ctx, actor, params.id, params.position, body.message),
  );
  // POST /v1/jobs/:id/milestones/:position/dispute
  router.implement(routes.disputeMilestone, ({ ctx, actor, params, body }) =>
    disputeMilestone(ctx, actor, params.id, params.position, body.reason),
  );
  // POST /v1/jobs/:id/milestones/:position/ruling
  router.implement(routes.ruleMilestone, ({ ctx, actor, params, body }) =>
    ruleMilestone(ctx, actor, params.id, params.position, body),
  );
  // POST /v1/jobs/:id/milestones/:position/cancel
  router.implement(routes.cancelLateMilestone, ({ ctx, actor, params }) =>
    cancelLateMilestone(ctx, actor, params.id, params.position),
  );
}

import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { createJob } from "./create-job";
import { listJobs } from "./list-jobs";
import { cancelJob } from "./cancel-job";
import { editJob } from "./edit-job";
import { presentJob } from "./present-job";
import { refreshEscrowExpiry, registerEscrow } from "./register-escrow";
import { fundJobBySignature } from "./fund-by-signature";
import { reportProgress } from "./report-progress";
import { reopenJob } from "./reopen-job";
import { jobViewerOf } from "./job-viewer";
import { getJobRowWithLapse } from "./read-job";
import { listJobEvents } from "./job-timeline";
import { budgetSuggestions } from "./budget-suggestions";

export function registerJobRoutes(router: ServiceRouter) {
  // GET /v1/jobs
  // The anonymous first page (no cursor) is the same for everyone: kept for a moment (router.ts).
  router.implement(routes.listJobs, ({ ctx, actor, query }) => listJobs(ctx, actor, query), {
    // A poll for changes (updatedAfter) reads the primary: its change horizon comes from the
    // primary's open transactions, which a standby cannot see.
    replica: ({ query }) => query.updatedAfter === undefined,
    sharedCache: ({ actor, query }) => actor === null && !query.cursor,
  });
  // GET /v1/jobs/budget-suggestions, before GET /v1/jobs/:id so that its path is not read as an id.
  // The same for everyone: kept for a moment (router.ts).
  router.implement(routes.getBudgetSuggestions, ({ ctx, query }) => budgetSuggestions(ctx, query), {
    replica: true,
    sharedCache: () => true,
  });
  // POST /v1/jobs
  router.implement(routes.createJob, ({ ctx, actor, body }) => createJob(ctx, actor, body));
  // GET /v1/jobs/:id (authenticated: the parties also read the proof-check fields; viewer for all)
  router.implement(routes.getJob, async ({ ctx, actor, params }) => {
    const row = await getJobRowWithLapse(ctx, params.id);
    return { ...presentJob(row, actor, { detail: true }), viewer: await jobViewerOf(ctx, actor, row) };
  });
  // GET /v1/jobs/:id/public (as to anyone, whatever credential comes with it)
  router.implement(
    routes.getPublicJob,
    async ({ ctx, params }) => presentJob(await getJobRowWithLapse(ctx, params.id), null),
    { replica: true },
  );
  // GET /v1/jobs/:id/events
  router.implement(routes.listJobEvents, ({ ctx, actor, params, query }) =>
    listJobEvents(ctx, actor, params.id, query),
  );
  // PATCH /v1/jobs/:id (the poster)
  router.implement(routes.updateJob, ({ ctx, actor, params, body }) => editJob(ctx, actor, params.id, body));
  // POST /v1/jobs/:id/cancel
  router.implement(routes.cancelJob, ({ ctx, actor, params }) => cancelJob(ctx, actor, params.id));
  // POST /v1/jobs/:id/heartbeat (the assigned agent's progress report)
  router.implement(routes.reportProgress, ({ ctx, actor, params, body }) =>
    reportProgress(ctx, actor, params.id, body),
  );
  // POST /v1/jobs/:id/reopen (the poster, a stalled job)
  router.implement(routes.reopenJob, ({ ctx, actor, params }) => reopenJob(ctx, actor, params.id));
  // PATCH /v1/jobs/:id/escrow
  router.implement(routes.registerEscrow, ({ ctx, actor, params, body }) =>
    registerEscrow(ctx, actor, params.id, body.txHash),
  );
  // POST /v1/jobs/:id/escrow/expiry
  router.implement(routes.fundJobBySignature, ({ ctx, actor, params, body }) =>
    fundJobBySignature(ctx, actor, params.id, body.signature),
  );
  router.implement(routes.refreshEscrowExpiry, ({ ctx, actor, params }) => refreshEscrowExpiry(ctx, actor, params.id));
}

import { fail } from "../errors";
import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { decodeCursor, keysetAfter, pageOf } from "../http/pagination";
import { submitDeliverable } from "./submit-deliverable";
import { isAgentOrItsOwner } from "../auth/acting-for-agent";
import { approveJob } from "./approve-job";
import { remindAgentWallet } from "./remind-agent-wallet";
import { requestChanges } from "./request-changes";

export function registerDeliverableRoutes(router: ServiceRouter) {
  // POST /v1/jobs/:id/submit
  router.implement(routes.submitDeliverable, ({ ctx, actor, params, body }) =>
    submitDeliverable(ctx, actor, params.id, body.outputData.url),
  );
  // POST /v1/jobs/:id/approve
  router.implement(routes.approveJob, ({ ctx, actor, params, body }) => approveJob(ctx, actor, params.id, body));
  // POST /v1/jobs/:id/request-changes
  router.implement(routes.requestChanges, ({ ctx, actor, params, body }) =>
    requestChanges(ctx, actor, params.id, body.message),
  );
  // POST /v1/jobs/:id/wallet-reminder
  router.implement(routes.remindAgentWallet, async ({ ctx, actor, params, siteUrl }) =>
    remindAgentWallet(ctx, actor, params.id, siteUrl),
  );
  // GET /v1/jobs/:id/proof-checks
  router.implement(routes.listProofChecks, async ({ ctx, actor, params, query }) => {
    const job = await ctx.db
      .selectFrom("jobs")
      .select(["poster_id", "agent_id"])
      .where("id", "=", params.id)
      .executeTakeFirst();
    if (!job) throw fail("NOT_FOUND", "job not found");
    if (job.poster_id !== actor.principalId && !(await isAgentOrItsOwner(ctx, actor, job.agent_id))) {
      throw fail("FORBIDDEN", "the proof history is visible to the poster and the assigned agent");
    }
    const limit = query.limit ?? 20;
    const after = decodeCursor(query.cursor);
    let q = ctx.db.selectFrom("proof_checks").selectAll().where("job_id", "=", params.id);
    if (after) q = q.where(keysetAfter(after, "checked_at", "id", "desc"));
    const rows = await q
      .orderBy("checked_at", "desc")
      .orderBy("id", "desc")
      .limit(limit + 1)
      .execute();
    const page = pageOf(rows, limit, (r) => ({ k: r.checked_at.toISOString(), id: r.id }));
    return {
      items: page.rows.map((r) => ({
        id: r.id,
        jobId: r.job_id,
        url: r.url,
        trigger: r.trigger,
        status: r.status,
        reason: r.reason,
        httpStatus: r.http_status,
        finalUrl: r.final_url,
        contentSha256: r.content_sha256,
        checkedAt: r.checked_at.toISOString(),
      })),
      meta: page.meta,
    };
  });
}

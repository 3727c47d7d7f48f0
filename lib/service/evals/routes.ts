import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { getPackDetail, listPacks } from "./packs";
import { startAttempt } from "./start-attempt";
import { submitAnswers } from "./submit-answers";
import { getAttempt, listAttempts } from "./attempts";
import { getCertificateByCode, listAgentCertifications } from "./certifications";
import { answerItem, finalizeSession, getReport, heartbeat, nextItem } from "./sessions";
import { editPack, getPackStats, publishPack } from "./publish-pack";
import { listPacksForReview, reviewPack } from "./review-packs";
import { isOperator } from "../auth/operator";

export function registerEvalRoutes(router: ServiceRouter) {
  // GET /v1/evals/packs
  router.implement(routes.listEvalPacks, ({ ctx, actor, query }) => listPacks(ctx, actor, query));
  // GET /v1/evals/packs/:id
  router.implement(routes.getEvalPack, ({ ctx, actor, params }) => getPackDetail(ctx, actor, params.id));
  // POST /v1/evals/packs/:id/attempts
  router.implement(routes.startEvalAttempt, ({ ctx, actor, params, body, clientIp, request, siteUrl, setHeader }) =>
    startAttempt(ctx, actor, params.id, body, clientIp, {
      paymentSignature: request.headers.get("payment-signature"),
      siteUrl,
      setHeader,
    }),
  );
  // POST /v1/evals/attempts/:id/answers
  router.implement(routes.submitEvalAnswers, ({ ctx, actor, params, body }) =>
    submitAnswers(ctx, actor, params.id, body.answers),
  );
  // GET /v1/evals/attempts/:id
  router.implement(routes.getEvalAttempt, ({ ctx, actor, params }) => getAttempt(ctx, actor, params.id));
  // GET /v1/evals/attempts
  router.implement(routes.listEvalAttempts, ({ ctx, actor, query }) => listAttempts(ctx, actor, query));
  // GET /v1/agents/:id/certifications
  router.implement(routes.listAgentCertifications, ({ ctx, params }) => listAgentCertifications(ctx, params.id));
  // POST /v1/evals/attempts/:id/next
  router.implement(routes.nextEvalItem, ({ ctx, actor, params }) => nextItem(ctx, actor, params.id));
  // POST /v1/evals/attempts/:id/answer
  router.implement(routes.answerEvalItem, ({ ctx, actor, params, body }) => answerItem(ctx, actor, params.id, body));
  // POST /v1/evals/attempts/:id/heartbeat
  router.implement(routes.heartbeatEvalAttempt, ({ ctx, actor, params }) => heartbeat(ctx, actor, params.id));
  // POST /v1/evals/attempts/:id/finalize
  router.implement(routes.finalizeEvalAttempt, ({ ctx, actor, params }) => finalizeSession(ctx, actor, params.id));
  // GET /v1/evals/attempts/:id/report
  router.implement(routes.getEvalReport, ({ ctx, actor, params }) => getReport(ctx, actor, params.id));
  // GET /v1/certifications/:code
  router.implement(routes.getCertificate, ({ ctx, params }) => getCertificateByCode(ctx, params.code));
  // POST /v1/evals/packs
  router.implement(routes.publishEvalPack, ({ ctx, actor, body }) => publishPack(ctx, actor, body));
  // PUT /v1/evals/packs/:id
  router.implement(routes.editEvalPack, ({ ctx, actor, params, body }) => editPack(ctx, actor, params.id, body));
  // GET /v1/evals/packs/:id/stats
  router.implement(routes.getEvalPackStats, async ({ ctx, actor, params }) =>
    getPackStats(ctx, actor, params.id, await isOperator(ctx, actor)),
  );
  // GET /v1/admin/packs
  router.implement(routes.listPacksForReview, ({ ctx, actor, query }) => listPacksForReview(ctx, actor, query));
  // POST /v1/admin/packs/:id/approve
  router.implement(routes.approveEvalPack, ({ ctx, actor, params, body }) =>
    reviewPack(ctx, actor, params.id, "APPROVED", body.reason),
  );
  // POST /v1/admin/packs/:id/refuse
  router.implement(routes.refuseEvalPack, ({ ctx, actor, params, body }) =>
    reviewPack(ctx, actor, params.id, "REFUSED", body.reason),
  );
}

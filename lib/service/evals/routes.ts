import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { getPackDetail, listPacks } from "./packs";
import { startAttempt } from "./start-attempt";
import { submitAnswers } from "./submit-answers";
import { getAttempt, listAttempts } from "./attempts";
import { listAgentCertifications } from "./certifications";

export function registerEvalRoutes(router: ServiceRouter) {
  // GET /v1/evals/packs
  router.implement(routes.listEvalPacks, ({ ctx, query }) => listPacks(ctx, query));
  // GET /v1/evals/packs/:id
  router.implement(routes.getEvalPack, ({ ctx, params }) => getPackDetail(ctx, params.id));
  // POST /v1/evals/packs/:id/attempts
  router.implement(routes.startEvalAttempt, ({ ctx, actor, params, body }) => startAttempt(ctx, actor, params.id, body));
  // POST /v1/evals/attempts/:id/answers
  router.implement(routes.submitEvalAnswers, ({ ctx, actor, params, body }) => submitAnswers(ctx, actor, params.id, body.answers));
  // GET /v1/evals/attempts/:id
  router.implement(routes.getEvalAttempt, ({ ctx, actor, params }) => getAttempt(ctx, actor, params.id));
  // GET /v1/evals/attempts
  router.implement(routes.listEvalAttempts, ({ ctx, actor, query }) => listAttempts(ctx, actor, query));
  // GET /v1/agents/:id/certifications
  router.implement(routes.listAgentCertifications, ({ ctx, params }) => listAgentCertifications(ctx, params.id));
}

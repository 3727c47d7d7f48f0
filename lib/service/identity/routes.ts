import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { requireActor } from "../auth/actor";
import { feedbackDocument, listAgentFeedback, prepareFeedbackResponse, prepareJobFeedback } from "./feedback";
import { confirmRegistration, declareIdentity, presentIdentity, registrationFile } from "./manage-identity";

export function registerIdentityRoutes(router: ServiceRouter) {
  // GET /v1/agents/:id/identity
  router.implement(routes.getAgentIdentity, async ({ ctx, params }) => presentIdentity(ctx, params.id));
  // PUT /v1/agents/:id/identity
  router.implement(routes.declareAgentIdentity, async ({ ctx, actor, params, body, siteUrl }) =>
    declareIdentity(ctx, requireActor(actor), params.id, body, siteUrl),
  );
  // POST /v1/agents/:id/identity/registration
  router.implement(routes.confirmAgentRegistration, async ({ ctx, actor, params, body }) =>
    confirmRegistration(ctx, requireActor(actor), params.id, body.txHash),
  );
  // GET /v1/agents/:id/registration.json
  router.implement(routes.getAgentRegistrationFile, ({ ctx, params, siteUrl }) =>
    registrationFile(ctx, params.id, siteUrl),
  );
  // GET /v1/agents/:id/feedback
  router.implement(routes.getAgentFeedback, async ({ ctx, params }) => listAgentFeedback(ctx, params.id));
  // POST /v1/jobs/:id/feedback
  router.implement(routes.prepareJobFeedback, async ({ ctx, actor, params, body, siteUrl }) =>
    prepareJobFeedback(ctx, requireActor(actor), params.id, body, siteUrl),
  );
  // GET /v1/feedback/:id
  router.implement(routes.getFeedbackDocument, ({ ctx, params }) => feedbackDocument(ctx, params.id));
  // POST /v1/agents/:id/feedback/responses
  router.implement(routes.prepareFeedbackResponse, async ({ ctx, actor, params, body }) =>
    prepareFeedbackResponse(ctx, requireActor(actor), params.id, body),
  );
}

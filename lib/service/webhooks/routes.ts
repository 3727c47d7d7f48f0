import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from "./manage-webhooks";
import { listWebhookDeliveries, redeliverWebhook, sendWebhookTest } from "./webhook-deliveries";

export function registerWebhookRoutes(router: ServiceRouter) {
  // GET /v1/agents/:id/webhooks
  router.implement(routes.listWebhooks, ({ ctx, actor, params }) => listWebhooks(ctx, actor, { agentId: params.id }));
  // POST /v1/agents/:id/webhooks
  router.implement(routes.createWebhook, ({ ctx, actor, params, body }) =>
    createWebhook(ctx, actor, { agentId: params.id }, body),
  );
  // GET /v1/agents/:id/webhooks/:webhookId
  router.implement(routes.getWebhook, ({ ctx, actor, params }) =>
    getWebhook(ctx, actor, { agentId: params.id }, params.webhookId),
  );
  // PATCH /v1/agents/:id/webhooks/:webhookId
  router.implement(routes.updateWebhook, ({ ctx, actor, params, body }) =>
    updateWebhook(ctx, actor, { agentId: params.id }, params.webhookId, body),
  );
  // DELETE /v1/agents/:id/webhooks/:webhookId
  router.implement(routes.deleteWebhook, ({ ctx, actor, params }) =>
    deleteWebhook(ctx, actor, { agentId: params.id }, params.webhookId),
  );
  // POST /v1/agents/:id/webhooks/:webhookId/rotate-secret
  router.implement(routes.rotateWebhookSecret, ({ ctx, actor, params }) =>
    rotateWebhookSecret(ctx, actor, { agentId: params.id }, params.webhookId),
  );
  // POST /v1/agents/:id/webhooks/:webhookId/test
  router.implement(routes.sendWebhookTest, ({ ctx, actor, params }) =>
    sendWebhookTest(ctx, actor, { agentId: params.id }, params.webhookId),
  );
  // GET /v1/agents/:id/webhooks/:webhookId/deliveries
  router.implement(routes.listWebhookDeliveries, ({ ctx, actor, params, query }) =>
    listWebhookDeliveries(ctx, actor, { agentId: params.id }, params.webhookId, query),
  );
  // POST /v1/agents/:id/webhooks/:webhookId/deliveries/:deliveryId/redeliver
  router.implement(routes.redeliverWebhook, ({ ctx, actor, params }) =>
    redeliverWebhook(ctx, actor, { agentId: params.id }, params.webhookId, params.deliveryId),
  );

  // A person's own endpoints: the events naming them (the jobs they posted).
  // GET /v1/me/webhooks
  router.implement(routes.listMyWebhooks, ({ ctx, actor }) => listWebhooks(ctx, actor, "me"));
  // POST /v1/me/webhooks
  router.implement(routes.createMyWebhook, ({ ctx, actor, body }) => createWebhook(ctx, actor, "me", body));
  // GET /v1/me/webhooks/:webhookId
  router.implement(routes.getMyWebhook, ({ ctx, actor, params }) => getWebhook(ctx, actor, "me", params.webhookId));
  // PATCH /v1/me/webhooks/:webhookId
  router.implement(routes.updateMyWebhook, ({ ctx, actor, params, body }) =>
    updateWebhook(ctx, actor, "me", params.webhookId, body),
  );
  // DELETE /v1/me/webhooks/:webhookId
  router.implement(routes.deleteMyWebhook, ({ ctx, actor, params }) =>
    deleteWebhook(ctx, actor, "me", params.webhookId),
  );
  // POST /v1/me/webhooks/:webhookId/rotate-secret
  router.implement(routes.rotateMyWebhookSecret, ({ ctx, actor, params }) =>
    rotateWebhookSecret(ctx, actor, "me", params.webhookId),
  );
  // POST /v1/me/webhooks/:webhookId/test
  router.implement(routes.sendMyWebhookTest, ({ ctx, actor, params }) =>
    sendWebhookTest(ctx, actor, "me", params.webhookId),
  );
  // GET /v1/me/webhooks/:webhookId/deliveries
  router.implement(routes.listMyWebhookDeliveries, ({ ctx, actor, params, query }) =>
    listWebhookDeliveries(ctx, actor, "me", params.webhookId, query),
  );
  // POST /v1/me/webhooks/:webhookId/deliveries/:deliveryId/redeliver
  router.implement(routes.redeliverMyWebhook, ({ ctx, actor, params }) =>
    redeliverWebhook(ctx, actor, "me", params.webhookId, params.deliveryId),
  );
}

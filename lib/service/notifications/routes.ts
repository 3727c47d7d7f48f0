import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { createSavedSearch, deleteSavedSearch, listSavedSearches } from "../jobs/saved-searches";
import { getUnreadNotificationCount, listNotifications, markAllNotificationsRead, markNotificationRead } from "./inbox";
import {
  describeUnsubscribe,
  getNotificationSettings,
  unsubscribe,
  updateNotificationSettings,
  verifyNotificationEmail,
} from "./settings";
import { streamJob } from "./stream-job";

export function registerNotificationRoutes(router: ServiceRouter) {
  // GET /v1/notifications
  router.implement(routes.listNotifications, ({ ctx, actor, query }) => listNotifications(ctx, actor, query));
  // GET /v1/notifications/unread-count
  router.implement(routes.getUnreadNotificationCount, ({ ctx, actor }) => getUnreadNotificationCount(ctx, actor));
  // POST /v1/notifications/read-all
  router.implement(routes.markAllNotificationsRead, ({ ctx, actor }) => markAllNotificationsRead(ctx, actor));
  // POST /v1/notifications/:id/read
  router.implement(routes.markNotificationRead, ({ ctx, actor, params }) =>
    markNotificationRead(ctx, actor, params.id),
  );
  // GET /v1/notifications/settings
  router.implement(routes.getNotificationSettings, ({ ctx, actor }) => getNotificationSettings(ctx, actor));
  // PATCH /v1/notifications/settings
  router.implement(routes.updateNotificationSettings, ({ ctx, actor, body, siteUrl }) =>
    updateNotificationSettings(ctx, actor, body, siteUrl),
  );
  // POST /v1/notifications/email/verify
  router.implement(routes.verifyNotificationEmail, ({ ctx, query }) => verifyNotificationEmail(ctx, query.token));
  // GET /v1/notifications/unsubscribe
  router.implement(routes.describeUnsubscribe, async ({ ctx, query }) => describeUnsubscribe(ctx, query.token));
  // POST /v1/notifications/unsubscribe
  router.implement(routes.unsubscribe, ({ ctx, query }) => unsubscribe(ctx, query.token));
  // GET /v1/jobs/:id/stream (text/event-stream)
  router.implement(
    routes.streamJob,
    ({ ctx, actor, params, request, clientIp }) => streamJob(ctx, actor, params.id, request, clientIp) as never,
  );
  // GET/POST /v1/saved-searches, DELETE /v1/saved-searches/:id
  router.implement(routes.listSavedSearches, ({ ctx, actor }) => listSavedSearches(ctx, actor));
  router.implement(routes.createSavedSearch, ({ ctx, actor, body }) => createSavedSearch(ctx, actor, body));
  router.implement(routes.deleteSavedSearch, ({ ctx, actor, params }) => deleteSavedSearch(ctx, actor, params.id));
}

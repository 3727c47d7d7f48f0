import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { listConversations } from "./list-conversations";
import { listMessages } from "./list-messages";
import { postMessage } from "./post-message";
import { markConversationRead } from "./mark-read";

export function registerMessageRoutes(router: ServiceRouter) {
  // GET /v1/jobs/:id/conversations
  router.implement(routes.listJobConversations, ({ ctx, actor, params }) => listConversations(ctx, actor, params.id));
  // GET /v1/jobs/:id/messages
  router.implement(routes.listJobMessages, ({ ctx, actor, params, query }) =>
    listMessages(ctx, actor, params.id, query),
  );
  // POST /v1/jobs/:id/messages
  router.implement(routes.postJobMessage, ({ ctx, actor, params, body }) => postMessage(ctx, actor, params.id, body));
  // POST /v1/jobs/:id/messages/read
  router.implement(routes.markJobMessagesRead, ({ ctx, actor, params, body }) =>
    markConversationRead(ctx, actor, params.id, body.with),
  );
}

import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { listAgentEvents, streamAgentEvents } from "./agent-feed";

export function registerEventRoutes(router: ServiceRouter) {
  // GET /v1/agents/:id/events
  router.implement(routes.listAgentEvents, ({ ctx, actor, params, query }) =>
    listAgentEvents(ctx, actor, params.id, query),
  );
  // GET /v1/agents/:id/events/stream
  router.implement(
    routes.streamAgentEvents,
    ({ ctx, actor, params, query, request, clientIp }) =>
      streamAgentEvents(ctx, actor, params.id, query.cursor, request, clientIp) as never,
  );
}

import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { listOutbox } from "./list-outbox";

export function registerMailRoutes(router: ServiceRouter) {
  // GET /v1/dev/outbox
  router.implement(routes.listOutbox, ({ ctx, query, forwarded }) =>
    listOutbox(ctx, { token: query.token, forwarded }),
  );
}

import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../http/router";
import { registerEscrow } from "./register-escrow";

export function registerEscrowRoutes(router: ServiceRouter) {
  // PATCH /v1/jobs/:id/escrow
  router.implement(routes.registerEscrow, ({ ctx, actor, params, body }) => registerEscrow(ctx, actor, params.id, body.txHash));
}

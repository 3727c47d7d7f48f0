import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { getAgentProfile, getRecords, getUserProfile } from "./get-profile";
import { moneyOverTime } from "./money-over-time";

export function registerRecordRoutes(router: ServiceRouter) {
  // GET /v1/agents/:id/profile
  router.implement(routes.getAgentProfile, ({ ctx, params }) => getAgentProfile(ctx, params.id), { replica: true });
  // GET /v1/users/:id/profile
  router.implement(routes.getUserProfile, ({ ctx, params }) => getUserProfile(ctx, params.id), { replica: true });
  // GET /v1/me/money
  router.implement(routes.getMyMoney, ({ ctx, actor, query }) => moneyOverTime(ctx, actor, query));
  // GET /v1/records
  router.implement(routes.getRecords, ({ ctx, query }) => getRecords(ctx, query), { replica: true });
}

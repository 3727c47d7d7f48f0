import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { listJobReviews, writeReview } from "./write-review";

export function registerReviewRoutes(router: ServiceRouter) {
  // POST /v1/jobs/:id/reviews
  router.implement(routes.createReview, ({ ctx, actor, params, body }) => writeReview(ctx, actor, params.id, body));
  // GET /v1/jobs/:id/reviews
  router.implement(routes.listJobReviews, ({ ctx, actor, params }) => listJobReviews(ctx, actor, params.id));
}

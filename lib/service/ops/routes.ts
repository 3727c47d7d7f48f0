import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import type { Worker } from "../context";
import { checkHealth, checkReadiness } from "./check-health";
import { computeStats, STATS_CACHE_SECONDS } from "./compute-stats";

export function registerOpsRoutes(router: ServiceRouter, workers: Worker[]) {
  // GET /v1/health
  router.implement(routes.getHealth, async ({ ctx, setStatus }) => {
    const health = await checkHealth(ctx, workers);
    // Degraded (money needs a person) still serves: 200, with the counts in the body.
    if (health.status === "down") setStatus(503);
    return health;
  });

  // GET /v1/health/ready
  router.implement(routes.getReadiness, async ({ ctx, setStatus }) => {
    const readiness = await checkReadiness(ctx);
    if (readiness.status !== "ok") setStatus(503);
    return readiness;
  });

  // Public figures are readable from any site: every answer (errors and the preflight too) allows
  // any origin. Registered before the route so it wraps it.
  router.app.use(routes.getStats.path, async (c, next) => {
    if (c.req.method === "OPTIONS") {
      return c.body(null, 204, {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, OPTIONS",
        "access-control-allow-headers": "content-type",
        "access-control-max-age": "86400",
      });
    }
    await next();
    c.res.headers.set("access-control-allow-origin", "*");
    if (c.res.status === 200) c.res.headers.set("cache-control", `public, max-age=${STATS_CACHE_SECONDS}`);
  });
  // GET /v1/stats
  router.implement(routes.getStats, async ({ ctx }) => computeStats(ctx), { replica: true });
}

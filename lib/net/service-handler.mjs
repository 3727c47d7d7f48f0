// How production answers /v1 without Next's routing. Next's route handler pipeline (matching,
// NextRequest, its response wrapping) cost more CPU per API call than the service itself, so
// scripts/server.mjs hands /v1/* to the service directly, through @hono/node-server's request
// listener. It uses the service that the build's own /v1 route (app/v1/[...path]/route.ts) loads:
// that module registers its handler on globalThis under this key when it first runs in a process,
// so the code that answers is the one Next compiled, once, and a process's first /v1 request simply
// takes the Next route. Both paths run the same handleServiceRequest (lib/service/instance.ts).
// Plain .mjs because scripts/server.mjs runs without a TypeScript loader; types in the .d.mts.

export const SERVICE_HANDLER_GLOBAL = "__awmServiceHandler";

/** Whether a raw request target is for the service (the Next route is /v1/[...path]). */
export function isServiceTarget(url) {
  return typeof url === "string" && url.startsWith("/v1/");
}

/** This process's service handler, once the /v1 route has registered it; else undefined. */
export function registeredServiceHandler() {
  return globalThis[SERVICE_HANDLER_GLOBAL];
}

/**
 * This process's service shutdown (stop the workers, close the database pools), registered with
 * the handler; scripts/server.mjs calls it once the server has stopped taking requests. Undefined
 * while no request has loaded the service (nothing to close).
 */
export const SERVICE_SHUTDOWN_GLOBAL = "__awmServiceShutdown";

export function registeredServiceShutdown() {
  return globalThis[SERVICE_SHUTDOWN_GLOBAL];
}

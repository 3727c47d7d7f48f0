import { handleServiceRequest } from "@/lib/service/instance";

// Every /v1 request goes to the built-in service unchanged; routing, auth and validation live there.
// In production only a process's first /v1 request comes this way: loading this route registers the
// service with scripts/server.mjs, which then answers /v1 without Next (lib/net/service-handler.mjs).
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Next passes the request body through as a stream (it buffers only for a proxy.ts/middleware, which
// this app has none of: adding one would buffer up to proxyClientMaxBodySize first), so the
// service's body limit (lib/service/router.ts) holds here too.
export {
  handleServiceRequest as GET,
  handleServiceRequest as POST,
  handleServiceRequest as PUT,
  handleServiceRequest as PATCH,
  handleServiceRequest as DELETE,
};

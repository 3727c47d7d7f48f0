import { clientIpOf, getService } from "@/lib/service/instance";

// Every /v1 request goes to the built-in service unchanged; routing, auth and validation live there.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Next passes the request body through as a stream (it buffers only for a proxy.ts/middleware, which
// this app has none of: adding one would buffer up to proxyClientMaxBodySize first), so the
// service's body limit (lib/service/router.ts) holds here too.
async function handle(request: Request): Promise<Response> {
  const { app } = await getService();
  return app.fetch(request, { clientIp: clientIpOf(request) });
}

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };

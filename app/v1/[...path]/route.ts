import { clientOf, getService } from "@/lib/service/instance";

// Every /v1 request goes to the built-in service unchanged; routing, auth and validation live there.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

async function handle(request: Request): Promise<Response> {
  const { app } = await getService();
  return app.fetch(request, clientOf(request));
}

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };

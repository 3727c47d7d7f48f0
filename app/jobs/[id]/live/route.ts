import { apiBaseUrl } from "@/lib/env";
import { speakForVisitor } from "@/lib/api/for-request";
import { Uuid } from "@/lib/api/schemas/common";
import { getSession } from "@/lib/session/session";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The job page's live updates for the browser: EventSource cannot send the session's credential,
 * which never leaves this server, so this relays GET /v1/jobs/:id/stream as the signed-in visitor
 * (anonymous when signed out). The service decides what the visitor may see; this adds nothing.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  if (!Uuid.safeParse(id).success) return new Response("not found", { status: 404 });
  const session = await getSession();
  const headers: Record<string, string> = { accept: "text/event-stream", ...speakForVisitor(request.headers) };
  if (session) headers.authorization = `Bearer ${session.token}`;
  let upstream: Response;
  try {
    upstream = await fetch(`${apiBaseUrl()}/v1/jobs/${id}/stream`, {
      headers,
      signal: request.signal,
      cache: "no-store",
    });
  } catch {
    return new Response("the service is not reachable", { status: 502 });
  }
  if (!upstream.ok || !upstream.body) return new Response(null, { status: upstream.status === 404 ? 404 : 502 });
  return new Response(upstream.body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

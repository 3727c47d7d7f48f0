import "server-only";
import { siteUrl } from "@/lib/env";
import { errorEnvelope } from "@/lib/api/schemas/errors";

/**
 * CSRF defence for the dashboard's own POST route handlers (server actions get Next's built-in
 * Origin check, see README.md here): a state-changing request must come from this site. Browsers
 * send Origin on every POST and Sec-Fetch-Site on every request; a cross-site form post carries
 * another origin and "cross-site". A request with neither header is not from a browser that could
 * hold a victim's cookie, but it is refused too: nothing legitimate posts here without them.
 */
export function isSameOriginRequest(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return false;
  const origin = request.headers.get("origin");
  if (!origin) return site === "same-origin";
  if (origin === "null") return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return false;
  }
  const hosts = [
    request.headers.get("x-forwarded-host")?.split(",")[0]?.trim(),
    request.headers.get("host"),
    new URL(siteUrl()).host,
  ];
  return hosts.some((h) => h && h === originHost);
}

/** The answer to a refused cross-site request, in the service's error envelope. */
export function crossSiteRefusal(): Response {
  return Response.json(errorEnvelope(403, "cross-site request refused", "CROSS_SITE_REQUEST"), { status: 403 });
}

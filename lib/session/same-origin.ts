import "server-only";

/**
 * CSRF defence for the dashboard's own POST route handlers (server actions get Next's built-in
 * Origin check): a state-changing request must come from this site. Browsers send Origin on POST
 * and Sec-Fetch-Site everywhere they can; a cross-site form post carries another origin.
 */
export function isSameOriginRequest(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return false;
  const origin = request.headers.get("origin");
  if (!origin) return site === "same-origin";
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

import { signOut } from "@/lib/session/session";
import { crossSiteRefusal, isSameOriginRequest } from "@/lib/session/same-origin";

// POST /sign-out: the header's sign-out form (works without JavaScript). Origin-checked: a
// cross-site page must not be able to sign a visitor out (or in) behind their back.
export async function POST(request: Request) {
  if (!isSameOriginRequest(request)) return crossSiteRefusal();
  await signOut();
  // 303: the browser follows with a GET. A relative Location keeps the host the visitor used.
  return new Response(null, { status: 303, headers: { location: "/" } });
}

import { NextResponse } from "next/server";
import { apiForRequest } from "@/lib/api/for-request";
import { signOut } from "@/lib/session/session";
import { isSameOriginRequest } from "@/lib/session/same-origin";

// POST /sign-out: ends the service session too, so a copied cookie is worthless afterwards.
export async function POST(request: Request) {
  if (!isSameOriginRequest(request)) {
    return NextResponse.json({ statusCode: 403, error: "Forbidden", message: "cross-site request refused" }, { status: 403 });
  }
  const token = await signOut();
  if (token?.startsWith("awm_us_")) await (await apiForRequest(token)).endSession({}).catch(() => undefined);
  return NextResponse.redirect(new URL("/", request.url), 303);
}

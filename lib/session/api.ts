import "server-only";
import { redirect } from "next/navigation";
import { apiForRequest } from "@/lib/api/for-request";
import type { ApiClient } from "@/lib/api/client";
import { getSession, type SessionData } from "./session";

/** A client acting as the signed-in visitor (anonymous when signed out). */
export async function sessionApi(): Promise<{ api: ApiClient; session: SessionData | null }> {
  const session = await getSession();
  return { api: await apiForRequest(session?.token), session };
}

/** For pages and actions that need a signed-in visitor: sends others to sign in, then back. */
export async function requireSessionApi(returnTo: string): Promise<{ api: ApiClient; session: SessionData }> {
  const { api, session } = await sessionApi();
  if (!session) redirect(`/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
  return { api, session };
}

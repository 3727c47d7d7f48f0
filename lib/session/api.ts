import "server-only";
import { redirect } from "next/navigation";
import { apiWithToken } from "@/lib/api/for-request";
import type { ApiClient } from "@/lib/api/client";
import { getSession, signInHref, type Session } from "./session";

/**
 * A client of the service (lib/api, at apiBaseUrl()) acting as the signed-in visitor, with the
 * credential from the sealed session; anonymous when signed out. Server components and server
 * actions only: the credential never leaves this server.
 */
export async function apiForRequest(): Promise<ApiClient> {
  return apiWithToken((await getSession())?.token);
}

/** The session and a client acting as it (anonymous when signed out). */
export async function sessionApi(): Promise<{ api: ApiClient; session: Session | null }> {
  const session = await getSession();
  return { api: await apiWithToken(session?.token), session };
}

/**
 * For pages and actions that need a signed-in visitor: sends others to sign in, then back to
 * `returnTo`. With `human: true`, a visitor signed in with an agent key is sent to sign in with a
 * wallet instead (claims and posting as a person need a human session).
 */
export async function requireSessionApi(
  returnTo: string,
  { human = false }: { human?: boolean } = {},
): Promise<{ api: ApiClient; session: Session }> {
  const { api, session } = await sessionApi();
  if (!session) redirect(signInHref(returnTo));
  if (human && session.kind !== "USER") redirect(signInHref(returnTo, { switch: "1" }));
  return { api, session };
}

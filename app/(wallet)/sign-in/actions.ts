"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { apiForRequest } from "@/lib/api/for-request";
import { ApiError } from "@/lib/api/errors";
import { signInWithToken, signOut } from "@/lib/session/session";
import { safeReturnTo } from "@/lib/session/return-to";

// Server actions of the sign-in page. Next checks their Origin against the host (CSRF); the
// service token they receive is sealed into the session cookie and never returned to the browser.

export async function createNonceAction(): Promise<string> {
  const api = await apiForRequest();
  return (await api.createSiweNonce({})).data.nonce;
}

export async function verifySignInAction(message: string, signature: string): Promise<boolean> {
  const api = await apiForRequest();
  try {
    const { data } = await api.verifySiwe({ body: { message, signature } });
    const address = data.user.address;
    await signInWithToken({ token: data.token, kind: "USER", label: `${address.slice(0, 6)}…${address.slice(-4)}`, expiresAt: data.expiresAt });
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

export async function signOutAction(): Promise<void> {
  await signOut();
}

const ApiKeyForm = z.object({ apiKey: z.string().trim().regex(/^awm_sk_[A-Za-z0-9_-]{20,}$/, "That is not an agent API key (it starts with awm_sk_)"), returnTo: z.string().optional() });

export interface ApiKeySignInState {
  error?: string;
}

/** An agent owner pastes the key once; it is checked with the service and kept only in the session. */
export async function signInWithApiKeyAction(_state: ApiKeySignInState, form: FormData): Promise<ApiKeySignInState> {
  const parsed = ApiKeyForm.safeParse({ apiKey: form.get("apiKey"), returnTo: form.get("returnTo") ?? undefined });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "Invalid key" };
  const api = await apiForRequest(parsed.data.apiKey);
  try {
    const me = await api.getMyAgent({});
    await signInWithToken({ token: parsed.data.apiKey, kind: "AGENT", label: me.data.id });
  } catch (error) {
    if (error instanceof ApiError) return { error: error.status === 401 ? "The service does not know this key." : error.message };
    throw error;
  }
  redirect(safeReturnTo(parsed.data.returnTo));
}

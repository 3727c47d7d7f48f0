"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { apiWithToken } from "@/lib/api/for-request";
import { ApiError } from "@/lib/api/errors";
import { signInWithToken, signOut } from "@/lib/session/session";
import { safeReturnTo } from "@/lib/session/return-to";
import { siteUrl } from "@/lib/env";

// Server actions of the sign-in page. Next 16 refuses a server action whose Origin is not this
// host (CSRF, see lib/session/README.md); the credential they obtain is sealed into the session
// cookie and never returned to the browser: the page learns only "signed in" or why not.

/** RainbowKit's getNonce: a fresh single-use nonce from the service. */
export async function createNonceAction(): Promise<string> {
  const api = await apiWithToken();
  return (await api.createSiweNonce({})).data.nonce;
}

export type VerifyResult = { ok: true } | { ok: false; error: string };

/** RainbowKit's verify: the service checks the EIP-4361 message and signature and issues a token. */
export async function verifySignInAction(message: string, signature: string): Promise<VerifyResult> {
  if (
    typeof message !== "string" ||
    typeof signature !== "string" ||
    message.length > 4000 ||
    signature.length > 1000
  ) {
    return { ok: false, error: "That is not a sign-in message." };
  }
  const api = await apiWithToken();
  try {
    const { data } = await api.verifySiwe({ body: { message, signature } });
    const address = data.user.address;
    await signInWithToken(data.token, data.expiresAt, "USER", `${address.slice(0, 6)}…${address.slice(-4)}`);
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: error.messages.join("; ") };
    throw error;
  }
}

/** RainbowKit's signOut (the account modal's "Disconnect" while signed in). */
export async function signOutAction(): Promise<void> {
  await signOut();
}

const ApiKeyForm = z.object({
  apiKey: z
    .string({ message: "Paste the agent's API key" })
    .trim()
    .min(1, "Paste the agent's API key")
    .regex(/^awm_sk_[A-Za-z0-9_-]{20,200}$/, "That is not an agent API key (it starts with awm_sk_)"),
  returnTo: z.string().optional(),
});

export interface ApiKeySignInState {
  error?: string;
}

/** A known key that was ended says how, so that its holder knows to fetch the new one. */
const KEY_REFUSALS: Record<string, string> = {
  KEY_REVOKED: "This key was revoked. Use another key of the agent, or create one on the agent's page.",
  KEY_EXPIRED: "This key has expired (it was rotated or given an expiry). Sign in with its replacement.",
};

/**
 * An agent owner pastes the key once; the service confirms it (GET /v1/agents/me) and it is kept
 * only in the sealed session. The form is never re-rendered with the key in it.
 */
export async function signInWithApiKeyAction(_state: ApiKeySignInState, form: FormData): Promise<ApiKeySignInState> {
  const parsed = ApiKeyForm.safeParse({
    apiKey: form.get("apiKey") ?? undefined,
    returnTo: form.get("returnTo") ?? undefined,
  });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "Invalid key" };
  const api = await apiWithToken(parsed.data.apiKey);
  try {
    const me = await api.getMyAgent({});
    await signInWithToken(parsed.data.apiKey, null, "AGENT", `${me.data.name} (${me.data.id})`);
  } catch (error) {
    if (error instanceof ApiError)
      return {
        error:
          error.status === 401
            ? (KEY_REFUSALS[error.code ?? ""] ?? "The service does not know this key.")
            : error.messages.join("; "),
      };
    throw error;
  }
  redirect(safeReturnTo(parsed.data.returnTo, siteUrl()));
}

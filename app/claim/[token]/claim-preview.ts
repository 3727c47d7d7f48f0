import { ApiError } from "@/lib/api/errors";
import { ClaimAgentParams, type AgentClaimPreview } from "@/lib/api/schemas/auth";
import type { sessionApi } from "@/lib/session/api";

// What an opened claim link claims, or the notice the page shows instead (page.tsx).

export const CLAIM_ERRORS: Record<string, { title: string; text: string }> = {
  used: {
    title: "This claim link was already used",
    text: "Each link works once. If you claimed the agent earlier, it is in My agents.",
  },
  expired: {
    title: "This claim link has expired",
    text: "Claim links are valid for a limited time. The agent can sign up again with your email to send a new one.",
  },
  unknown: {
    title: "This claim link is not valid",
    text: "Check that you opened the whole link from the mail; it may have been cut when it was copied.",
  },
  person: {
    title: "Claims are made by a person",
    text: "Sign in with your wallet (not with an agent key) and open the link again.",
  },
  failed: { title: "The claim did not go through", text: "Try again in a moment." },
};

/** Which notice a refused preview shows (the same as a refused claim). */
function previewError(error: unknown): string {
  if (!(error instanceof ApiError)) throw error;
  if (error.is("CLAIM_USED")) return "used";
  if (error.is("CLAIM_EXPIRED")) return "expired";
  if (error.status === 404 || error.status === 400) return "unknown";
  return "failed";
}

/** Which agent an open link claims (GET /v1/agent-claims/:token), or the notice to show instead. */
export async function previewOf(
  api: Awaited<ReturnType<typeof sessionApi>>["api"],
  token: string,
): Promise<{ preview: AgentClaimPreview } | { error: string }> {
  const params = ClaimAgentParams.safeParse({ token });
  if (!params.success) return { error: "unknown" };
  try {
    return { preview: (await api.previewAgentClaim({ params: params.data })).data };
  } catch (error) {
    return { error: previewError(error) };
  }
}

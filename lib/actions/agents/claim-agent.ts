"use server";

import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { ClaimAgentParams } from "@/lib/api/schemas/auth";
import { requireSessionApi } from "@/lib/session/api";

/** Which notice the claim page shows for a refusal (its ?error=). */
function claimError(error: unknown): string {
  if (!(error instanceof ApiError)) throw error;
  if (error.is("CLAIM_USED")) return "used";
  if (error.is("CLAIM_EXPIRED")) return "expired";
  if (error.status === 404 || error.status === 400) return "unknown";
  if (error.status === 403 || error.status === 401) return "person";
  return "failed";
}

/** POST /v1/agent-claims/:token as the signed-in person (a human session), then on to their agents. */
export async function claimAgentAction(token: string): Promise<void> {
  const returnTo = `/claim/${encodeURIComponent(String(token))}`;
  const params = ClaimAgentParams.safeParse({ token });
  if (!params.success) redirect(`${returnTo}?error=unknown`);
  const { api } = await requireSessionApi(returnTo, { human: true });
  let agentId: string;
  try {
    agentId = (await api.claimAgent({ params: params.data })).data.id;
  } catch (error) {
    redirect(`${returnTo}?error=${claimError(error)}`);
  }
  redirect(`/agents?claimed=${encodeURIComponent(agentId)}`);
}

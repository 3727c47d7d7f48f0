"use server";

import { revalidatePath } from "next/cache";
import { ApiError } from "@/lib/api/errors";
import { AgentIdParams } from "@/lib/api/schemas/agents";
import { IdParams } from "@/lib/api/schemas/common";
import { ConfirmIdentityRequest, DeclareIdentityRequest, FeedbackRequest } from "@/lib/api/schemas/identity";
import { requireSessionApi } from "@/lib/session/api";

export interface PreparedCallResult {
  ok: boolean;
  error?: string;
  call?: { chainId: number; to: `0x${string}`; data: `0x${string}` };
}

const failed = (error: unknown): PreparedCallResult => {
  if (error instanceof ApiError) return { ok: false, error: error.messages.join("; ") };
  throw error;
};

/** The owner declares the agent's services; answers the register(agentURI) call for their wallet. */
export async function declareIdentityAction(
  agentId: string,
  input: { API?: string; MCP?: string; A2A?: string; x402Support: boolean },
): Promise<PreparedCallResult> {
  const params = AgentIdParams.safeParse({ id: agentId });
  const services = Object.fromEntries(
    Object.entries({ API: input.API, MCP: input.MCP, A2A: input.A2A }).filter(([, v]) => v && v.trim() !== ""),
  );
  const body = DeclareIdentityRequest.safeParse({ services, x402Support: input.x402Support });
  if (!params.success) return { ok: false, error: "That is not an agent id." };
  if (!body.success)
    return { ok: false, error: body.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") };
  const { api } = await requireSessionApi(`/agents/${params.data.id}/identity`);
  try {
    const res = await api.declareAgentIdentity({ params: params.data, body: body.data });
    if (!res.data.registerCall) return { ok: false, error: "The agent is already registered on chain." };
    return { ok: true, call: res.data.registerCall as PreparedCallResult["call"] };
  } catch (error) {
    return failed(error);
  }
}

/** Hands the owner's register transaction to the service, which checks it on chain. */
export async function confirmRegistrationAction(
  agentId: string,
  txHash: string,
): Promise<{ ok: boolean; error?: string }> {
  const params = AgentIdParams.safeParse({ id: agentId });
  const body = ConfirmIdentityRequest.safeParse({ txHash });
  if (!params.success || !body.success) return { ok: false, error: "That is not an agent id and a transaction hash." };
  const { api } = await requireSessionApi(`/agents/${params.data.id}/identity`);
  try {
    await api.confirmAgentRegistration({ params: params.data, body: body.data });
  } catch (error) {
    return failed(error);
  }
  revalidatePath(`/agents/${params.data.id}`);
  return { ok: true };
}

/** The poster's feedback document and the giveFeedback call for their wallet. */
export async function prepareFeedbackAction(
  jobId: string,
  value: number,
  comment: string,
): Promise<PreparedCallResult> {
  const params = IdParams.safeParse({ id: jobId });
  const body = FeedbackRequest.safeParse({ value, ...(comment.trim() ? { comment: comment.trim() } : {}) });
  if (!params.success) return { ok: false, error: "That is not a job id." };
  if (!body.success)
    return { ok: false, error: "The rating is a whole number from 0 to 100; the comment at most 1000 characters." };
  const { api } = await requireSessionApi(`/jobs/${params.data.id}/feedback`);
  try {
    const res = await api.prepareJobFeedback({ params: params.data, body: body.data });
    return { ok: true, call: res.data.call as PreparedCallResult["call"] };
  } catch (error) {
    return failed(error);
  }
}

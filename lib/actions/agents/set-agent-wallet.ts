"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AgentIdParams, UpdateAgentRequest } from "@/lib/api/schemas/agents";
import { formAction, type FormState } from "../action";

export interface AgentWalletState extends FormState {
  saved?: { walletAddress: string | null };
}

/** An address sets the agent's payout wallet; an empty field removes it. The address rule is the request schema's. */
const WalletForm = z.object({
  agentId: AgentIdParams.shape.id,
  walletAddress: z
    .string()
    .trim()
    .transform((v) => (v === "" ? null : v))
    .pipe(UpdateAgentRequest.shape.walletAddress.unwrap()),
});

/** PATCH /v1/agents/:id { walletAddress } as the signed-in owner (or the agent's own key). */
export const setAgentWalletAction = formAction(
  WalletForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}`, keep: ["walletAddress"] },
  async ({ agentId, walletAddress }, { api }): Promise<AgentWalletState> => {
    const { data } = await api.updateAgent({ params: { id: agentId }, body: { walletAddress } });
    revalidatePath(`/agents/${data.id}`);
    return { saved: { walletAddress: data.walletAddress } };
  },
);

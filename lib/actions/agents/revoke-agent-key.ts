"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AgentKeyParams } from "@/lib/api/schemas/agents";
import { formAction, type FormState } from "../action";

export interface RevokeKeyState extends FormState {
  revoked?: { id: string; name: string };
}

const RevokeKeyForm = z.object({ agentId: AgentKeyParams.shape.id, keyId: AgentKeyParams.shape.keyId });

/** DELETE /v1/agents/:id/keys/:keyId: the key's next request is refused (401 KEY_REVOKED). */
export const revokeAgentKeyAction = formAction(
  RevokeKeyForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, keyId }, { api }): Promise<RevokeKeyState> => {
    const { data } = await api.revokeAgentKey({ params: { id: agentId, keyId } });
    revalidatePath(`/agents/${agentId}`);
    return { revoked: { id: data.id, name: data.name } };
  },
);

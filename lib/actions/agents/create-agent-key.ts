"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AgentIdParams, CreateApiKeyRequest } from "@/lib/api/schemas/agents";
import { formAction, type FormState } from "../action";

export interface NewKeyState extends FormState {
  /** The new key, its secret included: shown once in this answer, never stored by the dashboard. */
  created?: { id: string; name: string; secret: string };
}

const NewKeyForm = z.object({
  agentId: AgentIdParams.shape.id,
  name: CreateApiKeyRequest.shape.name,
  scopes: CreateApiKeyRequest.shape.scopes,
});

/** POST /v1/agents/:id/keys as the signed-in owner; the service decides which scopes it may grant. */
export const createAgentKeyAction = formAction(
  NewKeyForm,
  {
    signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}`,
    keep: ["name"],
    // Scopes are checkboxes: every checked one, and none checked is the service's default (all it may grant).
    read: (form, values) => {
      const scopes = form.getAll("scopes").map(String);
      return { agentId: values.agentId, name: values.name ?? "", scopes: scopes.length > 0 ? scopes : undefined };
    },
  },
  async ({ agentId, name, scopes }, { api }): Promise<NewKeyState> => {
    const { data } = await api.createAgentKey({
      params: { id: agentId },
      body: { name, ...(scopes ? { scopes } : {}) },
    });
    revalidatePath(`/agents/${agentId}`);
    return { created: { id: data.key.id, name: data.key.name, secret: data.secret } };
  },
);

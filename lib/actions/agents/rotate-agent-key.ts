"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AgentKeyParams, RotateApiKeyRequest } from "@/lib/api/schemas/agents";
import { formAction } from "../action";
import type { NewKeyState } from "./create-agent-key";

const RotateKeyForm = z.object({
  agentId: AgentKeyParams.shape.id,
  keyId: AgentKeyParams.shape.keyId,
  /** Hours in the form; the service takes seconds and bounds them (0 to 7 days). */
  overlapHours: z.coerce.number({ message: "must be a number of hours" }).min(0).max(168),
});

/** POST /v1/agents/:id/keys/:keyId/rotate: the old key keeps working for the overlap; the new secret is shown once. */
export const rotateAgentKeyAction = formAction(
  RotateKeyForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, keyId, overlapHours }, { api }): Promise<NewKeyState> => {
    const body = RotateApiKeyRequest.parse({ overlapSeconds: Math.round(overlapHours * 3600) });
    const { data } = await api.rotateAgentKey({ params: { id: agentId, keyId }, body });
    revalidatePath(`/agents/${agentId}`);
    return { created: { id: data.key.id, name: data.key.name, secret: data.secret } };
  },
);

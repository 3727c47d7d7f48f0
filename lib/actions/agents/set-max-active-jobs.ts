"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AgentIdParams, UpdateAgentRequest } from "@/lib/api/schemas/agents";
import { formAction, type FormState } from "../action";

export interface CapState extends FormState {
  saved?: { maxActiveJobs: number | null };
}

/** A number sets the cap (0 pauses new assignments); an empty field removes it (null). The bounds are the request schema's. */
const CapForm = z.object({
  agentId: AgentIdParams.shape.id,
  maxActiveJobs: z
    .string()
    .trim()
    .refine((v) => v === "" || /^\d+$/.test(v), "Enter a whole number of 0 or more, or leave it empty for no cap.")
    .transform((v) => (v === "" ? null : Number(v)))
    .pipe(UpdateAgentRequest.shape.maxActiveJobs.unwrap()),
});

/** PATCH /v1/agents/:id { maxActiveJobs } as the signed-in owner (or the agent's own key). */
export const setMaxActiveJobsAction = formAction(
  CapForm,
  { signIn: (v) => `/agents/${encodeURIComponent(v.agentId ?? "")}` },
  async ({ agentId, maxActiveJobs }, { api }): Promise<CapState> => {
    const { data } = await api.updateAgent({ params: { id: agentId }, body: { maxActiveJobs } });
    revalidatePath("/agents");
    revalidatePath(`/agents/${data.id}`);
    return { saved: { maxActiveJobs: data.maxActiveJobs ?? null } };
  },
);

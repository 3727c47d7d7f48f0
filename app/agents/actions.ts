"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

export interface CapState {
  error?: string[];
  saved?: { maxActiveJobs: number | null };
}

/** A number sets the cap (0 pauses new assignments); an empty field removes it. */
const CapForm = z.object({
  agentId: z.string().min(1).max(100),
  maxActiveJobs: z
    .string()
    .trim()
    .refine((v) => v === "" || /^\d+$/.test(v), "Enter a whole number of 0 or more, or leave it empty for no cap.")
    .transform((v) => (v === "" ? null : Number(v)))
    .refine((v) => v === null || v <= 1000, "At most 1000."),
});

/** PATCH /v1/agents/:id { maxActiveJobs } as the signed-in owner (or the agent's own key). */
export async function setMaxActiveJobsAction(_state: CapState, form: FormData): Promise<CapState> {
  const parsed = CapForm.safeParse({ agentId: form.get("agentId") ?? "", maxActiveJobs: form.get("maxActiveJobs") ?? "" });
  if (!parsed.success) return { error: parsed.error.issues.map((i) => i.message) };
  const { api } = await requireSessionApi("/agents");
  try {
    const { data } = await api.updateAgent({ params: { id: parsed.data.agentId }, body: { maxActiveJobs: parsed.data.maxActiveJobs } });
    revalidatePath("/agents");
    revalidatePath(`/agents/${data.id}`);
    return { saved: { maxActiveJobs: data.maxActiveJobs } };
  } catch (error) {
    if (error instanceof ApiError) return { error: error.messages };
    throw error;
  }
}

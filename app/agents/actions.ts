"use server";

import { revalidatePath } from "next/cache";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";

export interface CapState {
  error?: string;
  saved?: boolean;
}

/** A number sets the cap (0 pauses new assignments); an empty field removes it. */
export async function setMaxActiveJobsAction(_state: CapState, form: FormData): Promise<CapState> {
  const agentId = String(form.get("agentId"));
  const raw = String(form.get("maxActiveJobs") ?? "").trim();
  if (raw !== "" && !/^\d+$/.test(raw)) return { error: "Enter a whole number of 0 or more, or leave it empty for no cap." };
  const { api } = await requireSessionApi("/agents");
  try {
    await api.updateAgent({ params: { id: agentId }, body: { maxActiveJobs: raw === "" ? null : Number(raw) } });
  } catch (error) {
    if (error instanceof ApiError) return { error: error.messages.join("; ") };
    throw error;
  }
  revalidatePath("/agents");
  return { saved: true };
}

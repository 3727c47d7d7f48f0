"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { ListJobsQuery } from "@/lib/api/schemas/jobs";
import { requireSessionApi } from "@/lib/session/api";
import { formValues } from "../action";

const BOARD_FIELDS = [
  "q",
  "board",
  "status",
  "funded",
  "participationMode",
  "skills",
  "minBudget",
  "maxBudget",
  "requiredPackId",
  "maxProofHoldHours",
  "sort",
] as const;

/** "Save this search" on the board: the board's current query (its URL's fields), checked by the board's own schema. */
export async function saveSearchAction(form: FormData): Promise<void> {
  const values = formValues(form);
  const query = Object.fromEntries(BOARD_FIELDS.filter((f) => values[f]).map((f) => [f, values[f]!]));
  const back = `/jobs?${new URLSearchParams(query).toString()}`;
  const { api } = await requireSessionApi(back);
  const parsed = ListJobsQuery.safeParse(query);
  if (!parsed.success)
    redirect(
      `/settings/notifications?notice=${encodeURIComponent("That search cannot be saved: change its filters on the board first.")}`,
    );
  try {
    await api.createSavedSearch({
      body: { query, ...(values.name?.trim() ? { name: values.name.trim().slice(0, 100) } : {}) },
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    redirect(`/settings/notifications?notice=${encodeURIComponent(error.messages.join("; "))}#saved-searches`);
  }
  revalidatePath("/settings/notifications");
  redirect(
    `/settings/notifications?notice=${encodeURIComponent("Search saved: new jobs that match it will appear in your inbox.")}#saved-searches`,
  );
}

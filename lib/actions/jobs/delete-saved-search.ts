"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requireSessionApi } from "@/lib/session/api";

/** Deletes one saved search from the settings page. */
export async function deleteSavedSearchAction(form: FormData): Promise<void> {
  const { api } = await requireSessionApi("/settings/notifications");
  const id = z.uuid().safeParse(form.get("id"));
  if (id.success) await api.deleteSavedSearch({ params: { id: id.data } }).catch(() => undefined);
  revalidatePath("/settings/notifications");
}

"use server";

import { revalidatePath } from "next/cache";
import { requireSessionApi } from "@/lib/session/api";

/** The inbox's "Mark all read". */
export async function markAllReadAction(): Promise<void> {
  const { api } = await requireSessionApi("/inbox", { human: true });
  await api.markAllNotificationsRead({});
  revalidatePath("/", "layout");
}

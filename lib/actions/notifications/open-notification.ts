"use server";

import { redirect } from "next/navigation";
import { z } from "zod";
import { requireSessionApi } from "@/lib/session/api";
import { safeReturnTo } from "@/lib/session/return-to";
import { formValues } from "../action";

const Input = z.object({ id: z.uuid(), link: z.string().max(500).optional() });

/** Opens a notification from the inbox: marks it read, then goes to its page (a path of this site only). */
export async function openNotificationAction(form: FormData): Promise<void> {
  const { api } = await requireSessionApi("/inbox", { human: true });
  const parsed = Input.safeParse(formValues(form));
  if (!parsed.success) redirect("/inbox");
  await api.markNotificationRead({ params: { id: parsed.data.id } }).catch(() => undefined);
  redirect(parsed.data.link ? safeReturnTo(parsed.data.link) : "/inbox");
}

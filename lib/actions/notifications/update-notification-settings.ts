"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { NOTIFICATION_KIND_NAMES, UpdateNotificationSettingsRequest } from "@/lib/api/schemas/notifications";
import { requireSessionApi } from "@/lib/session/api";
import { formValues } from "../action";

const PAGE = "/settings/notifications";

/**
 * The settings form: one checkbox per kind (an unticked box is absent from the form, so every kind
 * is sent, on or off), and an address when one was typed.
 */
export async function updateNotificationSettingsAction(form: FormData): Promise<void> {
  const { api } = await requireSessionApi(PAGE, { human: true });
  const values = formValues(form);
  const emailKinds = Object.fromEntries(
    NOTIFICATION_KIND_NAMES.map((kind) => [kind, values[`email_${kind}`] === "on"]),
  );
  const email = values.email?.trim();
  const parsed = UpdateNotificationSettingsRequest.safeParse({
    email_kinds: emailKinds,
    followOnReply: values.follow_on_reply === "on",
    ...(email ? { email } : {}),
  });
  if (!parsed.success)
    redirect(
      `${PAGE}?notice=${encodeURIComponent(parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; "))}`,
    );
  try {
    await api.updateNotificationSettings({ body: parsed.data });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    redirect(`${PAGE}?notice=${encodeURIComponent(error.messages.join("; "))}`);
  }
  revalidatePath(PAGE);
  redirect(
    `${PAGE}?notice=${encodeURIComponent(email ? `Saved. A confirmation link was mailed to ${email}: mail goes there once you open it.` : "Saved.")}`,
  );
}

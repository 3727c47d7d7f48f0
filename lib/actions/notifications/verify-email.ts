"use server";

import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { apiWithToken } from "@/lib/api/for-request";

/** The confirmation page's button: no sign-in needed, the mailed token is the proof. */
export async function verifyEmailAction(form: FormData): Promise<void> {
  const token = String(form.get("token") ?? "").slice(0, 512);
  // Anonymous on purpose: the token is the proof, and a stale session must not stand in its way.
  const api = await apiWithToken();
  let done: string;
  try {
    done = `Confirmed: notifications will be mailed to ${(await api.verifyNotificationEmail({ query: { token } })).data.email}.`;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    done = error.messages.join("; ");
  }
  redirect(`/settings/notifications/verify?done=${encodeURIComponent(done)}`);
}

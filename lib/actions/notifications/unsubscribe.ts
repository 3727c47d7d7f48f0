"use server";

import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { apiWithToken } from "@/lib/api/for-request";

/** The unsubscribe page's button: works signed out, the signed token in the link is the proof. */
export async function unsubscribeAction(form: FormData): Promise<void> {
  const token = String(form.get("token") ?? "").slice(0, 512);
  // Anonymous on purpose: the token is the proof, and a stale session must not stand in its way.
  const api = await apiWithToken();
  let done: string;
  try {
    const { data } = await api.unsubscribe({ query: { token } });
    done = `Unsubscribed: no more mail about ${data.label.toLowerCase()}. Your inbox still shows them.`;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    done = error.messages.join("; ");
  }
  redirect(`/unsubscribe?done=${encodeURIComponent(done)}`);
}

"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { IdParams } from "@/lib/api/schemas/common";
import { sessionApi } from "@/lib/session/api";
import { formValues } from "../action";

/** POST /v1/jobs/:id/share (public, so no sign-in): counts the share, then shows the share page with its link. */
export async function shareJobAction(form: FormData): Promise<void> {
  const parsed = IdParams.safeParse({ id: formValues(form).jobId });
  if (!parsed.success) notFound();
  const jobId = parsed.data.id;
  const { api } = await sessionApi();
  await api.shareJob({ params: { id: jobId } });
  revalidatePath(`/jobs/${jobId}`);
  redirect(`/share/jobs/${jobId}?shared=1`);
}

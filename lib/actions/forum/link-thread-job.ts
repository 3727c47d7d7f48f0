"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { LinkJobRequest } from "@/lib/api/schemas/forum";
import { requireSessionApi } from "@/lib/session/api";
import { formValues } from "../action";

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * PUT /v1/forum/threads/:id/job from the thread page: its author links a hiring job they already
 * posted. The service checks the author and the job's owner (and that linking does not fund it);
 * a refusal comes back as the page's notice, as the service worded it.
 */
export async function linkThreadJobAction(form: FormData): Promise<void> {
  const values = formValues(form);
  const back = `/forum/${encodeURIComponent(values.slug ?? "")}`;
  const { api } = await requireSessionApi(back);
  // The field takes a job's id or its link (…/jobs/<id>): either carries the id.
  const body = LinkJobRequest.safeParse({ jobId: (values.jobId ?? "").match(UUID_IN_TEXT)?.[0] });
  if (!body.success)
    redirect(`${back}?notice=${encodeURIComponent("Choose one of your jobs, or paste a job's link or id.")}`);
  let notice: string | null = null;
  try {
    await api.linkThreadJob({ params: { id: values.threadId ?? "" }, body: body.data });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    notice = `The job was not linked: ${error.messages.join("; ")}`;
  }
  if (notice) redirect(`${back}?notice=${encodeURIComponent(notice)}`);
  revalidatePath(back);
  revalidatePath(`/jobs/${body.data.jobId}`);
  redirect(back);
}

"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { formAction, type FormState } from "../action";

export interface ReopenJobState extends FormState {
  done?: boolean;
}

// Form schemas are plain objects (not strict): Next adds its own fields to an action's form data.
const ReopenJobForm = z.object({ jobId: z.uuid({ message: "Unknown job." }) });

/** POST /v1/jobs/:id/reopen: the poster takes back a stalled job (the service checks who and when). */
export const reopenJobAction = formAction(
  ReopenJobForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}` },
  async ({ jobId }, { api }): Promise<ReopenJobState> => {
    await api.reopenJob({ params: { id: jobId } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: true };
  },
);

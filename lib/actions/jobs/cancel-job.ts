"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { formAction, type FormState } from "../action";

export interface CancelJobState extends FormState {
  done?: boolean;
}

const CancelJobForm = z.object({ jobId: z.uuid({ message: "Unknown job." }) });

/** POST /v1/jobs/:id/cancel: the poster cancels an OPEN job; a funded escrow is refunded to its payer. */
export const cancelJobAction = formAction(
  CancelJobForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}` },
  async ({ jobId }, { api }): Promise<CancelJobState> => {
    await api.cancelJob({ params: { id: jobId } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: true };
  },
);

"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { JOB_LIMITS } from "@/lib/api/schemas/jobs";
import { formAction, type FormState } from "../action";

export interface ShortenHoldState extends FormState {
  done?: boolean;
}

const ShortenHoldForm = z.object({
  jobId: z.uuid({ message: "Unknown job." }),
  proofHoldHours: z.coerce
    .number({ message: "A whole number of hours" })
    .int("A whole number of hours")
    .min(0, "0 or more")
    .max(JOB_LIMITS.proofHoldHoursMax),
});

/** PATCH /v1/jobs/:id {proofHoldHours}: the poster shortens the proof hold (the service refuses a longer one). */
export const shortenHoldAction = formAction(
  ShortenHoldForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, keep: ["proofHoldHours"] },
  async ({ jobId, proofHoldHours }, { api }): Promise<ShortenHoldState> => {
    await api.updateJob({ params: { id: jobId }, body: { proofHoldHours } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: true };
  },
);

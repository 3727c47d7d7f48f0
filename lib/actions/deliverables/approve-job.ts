"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "../action";
import { JobForm, deliveryRefusal, type DeliveryActionState } from "./delivery-state";

/** POST /v1/jobs/:id/approve: the poster approves; the service re-probes and releases when the hold has passed. */
export const approveJobAction = formAction(
  JobForm,
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}/review`,
    refused: (error, { jobId }) => {
      revalidatePath(`/jobs/${jobId}/review`); // a failed fresh check is now on the job and in the history
      return deliveryRefusal(error);
    },
  },
  async ({ jobId }, { api }): Promise<DeliveryActionState> => {
    await api.approveJob({ params: { id: jobId } });
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: "approved" };
  },
);

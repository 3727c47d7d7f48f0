"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "../action";
import { AssignmentSignature } from "@/lib/api/schemas/common";
import { JobForm, deliveryRefusal, type DeliveryActionState } from "./delivery-state";

/** The job, and on a job funded in EscrowV2 the payer's Approve signed in the browser (optional). */
const ApproveJobForm = JobForm.extend({ approvalSignature: AssignmentSignature.optional() });

/** POST /v1/jobs/:id/approve: the poster approves; the service re-probes and releases when the hold has passed. */
export const approveJobAction = formAction(
  ApproveJobForm,
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}/review`,
    refused: (error, { jobId }) => {
      revalidatePath(`/jobs/${jobId}/review`); // a failed fresh check is now on the job and in the history
      return deliveryRefusal(error);
    },
  },
  async ({ jobId, approvalSignature }, { api }): Promise<DeliveryActionState> => {
    await api.approveJob({ params: { id: jobId }, body: approvalSignature ? { approvalSignature } : {} });
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: "approved" };
  },
);

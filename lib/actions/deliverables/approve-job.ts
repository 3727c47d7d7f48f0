"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { ApproveJobRequest } from "@/lib/api/schemas/deliverables";
import { formAction } from "../action";
import { AssignmentSignature } from "@/lib/api/schemas/common";
import { JobForm, deliveryRefusal, type DeliveryActionState } from "./delivery-state";

// Form schemas are plain objects (not strict): Next adds its own fields to an action's form data.
// On a job funded in EscrowV2 the form may carry the payer's Approve signed in the browser
// (optional, kept for the agent) and, for a slot paying no agent yet, the payer's Assign.
const ApproveForm = z.object({
  ...JobForm.shape,
  assignmentSignature: ApproveJobRequest.shape.assignmentSignature,
  approvalSignature: AssignmentSignature.optional(),
});

/**
 * POST /v1/jobs/:id/approve: the poster approves; the service re-probes and releases when the hold
 * has passed. On an EscrowV2 job whose slot pays no agent yet (a bounty's claim) the service first
 * asks for the payer's Assign (409 ASSIGNMENT_SIGNATURE_REQUIRED): the state carries it, the form
 * asks the wallet and sends the approval again with the signature.
 */
export const approveJobAction = formAction(
  ApproveForm,
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}/review`,
    refused: (error, { jobId }): DeliveryActionState => {
      revalidatePath(`/jobs/${jobId}/review`); // a failed fresh check is now on the job and in the history
      return error.is("ASSIGNMENT_SIGNATURE_REQUIRED") || error.is("ASSIGNMENT_SIGNATURE_INVALID")
        ? { ...deliveryRefusal(error), assignment: error.extra.assignment }
        : deliveryRefusal(error);
    },
  },
  async ({ jobId, assignmentSignature, approvalSignature }, { api }): Promise<DeliveryActionState> => {
    await api.approveJob({
      params: { id: jobId },
      body: {
        ...(assignmentSignature ? { assignmentSignature } : {}),
        ...(approvalSignature ? { approvalSignature } : {}),
      },
    });
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: "approved" };
  },
);

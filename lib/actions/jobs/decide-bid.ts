"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { AcceptBidRequest, JobBidParams, type AssignmentTypedData } from "@/lib/api/schemas/bids";
import { formAction, refusalOf, type FormState } from "../action";

export interface BidDecisionState extends FormState {
  /** Extra fields of the refusal (AGENT_AT_CAPACITY carries maxActiveJobs and activeJobs). */
  details?: { maxActiveJobs?: number; activeJobs?: number };
  done?: "accept" | "reject";
  /**
   * A job funded in EscrowV2: the EIP-712 Assign the poster's wallet signs before the bid is
   * accepted (409 ASSIGNMENT_SIGNATURE_REQUIRED, or a fresh one after a refused signature); the
   * dialog asks the wallet and sends the decision again with the signature.
   */
  assignment?: AssignmentTypedData;
}

// Form schemas are plain objects (not strict): Next adds its own fields to an action's form data.
const DecideBidForm = z.object({
  ...JobBidParams.shape,
  decision: z.enum(["accept", "reject"], { message: "Choose accept or reject." }),
  ...AcceptBidRequest.shape,
});

/** Accept or reject a bid (the poster only; the service checks). */
export const decideBidAction = formAction(
  DecideBidForm,
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}`,
    refused: (error): BidDecisionState =>
      error.is("AGENT_AT_CAPACITY")
        ? {
            ...refusalOf(error),
            details: { maxActiveJobs: error.extra.maxActiveJobs, activeJobs: error.extra.activeJobs },
          }
        : error.is("ASSIGNMENT_SIGNATURE_REQUIRED") || error.is("ASSIGNMENT_SIGNATURE_INVALID")
          ? { ...refusalOf(error), assignment: error.extra.assignment }
          : refusalOf(error),
  },
  async ({ jobId, bidId, decision, assignmentSignature }, { api }): Promise<BidDecisionState> => {
    if (decision === "accept")
      await api.acceptBid({ params: { jobId, bidId }, body: assignmentSignature ? { assignmentSignature } : {} });
    else await api.rejectBid({ params: { jobId, bidId } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: decision };
  },
);

"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { JobBidParams } from "@/lib/api/schemas/bids";
import { formAction, refusalOf, type FormState } from "../action";

export interface BidDecisionState extends FormState {
  /** Extra fields of the refusal (AGENT_AT_CAPACITY carries maxActiveJobs and activeJobs). */
  details?: { maxActiveJobs?: number; activeJobs?: number };
  done?: "accept" | "reject";
}

// Form schemas are plain objects (not strict): Next adds its own fields to an action's form data.
const DecideBidForm = z.object({
  ...JobBidParams.shape,
  decision: z.enum(["accept", "reject"], { message: "Choose accept or reject." }),
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
        : refusalOf(error),
  },
  async ({ jobId, bidId, decision }, { api }): Promise<BidDecisionState> => {
    if (decision === "accept") await api.acceptBid({ params: { jobId, bidId } });
    else await api.rejectBid({ params: { jobId, bidId } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: decision };
  },
);

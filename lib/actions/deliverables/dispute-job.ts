"use server";

import { revalidatePath } from "next/cache";
import { DisputeRequest } from "@/lib/api/schemas/deliverables";
import { formAction } from "../action";
import { JobForm, refusalUnder, type DeliveryActionState } from "./delivery-state";

/** POST /v1/jobs/:id/dispute with the reason both sides will see. */
export const disputeJobAction = formAction(
  JobForm.extend(DisputeRequest.shape),
  { signIn: (v) => `/jobs/${v.jobId ?? ""}/review`, keep: ["reason"], refused: refusalUnder("reason") },
  async ({ jobId, reason }, { api }): Promise<DeliveryActionState> => {
    await api.disputeJob({ params: { id: jobId }, body: { reason } });
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: "disputed" };
  },
);

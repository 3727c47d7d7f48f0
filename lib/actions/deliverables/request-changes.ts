"use server";

import { revalidatePath } from "next/cache";
import { RequestChangesRequest } from "@/lib/api/schemas/jobs";
import { formAction } from "../action";
import { JobForm, refusalUnder, type DeliveryActionState } from "./delivery-state";

/** POST /v1/jobs/:id/request-changes: the delivered work goes back to the agent with the poster's message. */
export const requestChangesAction = formAction(
  JobForm.extend(RequestChangesRequest.shape),
  { signIn: (v) => `/jobs/${v.jobId ?? ""}/review`, keep: ["message"], refused: refusalUnder("message") },
  async ({ jobId, message }, { api }): Promise<DeliveryActionState> => {
    await api.requestChanges({ params: { id: jobId }, body: { message } });
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: "changes requested" };
  },
);

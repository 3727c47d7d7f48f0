"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { DisputeRequest } from "@/lib/api/schemas/deliverables";
import { RequestChangesRequest } from "@/lib/api/schemas/jobs";
import { formAction } from "../action";
import { JobForm, deliveryRefusal, refusalUnder, type DeliveryActionState } from "../deliverables/delivery-state";

/** Every milestone form names its job and the part's position. */
const PartForm = JobForm.extend({ position: z.coerce.number().int().min(1) });

/** POST /v1/jobs/:id/milestones/:position/approve: the poster approves one part; it is released once its hold has passed. */
export const approveMilestoneAction = formAction(
  PartForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, refused: (error) => deliveryRefusal(error) },
  async ({ jobId, position }, { api }): Promise<DeliveryActionState> => {
    await api.approveMilestone({ params: { id: jobId, position } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: "approved" };
  },
);

/** POST /v1/jobs/:id/milestones/:position/dispute: freezes that part only. */
export const disputeMilestoneAction = formAction(
  PartForm.extend(DisputeRequest.shape),
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, keep: ["reason"], refused: refusalUnder("reason") },
  async ({ jobId, position, reason }, { api }): Promise<DeliveryActionState> => {
    await api.disputeMilestone({ params: { id: jobId, position }, body: { reason } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: "disputed" };
  },
);

/** POST /v1/jobs/:id/milestones/:position/cancel: the poster takes back a late part; it is refunded on chain. */
export const cancelLateMilestoneAction = formAction(
  PartForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, refused: (error) => deliveryRefusal(error) },
  async ({ jobId, position }, { api }): Promise<DeliveryActionState> => {
    await api.cancelLateMilestone({ params: { id: jobId, position } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: "cancelled" };
  },
);

/** POST /v1/jobs/:id/milestones/:position/request-changes: the part goes back to the agent with the poster's message. */
export const requestMilestoneChangesAction = formAction(
  PartForm.extend(RequestChangesRequest.shape),
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, keep: ["message"], refused: refusalUnder("message") },
  async ({ jobId, position, message }, { api }): Promise<DeliveryActionState> => {
    await api.requestMilestoneChanges({ params: { id: jobId, position }, body: { message } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: "changes requested" };
  },
);

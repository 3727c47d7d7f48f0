"use server";

import { revalidatePath } from "next/cache";
import { RuleDisputeRequest } from "@/lib/api/schemas/disputes";
import { formAction } from "../action";
import { deliveryRefusal, JobForm, type DeliveryActionState } from "../deliverables/delivery-state";

/** POST /v1/jobs/:id/dispute/ruling: the arbiter's decision (agentShare only with SPLIT). */
export const ruleDisputeAction = formAction(
  JobForm.extend(RuleDisputeRequest.shape),
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}`,
    human: true,
    keep: ["outcome", "agentShare", "reason"],
    read: (_form, values) => ({
      jobId: values.jobId,
      outcome: values.outcome,
      reason: values.reason,
      ...(values.outcome === "SPLIT" ? { agentShare: values.agentShare } : {}),
    }),
    refused: (error) => (error.status === 400 ? { fields: { reason: error.messages } } : deliveryRefusal(error)),
  },
  async ({ jobId, outcome, agentShare, reason }, { api }): Promise<DeliveryActionState> => {
    await api.ruleDispute({
      params: { id: jobId },
      body: { outcome, reason, ...(outcome === "SPLIT" ? { agentShare } : {}) },
    });
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath(`/admin/disputes`);
    revalidatePath("/cases");
    revalidatePath(`/admin/disputes/${jobId}`);
    return { done: "ruled" };
  },
);

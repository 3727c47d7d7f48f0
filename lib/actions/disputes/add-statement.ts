"use server";

import { revalidatePath } from "next/cache";
import { AddDisputeStatementRequest } from "@/lib/api/schemas/disputes";
import { formAction } from "../action";
import { JobForm, refusalUnder, type DeliveryActionState } from "../deliverables/delivery-state";

/** POST /v1/jobs/:id/dispute/statements: a statement and its evidence URLs (one per line). */
export const addStatementAction = formAction(
  JobForm.extend(AddDisputeStatementRequest.shape),
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}`,
    keep: ["body", "evidenceUrls"],
    read: (_form, values) => ({
      jobId: values.jobId,
      body: values.body,
      evidenceUrls: (values.evidenceUrls ?? "")
        .split(/\s+/)
        .map((u) => u.trim())
        .filter(Boolean),
    }),
    refused: refusalUnder("body"),
  },
  async ({ jobId, body, evidenceUrls }, { api }): Promise<DeliveryActionState> => {
    await api.addDisputeStatement({ params: { id: jobId }, body: { body, evidenceUrls } });
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath(`/admin/disputes/${jobId}`);
    return { done: "statement" };
  },
);

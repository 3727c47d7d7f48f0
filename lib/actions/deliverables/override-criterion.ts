"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { OverrideCriterionRequest } from "@/lib/api/schemas/job-modes";
import { formAction } from "../action";
import { JobForm, refusalUnder, type DeliveryActionState } from "./delivery-state";

const OverrideForm = JobForm.extend({ criterionId: z.string().min(1).max(100), ...OverrideCriterionRequest.shape });

/** POST /v1/jobs/:id/criteria/:criterionId/override: the poster accepts a criterion whatever its check says. */
export const overrideCriterionAction = formAction(
  OverrideForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}/review`, keep: ["reason"], refused: refusalUnder("reason") },
  async ({ jobId, criterionId, reason }, { api }): Promise<DeliveryActionState> => {
    await api.overrideJobCriterion({ params: { id: jobId, criterionId }, body: { reason } });
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: "overridden" };
  },
);

"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { formAction } from "../action";
import { JobForm, type DeliveryActionState } from "./delivery-state";

// The form sends "true" or "false" (a checkbox's state travels as a hidden field the button sets).
const TickForm = JobForm.extend({ criterionId: z.string().min(1).max(100), ticked: z.enum(["true", "false"]) });

/** PUT /v1/jobs/:id/criteria/:criterionId: the poster ticks (or unticks) a manual acceptance criterion. */
export const tickCriterionAction = formAction(
  TickForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}/review` },
  async ({ jobId, criterionId, ticked }, { api }): Promise<DeliveryActionState> => {
    await api.tickJobCriterion({ params: { id: jobId, criterionId }, body: { ticked: ticked === "true" } });
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: ticked === "true" ? "ticked" : "unticked" };
  },
);

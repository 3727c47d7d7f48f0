"use server";

import { revalidatePath } from "next/cache";
import { formAction } from "../action";
import { JobForm, deliveryRefusal, type DeliveryActionState } from "./delivery-state";

/** POST /v1/jobs/:id/criteria/evaluate: run the machine checks again now. */
export const evaluateCriteriaAction = formAction(
  JobForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}/review`, refused: deliveryRefusal },
  async ({ jobId }, { api }): Promise<DeliveryActionState> => {
    await api.evaluateJobCriteria({ params: { id: jobId } });
    revalidatePath(`/jobs/${jobId}/review`);
    return { done: "evaluated" };
  },
);

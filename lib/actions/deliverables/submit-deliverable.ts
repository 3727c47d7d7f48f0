"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { SubmitDeliverableRequest } from "@/lib/api/schemas/deliverables";
import { formAction } from "../action";
import { JobForm, refusalUnder, type DeliveryActionState } from "./delivery-state";

const SubmitForm = JobForm.extend({ url: z.string().trim().pipe(SubmitDeliverableRequest.shape.outputData.shape.url) });
const underUrl = refusalUnder("url");

/** POST /v1/jobs/:id/submit: the assigned agent (its key or its owner) hands in the deliverable URL. */
export const submitDeliverableAction = formAction(
  SubmitForm,
  {
    signIn: (v) => `/jobs/${v.jobId ?? ""}/submit`,
    keep: ["url"],
    refused: (error, { jobId }) => {
      if (error.status !== 400) revalidatePath(`/jobs/${jobId}/submit`); // the refused attempt joins the probe history
      return underUrl(error);
    },
  },
  async ({ jobId, url }, { api }): Promise<DeliveryActionState> => {
    await api.submitDeliverable({ params: { id: jobId }, body: { outputData: { url } } });
    revalidatePath(`/jobs/${jobId}`);
    redirect(`/jobs/${jobId}/review?submitted=1`);
  },
);

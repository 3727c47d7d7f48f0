"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { CreateReviewRequest } from "@/lib/api/schemas/records";
import { formAction, type FormState } from "../action";

export interface CreateReviewState extends FormState {
  done?: boolean;
}

// The rating arrives as the text of a radio button: the request schema's own number rule judges it.
const ReviewForm = z.object({
  jobId: z.uuid({ message: "Unknown job." }),
  rating: z.coerce.number({ message: "Choose a rating from 1 to 5." }).pipe(CreateReviewRequest.shape.rating),
  body: CreateReviewRequest.shape.body,
});

/** POST /v1/jobs/:id/reviews: the poster rates the agent, or the agent's owner rates the poster (the service decides the side). */
export const createReviewAction = formAction(
  ReviewForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, keep: ["body", "rating"] },
  async ({ jobId, rating, body }, { api }): Promise<CreateReviewState> => {
    await api.createReview({ params: { id: jobId }, body: { rating, body } });
    revalidatePath(`/jobs/${jobId}`);
    return { done: true };
  },
);

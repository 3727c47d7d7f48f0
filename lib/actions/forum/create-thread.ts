"use server";

import { randomUUID } from "node:crypto";
import { redirect } from "next/navigation";
import { z } from "zod";
import { CreateThreadRequest } from "@/lib/api/schemas/forum";
import { formAction } from "../action";
import { postRefusal, type PostState } from "./post-state";

// An empty select (no intent) or no referrer is an absent field, not an empty string.
const blankIsAbsent = (value: unknown) => (value === "" ? undefined : value);
const NewThreadForm = z.object({
  ...CreateThreadRequest.shape,
  intent: z.preprocess(blankIsAbsent, CreateThreadRequest.shape.intent),
  referredByAgentId: z.preprocess(blankIsAbsent, CreateThreadRequest.shape.referredByAgentId),
});

/**
 * POST /v1/forum/threads as whoever the session's credential is; retries of the same form reuse
 * its Idempotency-Key (a new key only after a refusal that was not about this payload).
 */
export const createThreadAction = formAction<typeof NewThreadForm, PostState>(
  NewThreadForm,
  {
    signIn: () => "/forum/new",
    carry: ["idempotencyKey"],
    refused: (error, _input, state): PostState => ({
      ...postRefusal(error),
      idempotencyKey: error.status === 409 || error.status === 400 ? state.idempotencyKey : randomUUID(),
    }),
  },
  async (input, { api, state }): Promise<PostState> => {
    const { data } = await api.createThread({ idempotencyKey: state.idempotencyKey, body: input });
    redirect(`/forum/${data.slug}`);
  },
);

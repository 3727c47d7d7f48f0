"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { PostMessageRequest } from "@/lib/api/schemas/messages";
import { formAction, type FormState } from "../action";

export interface PostMessageState extends FormState {
  /** Bumped on each sent message, so the form clears its textarea. */
  sent?: number;
}

const MessageForm = z.object({
  jobId: z.uuid({ message: "Unknown job." }),
  with: PostMessageRequest.shape.with,
  body: PostMessageRequest.shape.body,
});

/** POST /v1/jobs/:id/messages: the poster to one agent, or an agent's owner for its agent. */
export const postMessageAction = formAction<typeof MessageForm, PostMessageState>(
  MessageForm,
  { signIn: (v) => `/jobs/${v.jobId ?? ""}`, keep: ["body"], carry: ["sent"] },
  async ({ jobId, with: agentId, body }, { api, state }): Promise<PostMessageState> => {
    await api.postJobMessage({ params: { id: jobId }, body: { body, ...(agentId ? { with: agentId } : {}) } });
    revalidatePath(`/jobs/${jobId}`);
    return { sent: (state.sent ?? 0) + 1 };
  },
);

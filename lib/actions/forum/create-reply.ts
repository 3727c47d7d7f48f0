"use server";

import { randomUUID } from "node:crypto";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { CreateReplyRequest } from "@/lib/api/schemas/forum";
import { formAction } from "../action";
import { postRefusal, type PostState } from "./post-state";

const ReplyForm = z.object({
  threadId: z.string().min(1).max(200),
  slug: z.string().min(1).max(300),
  ...CreateReplyRequest.shape,
});

/**
 * POST /v1/forum/threads/:slugOrId/replies; a refused reply keeps its Idempotency-Key for the retry.
 * A posted reply takes the writer to where it landed: the thread page finds the reply's page from
 * `reply`, marks it as just posted, and renders a fresh (empty) editor.
 */
export const createReplyAction = formAction<typeof ReplyForm, PostState>(
  ReplyForm,
  {
    signIn: (v) => `/forum/${v.slug ?? ""}`,
    carry: ["idempotencyKey"],
    refused: (error, _input, state): PostState => ({ ...postRefusal(error), idempotencyKey: state.idempotencyKey }),
  },
  async ({ threadId, slug, body }, { api, state }): Promise<PostState> => {
    const created = await api.createReply({
      idempotencyKey: state.idempotencyKey,
      params: { slugOrId: threadId },
      body: { body },
    });
    revalidatePath(`/forum/${slug}`);
    redirect(`/forum/${encodeURIComponent(slug)}?reply=${created.data.id}&posted=1#reply-${created.data.id}`);
    return { idempotencyKey: randomUUID() };
  },
);

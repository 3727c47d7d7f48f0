"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { UpdateReplyRequest, UpdateThreadRequest } from "@/lib/api/schemas/forum";
import { formAction, type FormState } from "../action";

const Target = { id: z.string().min(1).max(200), slug: z.string().min(1).max(300) };
const EditForm = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("thread"), ...Target, ...UpdateThreadRequest.shape }),
  z.object({ kind: z.literal("reply"), ...Target, ...UpdateReplyRequest.shape }),
]);

/** Edits by the author: the service refuses anyone else, whatever the form says. */
export const editPostAction = formAction(
  EditForm,
  { signIn: (v) => `/forum/${v.slug ?? ""}` },
  async (input, { api }): Promise<FormState> => {
    let target = input.slug;
    if (input.kind === "thread") {
      const { kind: _kind, id, slug: _slug, ...body } = input;
      target = (await api.updateThread({ params: { id }, body })).data.slug;
    } else {
      await api.updateReply({ params: { id: input.id }, body: { body: input.body } });
    }
    revalidatePath(`/forum/${target}`);
    redirect(`/forum/${target}`);
  },
);

"use server";

import { revalidatePath } from "next/cache";
import { ModerateForumRequest } from "@/lib/api/schemas/admin";
import { formAction } from "../action";
import type { OperatorActionState } from "./suspend-agent";

/** POST /v1/admin/forum/moderation: hide, restore, lock, unlock, pin or unpin, with the reason. */
export const moderatePostAction = formAction(
  ModerateForumRequest.strip(),
  { signIn: () => "/admin/moderation", human: true },
  async (input, { api }): Promise<OperatorActionState> => {
    const res = await api.moderateForumPost({ body: input });
    revalidatePath(`/forum/${res.data.threadSlug}`);
    revalidatePath("/forum");
    revalidatePath("/admin", "layout");
    return { done: `${input.action.toLowerCase()}: done (the post is now ${res.data.status.toLowerCase()}).` };
  },
);

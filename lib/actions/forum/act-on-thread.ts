"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { ApiError } from "@/lib/api/errors";
import { AnswerRequest } from "@/lib/api/schemas/forum";
import { requireSessionApi } from "@/lib/session/api";
import { formValues } from "../action";

const Id = z.string().min(1).max(200);
const Helpful = z.enum(["true", "false"]).transform((v) => v === "true");
const Interaction = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("vote-thread"), id: Id, helpful: Helpful }),
  z.object({ kind: z.literal("vote-reply"), id: Id, helpful: Helpful }),
  z.object({ kind: z.literal("unvote-thread"), id: Id }),
  z.object({ kind: z.literal("unvote-reply"), id: Id }),
  z.object({ kind: z.literal("follow"), id: Id }),
  z.object({ kind: z.literal("unfollow"), id: Id }),
  z.object({ kind: z.literal("accept"), id: Id, ...AnswerRequest.shape }),
  z.object({ kind: z.literal("delete-reply"), id: Id }),
  z.object({ kind: z.literal("delete-thread"), id: Id }),
]);

/** Votes, follows, accepted answers and deletions: the small forms of the thread page; a refusal comes back as the page's notice. */
export async function threadInteractionAction(form: FormData): Promise<void> {
  const values = formValues(form);
  // Back to the page (and the post) the reader acted on.
  const page = /^\d{1,5}$/.test(values.page ?? "") ? `?page=${values.page}` : "";
  const anchor = /^[\w-]{1,80}$/.test(values.anchor ?? "") ? `#${values.anchor}` : "";
  const back = `/forum/${values.slug ?? ""}`;
  const { api } = await requireSessionApi(back);
  const parsed = Interaction.safeParse(values);
  if (!parsed.success) redirect(`${back}?notice=${encodeURIComponent("That action is not one this page offers.")}`);
  const input = parsed.data;
  try {
    if (input.kind === "vote-thread")
      await api.voteThread({ params: { id: input.id }, body: { helpful: input.helpful } });
    if (input.kind === "vote-reply")
      await api.voteReply({ params: { id: input.id }, body: { helpful: input.helpful } });
    if (input.kind === "unvote-thread") await api.unvoteThread({ params: { id: input.id } });
    if (input.kind === "unvote-reply") await api.unvoteReply({ params: { id: input.id } });
    if (input.kind === "follow") await api.followThread({ params: { slugOrId: input.id } });
    if (input.kind === "unfollow") await api.unfollowThread({ params: { slugOrId: input.id } });
    if (input.kind === "accept") await api.acceptAnswer({ params: { id: input.id }, body: { replyId: input.replyId } });
    if (input.kind === "delete-reply") await api.deleteReply({ params: { id: input.id } });
    if (input.kind === "delete-thread") {
      await api.deleteThread({ params: { id: input.id } });
      redirect("/forum");
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    redirect(`${back}?notice=${encodeURIComponent(error.messages.join("; "))}`);
  }
  revalidatePath(back);
  if (page || anchor) redirect(`${back}${page}${anchor}`);
}

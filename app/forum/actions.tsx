"use server";

import { randomUUID } from "node:crypto";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ApiError } from "@/lib/api/errors";
import { Markdown } from "@/lib/markdown";
import { requireSessionApi } from "@/lib/session/api";

// Forum writes from the dashboard. The author is whoever the session's credential is; Next checks
// each action's Origin (CSRF); retries of the same form reuse its Idempotency-Key.

/** The live preview renders on the server with the one Markdown configuration: no parser in the browser. */
export async function previewMarkdownAction(source: string): Promise<ReactNode> {
  return <Markdown source={source.slice(0, 8000)} />;
}

export interface PostState {
  error?: string;
  existingSlug?: string;
  idempotencyKey: string;
}

function describe(error: ApiError): Pick<PostState, "error" | "existingSlug"> {
  if (error.status === 429) return { error: `You have reached the posting limit. Try again in ${Math.ceil((error.retryAfterSeconds ?? 60) / 60)} minute(s).` };
  if (error.code === "FORUM_DUPLICATE") return { error: "You already posted this within the last 24 hours.", existingSlug: String(error.body.existingSlug ?? "") };
  return { error: error.messages.join("; ") };
}

export async function createThreadAction(state: PostState, form: FormData): Promise<PostState> {
  const { api } = await requireSessionApi("/forum/new");
  let slug: string;
  try {
    const intent = String(form.get("intent") ?? "");
    // Set when the person came through a referrer's share link (/join); the service checks the agent exists.
    const referredByAgentId = String(form.get("referredByAgentId") ?? "");
    const res = await api.createThread({
      idempotencyKey: state.idempotencyKey,
      body: {
        title: String(form.get("title") ?? ""),
        body: String(form.get("body") ?? ""),
        category: String(form.get("category") ?? "") as never,
        ...(intent ? { intent: intent as never } : {}),
        ...(referredByAgentId ? { referredByAgentId } : {}),
      },
    });
    slug = res.data.slug;
  } catch (error) {
    if (error instanceof ApiError) return { ...describe(error), idempotencyKey: error.status === 409 || error.status === 400 ? state.idempotencyKey : randomUUID() };
    throw error;
  }
  redirect(`/forum/${slug}`);
}

export async function replyAction(state: PostState, form: FormData): Promise<PostState> {
  const threadId = String(form.get("threadId"));
  const slug = String(form.get("slug"));
  const { api } = await requireSessionApi(`/forum/${slug}`);
  try {
    await api.createReply({ idempotencyKey: state.idempotencyKey, params: { slugOrId: threadId }, body: { body: String(form.get("body") ?? "") } });
  } catch (error) {
    if (error instanceof ApiError) return { ...describe(error), idempotencyKey: state.idempotencyKey };
    throw error;
  }
  revalidatePath(`/forum/${slug}`);
  return { idempotencyKey: randomUUID() };
}

/** Votes, follows and accepted answers: small forms on the thread page. */
export async function threadInteractionAction(form: FormData): Promise<void> {
  const slug = String(form.get("slug"));
  const { api } = await requireSessionApi(`/forum/${slug}`);
  const kind = String(form.get("kind"));
  const id = String(form.get("id"));
  try {
    if (kind === "vote-thread") await api.voteThread({ params: { id }, body: { helpful: form.get("helpful") === "true" } });
    if (kind === "vote-reply") await api.voteReply({ params: { id }, body: { helpful: form.get("helpful") === "true" } });
    if (kind === "follow") await api.followThread({ params: { slugOrId: id } });
    if (kind === "unfollow") await api.unfollowThread({ params: { slugOrId: id } });
    if (kind === "accept") await api.acceptAnswer({ params: { id }, body: { replyId: String(form.get("replyId")) } });
    if (kind === "delete-reply") await api.deleteReply({ params: { id } });
    if (kind === "delete-thread") {
      await api.deleteThread({ params: { id } });
      redirect("/forum");
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    redirect(`/forum/${slug}?notice=${encodeURIComponent(error.messages.join("; "))}`);
  }
  revalidatePath(`/forum/${slug}`);
}

export interface EditState {
  error?: string;
}

/** Edits by the author: the service refuses anyone else, whatever the form says. */
export async function editPostAction(_state: EditState, form: FormData): Promise<EditState> {
  const kind = String(form.get("kind"));
  const id = String(form.get("id"));
  const slug = String(form.get("slug"));
  const { api } = await requireSessionApi(`/forum/${slug}`);
  let target = slug;
  try {
    if (kind === "thread") {
      const updated = await api.updateThread({
        params: { id },
        body: { title: String(form.get("title") ?? ""), body: String(form.get("body") ?? ""), category: String(form.get("category") ?? "") as never },
      });
      target = updated.data.slug;
    } else {
      await api.updateReply({ params: { id }, body: { body: String(form.get("body") ?? "") } });
    }
  } catch (error) {
    if (error instanceof ApiError) return { error: error.messages.join("; ") };
    throw error;
  }
  revalidatePath(`/forum/${target}`);
  redirect(`/forum/${target}`);
}

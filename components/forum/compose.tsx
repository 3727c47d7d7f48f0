"use client";

import { useActionState, useEffect, useState, useTransition, type ReactNode } from "react";
import { createReplyAction } from "@/lib/actions/forum/create-reply";
import { createThreadAction } from "@/lib/actions/forum/create-thread";
import type { PostState } from "@/lib/actions/forum/post-state";
import { messagesOf } from "@/lib/actions/form-state";
import { previewMarkdownAction } from "@/lib/actions/forum/preview-markdown";
import { FORUM_CATEGORIES, FORUM_INTENTS, categoryName, intentName } from "@/lib/api/schemas/forum-constants";
import { Alert } from "@/components/ui/alert";

const input = "block w-full rounded-lg px-3 py-2 text-sm ring-1 ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700";

/** A Markdown textarea with a live preview rendered on the server by the site's one configuration. */
function BodyWithPreview({
  id,
  label,
  minLength,
  initial = "",
}: {
  id: string;
  label: string;
  minLength: number;
  initial?: string;
}) {
  const [source, setSource] = useState(initial);
  const [preview, setPreview] = useState<ReactNode>(null);
  const [, startTransition] = useTransition();
  useEffect(() => {
    if (!source.trim()) return setPreview(null);
    const timer = setTimeout(() => startTransition(async () => setPreview(await previewMarkdownAction(source))), 300);
    return () => clearTimeout(timer);
  }, [source]);
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <div>
        <label htmlFor={id} className="block text-sm font-medium">
          {label}
        </label>
        <p id={`${id}-hint`} className="text-xs text-zinc-500 dark:text-zinc-400">
          GitHub-flavoured Markdown; at least {minLength} characters. Raw HTML and images are not shown.
        </p>
        <textarea
          id={id}
          name="body"
          rows={10}
          required
          minLength={minLength}
          maxLength={8000}
          aria-describedby={`${id}-hint`}
          value={source}
          onChange={(e) => setSource(e.target.value)}
          className={`mt-1 ${input}`}
        />
        <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">{source.length} / 8000</p>
      </div>
      <div
        aria-label="Preview"
        className="min-h-32 rounded-lg border border-dashed border-zinc-300 p-3 dark:border-zinc-700"
      >
        <p className="mb-2 text-xs font-medium text-zinc-500 dark:text-zinc-400">Preview</p>
        {preview}
      </div>
    </div>
  );
}

const FIELD_LABEL: Record<string, string> = { title: "Title", body: "Post", category: "Category", intent: "Intent" };

function Problem({ state }: { state: PostState }) {
  // The service's refusal, or the fields the request schema did not accept (each named).
  const messages = messagesOf(state, FIELD_LABEL);
  if (messages.length === 0) return null;
  return (
    <Alert tone="error">
      {messages.join("; ")}{" "}
      {state.existingSlug ? (
        <a className="underline" href={`/forum/${state.existingSlug}`}>
          Open your earlier thread
        </a>
      ) : null}
    </Alert>
  );
}

export function NewThreadForm({
  idempotencyKey,
  referredByAgentId,
}: {
  idempotencyKey: string;
  referredByAgentId?: string;
}) {
  const [state, action, pending] = useActionState<PostState, FormData>(createThreadAction, { idempotencyKey });
  return (
    <form action={action} className="space-y-4">
      <Problem state={state} />
      {referredByAgentId ? (
        <p className="rounded-md bg-brand-50 p-3 text-sm dark:bg-brand-950/30" data-testid="referred-by">
          Referred by agent <span className="font-mono">{referredByAgentId}</span>: if this is your first useful thread,
          its owner earns the referral reward.
          <input type="hidden" name="referredByAgentId" value={referredByAgentId} />
        </p>
      ) : null}
      <div>
        <label htmlFor="title" className="block text-sm font-medium">
          Title
        </label>
        <input id="title" name="title" required minLength={10} maxLength={200} className={`mt-1 ${input}`} />
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor="category" className="block text-sm font-medium">
            Category
          </label>
          <select id="category" name="category" required className={`mt-1 ${input}`}>
            {FORUM_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {categoryName(c)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="intent" className="block text-sm font-medium">
            Intent (optional)
          </label>
          <select id="intent" name="intent" className={`mt-1 ${input}`}>
            <option value="">None</option>
            {FORUM_INTENTS.map((i) => (
              <option key={i} value={i}>
                {intentName(i)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <BodyWithPreview id="body" label="Post" minLength={20} />
      <button
        type="submit"
        disabled={pending}
        className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white disabled:opacity-60"
      >
        {pending ? "Publishing…" : "Publish thread"}
      </button>
    </form>
  );
}

export function ReplyForm({
  threadId,
  slug,
  idempotencyKey,
  initialBody,
}: {
  threadId: string;
  slug: string;
  idempotencyKey: string;
  initialBody?: string;
}) {
  const [state, action, pending] = useActionState<PostState, FormData>(createReplyAction, { idempotencyKey });
  return (
    <form action={action} className="space-y-3" key={state.idempotencyKey}>
      <input type="hidden" name="threadId" value={threadId} />
      <input type="hidden" name="slug" value={slug} />
      <Problem state={state} />
      <BodyWithPreview id="reply-body" label="Your reply" minLength={20} initial={initialBody} />
      <button
        type="submit"
        disabled={pending}
        className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white disabled:opacity-60"
      >
        {pending ? "Posting…" : "Post reply"}
      </button>
    </form>
  );
}

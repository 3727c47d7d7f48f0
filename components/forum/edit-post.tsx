"use client";

import { useActionState } from "react";
import { messagesOf, type FormState } from "@/lib/actions/form-state";
import { editPostAction } from "@/lib/actions/forum/edit-post";
import { FORUM_CATEGORIES, categoryName } from "@/lib/api/schemas/forum-constants";
import { Alert } from "@/components/ui/alert";

const input = "block w-full rounded-lg px-3 py-2 text-sm ring-1 ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700";

export function EditPostForm(props: {
  kind: "thread" | "reply";
  id: string;
  slug: string;
  title?: string;
  category?: string;
  body: string;
}) {
  const [state, action, pending] = useActionState<FormState, FormData>(editPostAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="kind" value={props.kind} />
      <input type="hidden" name="id" value={props.id} />
      <input type="hidden" name="slug" value={props.slug} />
      {messagesOf(state).length > 0 ? <Alert tone="error">{messagesOf(state).join("; ")}</Alert> : null}
      {props.kind === "thread" ? (
        <>
          <div>
            <label htmlFor="title" className="block text-sm font-medium">
              Title
            </label>
            <input
              id="title"
              name="title"
              defaultValue={props.title}
              required
              minLength={10}
              maxLength={200}
              className={`mt-1 ${input}`}
            />
          </div>
          <div>
            <label htmlFor="category" className="block text-sm font-medium">
              Category
            </label>
            <select id="category" name="category" defaultValue={props.category} className={`mt-1 ${input}`}>
              {FORUM_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {categoryName(c)}
                </option>
              ))}
            </select>
          </div>
        </>
      ) : null}
      <div>
        <label htmlFor="body" className="block text-sm font-medium">
          {props.kind === "thread" ? "Post" : "Reply"}
        </label>
        <textarea
          id="body"
          name="body"
          rows={10}
          defaultValue={props.body}
          required
          minLength={20}
          maxLength={8000}
          className={`mt-1 ${input}`}
        />
      </div>
      <button
        type="submit"
        disabled={pending}
        className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white disabled:opacity-60"
      >
        {pending ? "Saving…" : "Save changes"}
      </button>
    </form>
  );
}

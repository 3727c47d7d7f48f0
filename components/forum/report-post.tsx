"use client";

import { useActionState } from "react";
import { messagesOf } from "@/lib/actions/form-state";
import { reportPostAction, type ReportState } from "@/lib/actions/forum/report-post";
import { Alert } from "@/components/ui/alert";

/** "Report" on a post: a reason, sent to the operator's moderation queue (one report per reader per post). */
export function ReportPost({ kind, id }: { kind: "THREAD" | "REPLY"; id: string }) {
  const [state, run, pending] = useActionState<ReportState, FormData>(reportPostAction, {});
  if (state.done)
    return (
      <span className="text-xs text-zinc-500 dark:text-zinc-400" role="status">
        Reported to the operator. Thank you.
      </span>
    );
  return (
    <details className="text-xs" data-testid={`report-${id}`}>
      <summary className="cursor-pointer rounded-md px-2 py-1 ring-1 ring-zinc-300 dark:ring-zinc-700">Report</summary>
      <form action={run} className="mt-2 flex flex-wrap items-center gap-2">
        <input type="hidden" name="kind" value={kind} />
        <input type="hidden" name="id" value={id} />
        <label className="sr-only" htmlFor={`report-reason-${id}`}>
          Why should the operator look at this post?
        </label>
        <input
          id={`report-reason-${id}`}
          name="reason"
          required
          minLength={3}
          maxLength={500}
          defaultValue={state.values?.reason}
          placeholder="Why? (required)"
          className="h-8 min-w-56 rounded-md px-2 ring-1 ring-inset ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700"
        />
        <button
          type="submit"
          disabled={pending}
          className="rounded-md px-2 py-1 ring-1 ring-zinc-300 dark:ring-zinc-700"
        >
          {pending ? "Sending…" : "Send report"}
        </button>
        {messagesOf(state).length > 0 ? (
          <Alert variant="inline" tone="error" className="basis-full">
            {messagesOf(state).join(" ")}
          </Alert>
        ) : null}
      </form>
    </details>
  );
}

"use client";

import { useActionState, useState } from "react";
import { messagesOf } from "@/lib/actions/form-state";
import type { OperatorActionState } from "@/lib/actions/admin/suspend-agent";
import { moderatePostAction } from "@/lib/actions/admin/moderate-post";
import { Alert } from "@/components/ui/alert";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Input } from "@/components/ui/field";

type Action = "HIDE" | "LOCK" | "UNLOCK" | "PIN" | "UNPIN";

const WHAT: Record<Action, { label: string; does: string }> = {
  HIDE: { label: "Hide", does: "It disappears for everyone but the operator; it can be restored from the console." },
  LOCK: { label: "Lock", does: "The thread takes no more replies." },
  UNLOCK: { label: "Unlock", does: "The thread takes replies again." },
  PIN: { label: "Pin", does: "The thread is listed first in its category." },
  UNPIN: { label: "Unpin", does: "The thread is listed by activity again." },
};

/**
 * The operator's moderation of one post, on the post itself (no id to copy): the actions that
 * apply to it now, a reason for the audit log, and a confirmation that says what the action does.
 */
export function PostModeration({
  kind,
  id,
  locked = false,
  pinned = false,
}: {
  kind: "THREAD" | "REPLY";
  id: string;
  locked?: boolean;
  pinned?: boolean;
}) {
  const [state, run] = useActionState<OperatorActionState, FormData>(moderatePostAction, {});
  const actions: Action[] =
    kind === "REPLY" ? ["HIDE"] : ["HIDE", locked ? "UNLOCK" : "LOCK", pinned ? "UNPIN" : "PIN"];
  const [chosen, setChosen] = useState<Action>("HIDE");
  const what = kind === "THREAD" ? "thread" : "reply";
  return (
    <details className="w-full text-sm" data-testid={`moderate-${id}`}>
      <summary className="cursor-pointer font-medium text-zinc-700 dark:text-zinc-300">Moderate this {what}</summary>
      <form action={run} className="mt-2 flex flex-wrap items-end gap-2" key={state.attempt}>
        <input type="hidden" name="kind" value={kind} />
        <input type="hidden" name="id" value={id} />
        <fieldset className="flex flex-wrap gap-3">
          <legend className="sr-only">Action</legend>
          {actions.map((a) => (
            <label key={a} className="flex items-center gap-1">
              <input
                type="radio"
                name="action"
                value={a}
                checked={chosen === a}
                onChange={() => setChosen(a)}
                className="size-4"
              />
              {WHAT[a].label}
            </label>
          ))}
        </fieldset>
        <label className="w-full min-w-0 sm:w-auto sm:flex-1">
          <span className="sr-only">Reason (goes to the audit log)</span>
          <Input name="reason" required minLength={3} maxLength={500} placeholder="Reason (required)" />
        </label>
        <ConfirmSubmit
          size="sm"
          variant={chosen === "HIDE" ? "danger" : "secondary"}
          pendingLabel="Working…"
          confirmTitle={`${WHAT[chosen].label} this ${what}?`}
          confirmMessage={WHAT[chosen].does}
          confirmLabel={WHAT[chosen].label}
        >
          {WHAT[chosen].label}
        </ConfirmSubmit>
        {state.done ? (
          <Alert variant="inline" tone="success" className="basis-full">
            {state.done}
          </Alert>
        ) : null}
        {messagesOf(state).length > 0 ? (
          <Alert className="basis-full" tone="error" title="Refused">
            {messagesOf(state).join(" ")}
          </Alert>
        ) : null}
      </form>
    </details>
  );
}

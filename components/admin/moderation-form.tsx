"use client";

import { useActionState } from "react";
import { messagesOf } from "@/lib/actions/form-state";
import type { OperatorActionState } from "@/lib/actions/admin/suspend-agent";
import { FORUM_MODERATION_ACTIONS } from "@/lib/api/schemas/admin";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/field";

/** Any post by its id: the action, and the reason every operator action takes. */
export function ModerationForm({
  action,
}: {
  action: (state: OperatorActionState, form: FormData) => Promise<OperatorActionState>;
}) {
  const [state, run, pending] = useActionState<OperatorActionState, FormData>(action, {});
  return (
    <form
      action={run}
      className="grid gap-3 sm:grid-cols-[8rem_1fr_8rem]"
      data-testid="moderation-form"
      key={state.attempt}
    >
      <label className="text-sm">
        <span className="mb-1 block">Post</span>
        <Select name="kind" defaultValue="THREAD">
          <option value="THREAD">Thread</option>
          <option value="REPLY">Reply</option>
        </Select>
      </label>
      <label className="text-sm">
        <span className="mb-1 block">Its id</span>
        <Input name="id" required placeholder="00000000-0000-0000-0000-000000000000" className="font-mono" />
      </label>
      <label className="text-sm">
        <span className="mb-1 block">Action</span>
        <Select name="action" defaultValue="HIDE">
          {FORUM_MODERATION_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a.toLowerCase()}
            </option>
          ))}
        </Select>
      </label>
      <label className="text-sm sm:col-span-2">
        <span className="mb-1 block">Reason</span>
        <Input name="reason" required minLength={3} maxLength={500} />
      </label>
      <div className="flex items-end">
        <Button type="submit" loading={pending} loadingLabel="Working…">
          Apply
        </Button>
      </div>
      {state.done ? (
        <Alert variant="inline" tone="success" className="sm:col-span-3">
          {state.done}
        </Alert>
      ) : null}
      {messagesOf(state).length > 0 ? (
        <Alert className="sm:col-span-3" tone="error" title="Refused">
          {messagesOf(state).join(" ")}
        </Alert>
      ) : null}
    </form>
  );
}

"use client";

import { useActionState } from "react";
import { setMaxActiveJobsAction, type CapState } from "@/lib/actions/agents/set-max-active-jobs";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/field";

/**
 * The maxActiveJobs editor: how many jobs the agent holds at once. 0 pauses new assignments
 * (accepting its bids is refused), empty removes the cap. A plain form: works without JavaScript.
 */
export function MaxActiveJobsForm({ agentId, value }: { agentId: string; value: number | null }) {
  const [state, action, pending] = useActionState<CapState, FormData>(setMaxActiveJobsAction, {});
  const id = `cap-${agentId}`;
  // One field: the refusal and the field's messages read as one.
  const errors = [...(state.error ?? []), ...Object.values(state.fields ?? {}).flat()];
  const describedBy = [`${id}-hint`, errors.length > 0 ? `${id}-error` : null].filter(Boolean).join(" ");
  const current = state.saved ? state.saved.maxActiveJobs : value;
  return (
    <form action={action} className="space-y-1.5">
      <input type="hidden" name="agentId" value={agentId} />
      <label htmlFor={id} className="block text-sm font-medium">
        Jobs at once
      </label>
      <div className="flex items-center gap-2">
        <div className="w-28">
          <Input
            id={id}
            name="maxActiveJobs"
            type="number"
            min={0}
            max={1000}
            step={1}
            inputMode="numeric"
            defaultValue={current ?? ""}
            placeholder="no cap"
            aria-describedby={describedBy}
            aria-invalid={errors.length > 0 ? true : undefined}
          />
        </div>
        <Button type="submit" variant="secondary" loading={pending} loadingLabel="Saving…">
          Save
        </Button>
      </div>
      <p id={`${id}-hint`} className="max-w-64 text-xs text-zinc-500 dark:text-zinc-400">
        Jobs it may hold at once. 0 pauses new assignments; empty removes the cap.
      </p>
      {errors.length > 0 ? (
        <p id={`${id}-error`} role="alert" className="text-xs font-medium text-red-600 dark:text-red-400">
          {errors.join(" ")}
        </p>
      ) : null}
      {state.saved ? (
        <p role="status" className="text-xs font-medium text-emerald-700 dark:text-emerald-400">
          {state.saved.maxActiveJobs === null ? "Saved: no cap." : state.saved.maxActiveJobs === 0 ? "Saved: paused." : `Saved: at most ${state.saved.maxActiveJobs} at once.`}
        </p>
      ) : null}
    </form>
  );
}

"use client";

import { useActionState } from "react";
import { setMaxActiveJobsAction, type CapState } from "@/app/agents/actions";

export function MaxActiveJobsForm({ agentId, value }: { agentId: string; value: number | null }) {
  const [state, action, pending] = useActionState<CapState, FormData>(setMaxActiveJobsAction, {});
  const id = `cap-${agentId}`;
  return (
    <form action={action} className="flex flex-wrap items-end gap-2">
      <input type="hidden" name="agentId" value={agentId} />
      <div>
        <label htmlFor={id} className="block text-xs font-medium">maxActiveJobs</label>
        <input
          id={id}
          name="maxActiveJobs"
          inputMode="numeric"
          defaultValue={value ?? ""}
          placeholder="no cap"
          aria-describedby={`${id}-hint${state.error ? ` ${id}-error` : ""}`}
          aria-invalid={Boolean(state.error)}
          className="w-24 rounded-md px-2 py-1 text-sm ring-1 ring-zinc-300 dark:bg-zinc-900 dark:ring-zinc-700"
        />
      </div>
      <button type="submit" disabled={pending} className="rounded-md bg-brand-600 px-3 py-1.5 text-xs font-medium text-white">Save</button>
      <p id={`${id}-hint`} className="w-full text-xs text-zinc-500">0 pauses new assignments; empty removes the cap.</p>
      {state.error ? <p id={`${id}-error`} role="alert" className="w-full text-xs text-red-600">{state.error}</p> : null}
      {state.saved ? <p role="status" className="w-full text-xs text-green-700">Saved.</p> : null}
    </form>
  );
}

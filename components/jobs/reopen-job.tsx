"use client";

import { useActionState } from "react";
import { reopenJobAction, type ReopenJobState } from "@/lib/actions/jobs/reopen-job";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Alert } from "@/components/ui/alert";

/** The poster's Reopen of a stalled job, behind a confirmation (without JavaScript it submits directly). */
export function ReopenJob({ jobId, agentName }: { jobId: string; agentName: string }) {
  const [state, action] = useActionState<ReopenJobState, FormData>(reopenJobAction, {});
  return (
    <form action={action} className="mt-3">
      <input type="hidden" name="jobId" value={jobId} />
      <ConfirmSubmit
        size="sm"
        variant="secondary"
        pendingLabel="Reopening…"
        confirmTitle="Reopen this stalled job?"
        confirmMessage={`${agentName} is taken off the job, which is open for bids again. The escrow stays funded; the agent's bid stays on record as expired.`}
        confirmLabel="Reopen job"
      >
        Reopen
      </ConfirmSubmit>
      {state.error ? (
        <Alert tone="error" className="mt-2">
          {state.error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </Alert>
      ) : null}
    </form>
  );
}

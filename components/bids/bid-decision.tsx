"use client";

import { useActionState, type MouseEvent } from "react";
import { decideBidAction, type BidDecisionState } from "@/app/jobs/actions";

/** Accept or reject, each behind a confirmation; a refusal (e.g. the agent at capacity) says why. */
export function BidDecision({ jobId, bidId, agentName }: { jobId: string; bidId: string; agentName: string }) {
  const [state, action, pending] = useActionState<BidDecisionState, FormData>(decideBidAction, {});
  const confirm = (decision: string) => (event: MouseEvent<HTMLButtonElement>) => {
    if (!window.confirm(`${decision === "accept" ? "Accept" : "Reject"} the bid of ${agentName}?`)) event.preventDefault();
  };
  return (
    <form action={action} className="flex flex-col gap-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="bidId" value={bidId} />
      <div className="flex gap-2">
        <button name="decision" value="accept" onClick={confirm("accept")} disabled={pending} className="rounded-md bg-brand-600 px-3 py-1 text-xs font-medium text-white">Accept</button>
        <button name="decision" value="reject" onClick={confirm("reject")} disabled={pending} className="rounded-md px-3 py-1 text-xs ring-1 ring-zinc-300">Reject</button>
      </div>
      {state.error ? (
        <p role="alert" className="max-w-xs text-xs text-red-600">
          {state.code === "AGENT_AT_CAPACITY" ? `${agentName} is at its maxActiveJobs limit and cannot take this job now. ` : ""}
          {state.error}
        </p>
      ) : null}
    </form>
  );
}

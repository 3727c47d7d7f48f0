"use client";

import { startTransition, useActionState } from "react";
import type { Hex } from "viem";
import { decideBidAction, type BidDecisionState } from "@/lib/actions/jobs/decide-bid";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { displayUsdc } from "@/lib/chain/units";
import { Alert } from "@/components/ui/alert";
import { SignAssignment } from "./sign-assignment";

export interface BidDecisionProps {
  jobId: string;
  bidId: string;
  agentName: string;
  proposedUsdc: string;
  /** false: the agent has no payout wallet yet, and accepting says so before it happens. */
  hasWallet?: boolean;
}

/**
 * Accept or reject a pending bid, each behind a confirmation dialog (without JavaScript the
 * buttons submit directly). A refusal is said plainly; the capacity refusal names the agent's
 * maxActiveJobs, the one thing its owner can change.
 */
export function BidDecision({ jobId, bidId, agentName, proposedUsdc, hasWallet = true }: BidDecisionProps) {
  const [state, action] = useActionState<BidDecisionState, FormData>(decideBidAction, {});
  const atCapacity = state.code === "AGENT_AT_CAPACITY";
  const paused = atCapacity && state.details?.maxActiveJobs === 0;
  // EscrowV2: the service asked for the payer's Assign; once signed, the acceptance goes again with it.
  const assignment = state.done ? undefined : state.assignment;
  const acceptSigned = (signature: Hex) => {
    const form = new FormData();
    form.set("jobId", jobId);
    form.set("bidId", bidId);
    form.set("decision", "accept");
    form.set("assignmentSignature", signature);
    startTransition(() => action(form));
  };
  return (
    <form action={action} className="flex min-w-44 flex-col gap-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="bidId" value={bidId} />
      {hasWallet ? null : <p className="text-xs text-amber-800 dark:text-amber-300">No payout wallet yet</p>}
      <div className="flex gap-2">
        <ConfirmSubmit
          name="decision"
          value="accept"
          size="sm"
          pendingLabel="Saving…"
          confirmTitle={`Accept the bid of ${agentName}?`}
          confirmMessage={`${agentName} is assigned this job at ${displayUsdc(proposedUsdc)} USDC and the job moves to In progress. The other pending bids are rejected.${hasWallet ? "" : ` Note: ${agentName} has no payout wallet yet. You can still accept; when you approve the work, the money stays in escrow until its owner sets one.`}`}
          confirmLabel="Accept bid"
        >
          Accept
        </ConfirmSubmit>
        <ConfirmSubmit
          name="decision"
          value="reject"
          size="sm"
          variant="secondary"
          confirmTitle={`Reject the bid of ${agentName}?`}
          confirmMessage="The agent is told its bid was rejected. It cannot bid on this job again."
          confirmLabel="Reject bid"
        >
          Reject
        </ConfirmSubmit>
      </div>
      {assignment ? <SignAssignment assignment={assignment} onSigned={acceptSigned} /> : null}
      {state.error && !(assignment && state.code === "ASSIGNMENT_SIGNATURE_REQUIRED") ? (
        <Alert tone="error" className="max-w-xs">
          {atCapacity ? (
            <>
              <p className="font-semibold">
                {agentName} is at its limit of jobs at once
                {paused
                  ? " (its owner has paused new assignments)"
                  : state.details?.maxActiveJobs !== undefined
                    ? ` (${state.details.activeJobs ?? "?"} of ${state.details.maxActiveJobs} active jobs)`
                    : ""}
                .
              </p>
              <p className="mt-1">
                It cannot take this job now; the bid stays pending. Accept another bid, or try again once its owner
                raises the limit.
              </p>
            </>
          ) : (
            state.error.map((m) => <p key={m}>{m}</p>)
          )}
        </Alert>
      ) : null}
    </form>
  );
}

"use client";

import { startTransition, useActionState } from "react";
import type { Hex } from "viem";
import { decideBidAction, type BidDecisionState } from "@/lib/actions/jobs/decide-bid";
import { askBidWalletAction, type AskBidWalletState } from "@/lib/actions/jobs/ask-bid-wallet";
import { buttonClasses } from "@/components/ui/button";
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
  /**
   * The job is funded in EscrowV2: accepting fixes the agent's payout wallet in the slot, so a bid
   * whose agent has none cannot be accepted; the poster asks its owner ("ask the owner") instead.
   */
  walletFixedAtAcceptance?: boolean;
  /** When the poster last asked the agent's owner for a wallet (Bid.walletAskedAt). */
  walletAskedAt?: string | null;
}

/**
 * Accept or reject a pending bid, each behind a confirmation dialog (without JavaScript the
 * buttons submit directly). A refusal is said plainly; the capacity refusal names the agent's
 * maxActiveJobs, the one thing its owner can change.
 */
export function BidDecision({
  jobId,
  bidId,
  agentName,
  proposedUsdc,
  hasWallet = true,
  walletFixedAtAcceptance = false,
  walletAskedAt = null,
}: BidDecisionProps) {
  const [state, action] = useActionState<BidDecisionState, FormData>(decideBidAction, {});
  // EscrowV2 and no wallet (or the service said so): the owner is asked instead of accepting.
  // The bid can still be rejected; its refusals (other than the missing wallet) are shown as usual.
  const askOwner = (walletFixedAtAcceptance && !hasWallet) || state.code === "AGENT_WALLET_MISSING";
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
    <div className="flex flex-col gap-2">
      {askOwner ? <AskOwner jobId={jobId} bidId={bidId} agentName={agentName} askedAt={walletAskedAt} /> : null}
      <form action={action} className="flex min-w-44 flex-col gap-2">
        <input type="hidden" name="jobId" value={jobId} />
        <input type="hidden" name="bidId" value={bidId} />
        {hasWallet || askOwner ? null : (
          <p className="text-xs text-amber-800 dark:text-amber-300">No payout wallet yet</p>
        )}
        {hasWallet && walletFixedAtAcceptance && walletAskedAt ? (
          <p role="status" className="text-xs font-medium text-emerald-800 dark:text-emerald-300">
            Wallet set: accept now
          </p>
        ) : null}
        <div className="flex gap-2">
          {askOwner ? null : (
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
          )}
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
        {state.error && !(assignment && state.code === "ASSIGNMENT_SIGNATURE_REQUIRED") && !askOwner ? (
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
    </div>
  );
}

/**
 * "Ask the owner": the escrow of this job pays only the wallet fixed at acceptance, and the bid's
 * agent has none. The poster asks its owner (inbox and mail, once a day) and is told when it is
 * set; the bid then shows "Wallet set: accept now". Without JavaScript the button submits directly.
 */
function AskOwner({
  jobId,
  bidId,
  agentName,
  askedAt,
}: {
  jobId: string;
  bidId: string;
  agentName: string;
  askedAt: string | null;
}) {
  const [state, action, pending] = useActionState<AskBidWalletState, FormData>(askBidWalletAction, {});
  const asked = state.askedAt ?? askedAt;
  return (
    <form action={action} className="flex max-w-xs min-w-44 flex-col gap-2 text-xs">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="bidId" value={bidId} />
      <p className="text-amber-800 dark:text-amber-300">
        {agentName} has no payout wallet yet. This job&apos;s escrow pays only the wallet fixed when you accept, so the
        bid can be accepted once its owner sets one.
      </p>
      {asked ? (
        <p role="status" className="font-medium">
          Asked the owner on {asked.slice(0, 16).replace("T", " ")} UTC. You will be told when the wallet is set.
        </p>
      ) : (
        <button type="submit" disabled={pending} className={buttonClasses({ variant: "secondary", size: "sm" })}>
          Ask the owner
        </button>
      )}
      {state.error && state.code !== "REMINDER_ALREADY_SENT" ? (
        <Alert tone="error">
          {state.error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </Alert>
      ) : null}
    </form>
  );
}

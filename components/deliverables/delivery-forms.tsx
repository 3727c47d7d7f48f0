"use client";

import { startTransition, useActionState, useState } from "react";
import type { Hex } from "viem";
import type { ApprovalTypedData } from "@/lib/api/schemas/jobs";
import { SignApproval } from "./sign-approval";
import { approveJobAction } from "@/lib/actions/deliverables/approve-job";
import type { DeliveryActionState } from "@/lib/actions/deliverables/delivery-state";
import { disputeJobAction } from "@/lib/actions/deliverables/dispute-job";
import { evaluateCriteriaAction } from "@/lib/actions/deliverables/evaluate-criteria";
import { overrideCriterionAction } from "@/lib/actions/deliverables/override-criterion";
import { submitDeliverableAction } from "@/lib/actions/deliverables/submit-deliverable";
import { tickCriterionAction } from "@/lib/actions/deliverables/tick-criterion";
import { remindAgentWalletAction } from "@/lib/actions/deliverables/remind-agent-wallet";
import { buttonClasses, Spinner } from "@/components/ui/button";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Field, Input, Textarea } from "@/components/ui/field";
import { proofStatusLabel } from "./proof-status-label";
import { Alert } from "@/components/ui/alert";
import { SignAssignment } from "@/components/bids/sign-assignment";

// The forms of the delivery pages. Each is a plain <form> posting to a server action, so it works
// before hydration and without JavaScript; with JavaScript, the confirmations open as dialogs and
// the service's refusals appear in place.

function Refusal({ state }: { state: DeliveryActionState }) {
  if (!state.error) return null;
  return (
    <Alert tone="error">
      {state.proof ? (
        <>
          <p className="font-semibold">
            The probe did not find the work live: {proofStatusLabel(state.proof.status)}
            {state.proof.httpStatus ? ` (HTTP ${state.proof.httpStatus})` : ""}.
          </p>
          {state.proof.reason ? (
            <p className="mt-1" data-testid="proof-refusal-reason">
              {state.proof.reason}
            </p>
          ) : null}
          <p className="mt-1 text-xs">The money stays in escrow. Nothing was changed.</p>
        </>
      ) : (
        state.error.map((m) => <p key={m}>{m}</p>)
      )}
    </Alert>
  );
}

export function SubmitDeliverableForm({ jobId, marker }: { jobId: string; marker: string | null }) {
  const [state, action, pending] = useActionState<DeliveryActionState, FormData>(submitDeliverableAction, {});
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="jobId" value={jobId} />
      <Field
        name="url"
        label="Deliverable URL"
        required
        error={state.fields?.url}
        hint={
          marker
            ? `The page (or file) at this URL must contain the marker "${marker}" in its first 256 KiB, be public (no login) and stay up: it is checked again and again until the money is released.`
            : "A public URL (no login) that stays up: it is checked at submission, every 15 minutes in review, at approval and at release."
        }
      >
        {(p) => <Input {...p} type="url" inputMode="url" placeholder="https://…" defaultValue={state.values?.url} />}
      </Field>
      <Refusal state={state} />
      <button
        type="submit"
        disabled={pending}
        aria-busy={pending || undefined}
        className={buttonClasses({ variant: "primary" })}
      >
        {pending ? <Spinner /> : null}
        {pending ? "Probing the URL…" : "Submit for review"}
      </button>
    </form>
  );
}

/**
 * Approve, after a confirmation that says what happens to the money. Criteria the poster has not
 * ticked do not block approval, so the confirmation names them first and asks to approve anyway.
 */
export function ApproveForm({
  jobId,
  releasesNow,
  budget,
  unticked = [],
  walletMissing = false,
  approval,
}: {
  jobId: string;
  releasesNow: boolean;
  budget: string;
  unticked?: string[];
  /** The agent has no payout wallet yet: approving is accepted and the money waits in escrow for it. */
  walletMissing?: boolean;
  /** EscrowV2: the payer's Approve the job offers to sign (escrowApproval TO_SIGN); signed, it goes with the approval. */
  approval?: ApprovalTypedData;
}) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(approveJobAction, {});
  const [approvalSignature, setApprovalSignature] = useState<string | null>(null);
  // EscrowV2 slot without an agent (a bounty's claim): the service asked for the payer's Assign;
  // once signed, the approval goes again with it.
  const assignment = state.done ? undefined : state.assignment;
  const approveSigned = (signature: Hex) => {
    const form = new FormData();
    form.set("jobId", jobId);
    form.set("assignmentSignature", signature);
    if (approvalSignature) form.set("approvalSignature", approvalSignature);
    startTransition(() => action(form));
  };
  const money = walletMissing
    ? `The deliverable is probed once more; if it is live, the work is approved and the ${budget} USDC wait in escrow until the agent's owner sets a payout wallet (they are told now); then they are released to it (less the 5% fee).`
    : releasesNow
      ? `The deliverable is probed once more; if it is live, the escrow pays ${budget} USDC (less the 5% fee) to the agent's wallet now. This cannot be undone.`
      : "The deliverable is probed once more; if it is live, the escrow is released to the agent when the proof hold ends, after a last check. You can no longer dispute once it is released.";
  const quoted = unticked.map((d) => `“${d}”`).join(", ");
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="jobId" value={jobId} />
      {approvalSignature ? <input type="hidden" name="approvalSignature" value={approvalSignature} /> : null}
      {approval ? <SignApproval approval={approval} onSigned={setApprovalSignature} /> : null}
      {unticked.length > 0 ? (
        <p className="text-sm text-amber-800 dark:text-amber-300" data-testid="unticked-criteria">
          {unticked.length === 1 ? "One criterion is" : `${unticked.length} criteria are`} not ticked yet: {quoted}.
        </p>
      ) : null}
      <ConfirmSubmit
        pendingLabel="Checking the work…"
        confirmTitle={unticked.length > 0 ? "Approve without ticking every criterion?" : "Approve this work?"}
        confirmMessage={
          unticked.length > 0 ? `You have not ticked ${quoted}: approving accepts the work as it is. ${money}` : money
        }
        confirmLabel={unticked.length > 0 ? "Approve anyway" : "Approve"}
      >
        Approve
      </ConfirmSubmit>
      {assignment ? <SignAssignment assignment={assignment} onSigned={approveSigned} step="approve" /> : null}
      {assignment && state.code === "ASSIGNMENT_SIGNATURE_REQUIRED" ? null : <Refusal state={state} />}
      {state.done ? (
        <Alert variant="inline" tone="success">
          Approved.
        </Alert>
      ) : null}
    </form>
  );
}

/**
 * An agent without a payout wallet can be approved, but not paid until its owner sets one: the
 * poster is told so before approving (the money waits in escrow, the owner is told on approval)
 * and may ask the owner (by mail, once a day) meanwhile. Shown for whole jobs and for parts.
 */
export function AgentWalletMissing({ jobId, agentName }: { jobId: string; agentName: string }) {
  const [state, action, pending] = useActionState<DeliveryActionState, FormData>(remindAgentWalletAction, {});
  return (
    <div className="space-y-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-500/30 dark:bg-amber-500/10 dark:text-amber-200">
      <p className="font-semibold">{agentName} has no payout wallet yet.</p>
      <p>
        You can approve all the same: the money waits safely in escrow and is paid as soon as its owner sets a wallet
        (they are told when you approve).
      </p>
      {state.done ? (
        <p role="status" className="font-medium">
          The owner has been asked by mail to set a wallet.
        </p>
      ) : (
        <form action={action}>
          <input type="hidden" name="jobId" value={jobId} />
          <button type="submit" disabled={pending} className={buttonClasses({ variant: "secondary", size: "sm" })}>
            {pending ? <Spinner /> : null}
            Ask the owner to set a wallet
          </button>
        </form>
      )}
      <Refusal state={state} />
    </div>
  );
}

export function DisputeForm({ jobId }: { jobId: string }) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(disputeJobAction, {});
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="jobId" value={jobId} />
      <Field
        name="reason"
        label="What is wrong?"
        error={state.fields?.reason}
        hint="The agent sees this. The escrow stays held while the job is disputed, until the job's arbiter rules: pay the agent, refund you, or split."
      >
        {(p) => <Textarea {...p} rows={3} minLength={10} maxLength={2000} defaultValue={state.values?.reason} />}
      </Field>
      <ConfirmSubmit
        variant="danger"
        pendingLabel="Opening the dispute…"
        confirmTitle="Dispute this job?"
        confirmMessage="The job becomes Disputed and the money stays in escrow until it is settled."
        confirmLabel="Open dispute"
      >
        Dispute
      </ConfirmSubmit>
      <Refusal state={state} />
    </form>
  );
}

export function OverrideCriterionForm({
  jobId,
  criterionId,
  description,
}: {
  jobId: string;
  criterionId: string;
  description: string;
}) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(overrideCriterionAction, {});
  if (state.done)
    return (
      <Alert variant="inline" tone="success" className="text-xs">
        Overridden.
      </Alert>
    );
  return (
    <form action={action} className="mt-2 space-y-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="criterionId" value={criterionId} />
      <Field
        name="reason"
        id={`override-${criterionId}`}
        label={`Accept "${description}" anyway`}
        error={state.fields?.reason}
      >
        {(p) => (
          <Input {...p} placeholder="Why you accept it (the agent sees this)" defaultValue={state.values?.reason} />
        )}
      </Field>
      <ConfirmSubmit
        size="sm"
        variant="secondary"
        confirmTitle="Override this check?"
        confirmMessage="The criterion counts as met whatever its check says, and no longer blocks approval."
        confirmLabel="Override"
      >
        Override check
      </ConfirmSubmit>
      <Refusal state={state} />
    </form>
  );
}

/** The poster's tick of a manual criterion ("the report reads well"): one button that flips it. */
export function TickCriterionForm({
  jobId,
  criterionId,
  description,
  ticked,
}: {
  jobId: string;
  criterionId: string;
  description: string;
  ticked: boolean;
}) {
  const [state, action, pending] = useActionState<DeliveryActionState, FormData>(tickCriterionAction, {});
  return (
    <form action={action} className="mt-2 flex flex-wrap items-center gap-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="criterionId" value={criterionId} />
      <input type="hidden" name="ticked" value={ticked ? "false" : "true"} />
      <button
        type="submit"
        disabled={pending}
        className={buttonClasses({ variant: ticked ? "secondary" : "primary", size: "sm" })}
        aria-label={`${ticked ? "Untick" : "Tick"} "${description}"`}
      >
        {pending ? <Spinner /> : null}
        {ticked ? "Untick" : "Tick as met"}
      </button>
      <Refusal state={state} />
    </form>
  );
}

export function EvaluateCriteriaForm({ jobId }: { jobId: string }) {
  const [state, action, pending] = useActionState<DeliveryActionState, FormData>(evaluateCriteriaAction, {});
  return (
    <form action={action} className="inline-flex items-center gap-2">
      <input type="hidden" name="jobId" value={jobId} />
      <button type="submit" disabled={pending} className={buttonClasses({ variant: "secondary", size: "sm" })}>
        {pending ? <Spinner /> : null}
        Run the checks again
      </button>
      <Refusal state={state} />
    </form>
  );
}

"use client";

import { useActionState } from "react";
import type { DeliveryActionState } from "@/lib/actions/deliverables/delivery-state";
import {
  approveMilestoneAction,
  cancelLateMilestoneAction,
  disputeMilestoneAction,
} from "@/lib/actions/milestones/milestone-actions";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Field, Textarea } from "@/components/ui/field";
import { Alert } from "@/components/ui/alert";

// Approval and dispute of one part of a job paid in parts: plain forms posting to server actions.

function Refusal({ state }: { state: DeliveryActionState }) {
  if (!state.error) return null;
  return (
    <Alert tone="error">
      {state.proof ? (
        <p>
          The probe did not find this part live{state.proof.reason ? `: ${state.proof.reason}` : "."} The money stays in
          escrow.
        </p>
      ) : (
        state.error.map((m) => <p key={m}>{m}</p>)
      )}
    </Alert>
  );
}

export function ApproveMilestoneForm({
  jobId,
  position,
  title,
  walletMissing = false,
}: {
  jobId: string;
  position: number;
  title: string;
  /** The agent has no payout wallet yet: the approval is accepted and the part's money waits in escrow. */
  walletMissing?: boolean;
}) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(approveMilestoneAction, {});
  return (
    <form action={action} className="space-y-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="position" value={position} />
      <ConfirmSubmit
        size="sm"
        pendingLabel="Approving…"
        confirmTitle={`Approve part ${position}?`}
        confirmMessage={
          walletMissing
            ? `"${title}" is checked again, then approved; its amount waits in escrow until the agent's owner sets a payout wallet (they are told now), and is then released to it (less the fee).`
            : `"${title}" is checked again, then its amount is released to the agent (less the fee) once its proof hold has passed.`
        }
        confirmLabel="Approve part"
      >
        Approve part {position}
      </ConfirmSubmit>
      <Refusal state={state} />
    </form>
  );
}

export function DisputeMilestoneForm({ jobId, position }: { jobId: string; position: number }) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(disputeMilestoneAction, {});
  return (
    <form action={action} className="space-y-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="position" value={position} />
      <Field
        name="reason"
        id={`milestone-reason-${position}`}
        label={`What is wrong with part ${position}?`}
        error={state.fields?.reason}
        hint="Only this part is frozen until the arbiter rules; the other parts go on."
      >
        {(p) => <Textarea {...p} rows={2} minLength={10} maxLength={2000} defaultValue={state.values?.reason} />}
      </Field>
      <ConfirmSubmit
        size="sm"
        variant="danger"
        pendingLabel="Disputing…"
        confirmTitle={`Dispute part ${position}?`}
        confirmMessage="This part's money stays in escrow until the arbiter pays, refunds or splits it."
        confirmLabel="Dispute part"
      >
        Dispute part {position}
      </ConfirmSubmit>
      <Refusal state={state} />
    </form>
  );
}

export function CancelLateMilestoneForm({ jobId, position }: { jobId: string; position: number }) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(cancelLateMilestoneAction, {});
  return (
    <form action={action} className="space-y-2">
      <input type="hidden" name="jobId" value={jobId} />
      <input type="hidden" name="position" value={position} />
      <ConfirmSubmit
        size="sm"
        variant="danger"
        pendingLabel="Cancelling…"
        confirmTitle={`Cancel late part ${position}?`}
        confirmMessage="Its deadline passed with nothing delivered: its amount goes back to the wallet that paid the escrow (no fee). The other parts go on."
        confirmLabel="Cancel and refund part"
      >
        Cancel and refund part {position}
      </ConfirmSubmit>
      <Refusal state={state} />
    </form>
  );
}

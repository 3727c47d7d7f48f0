"use client";

import { useActionState } from "react";
// The zod-free home of the limit: importing schemas/jobs here would ship zod to the job page.
import { CHANGE_REQUEST_LIMITS } from "@/lib/api/schemas/constants";
import type { DeliveryActionState } from "@/lib/actions/deliverables/delivery-state";
import { requestChangesAction } from "@/lib/actions/deliverables/request-changes";
import { requestMilestoneChangesAction } from "@/lib/actions/milestones/milestone-actions";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Field, Textarea } from "@/components/ui/field";
import { Alert } from "@/components/ui/alert";

/**
 * The poster's "request changes": a message for the agent, then a confirmation that says what it
 * does (the work goes back, the round it uses). A plain form posting to a server action, so it works
 * before hydration; `position` makes it the form of one part of a job paid in parts.
 */
export function RequestChangesForm({
  jobId,
  position,
  revisionCount,
  maxRevisions,
}: {
  jobId: string;
  position?: number;
  revisionCount: number;
  maxRevisions: number;
}) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(
    position === undefined ? requestChangesAction : requestMilestoneChangesAction,
    {},
  );
  const round = revisionCount + 1;
  const what = position === undefined ? "the work" : `part ${position}`;
  const suffix = position === undefined ? "" : `-${position}`;
  if (state.done) {
    return (
      <Alert variant="inline" tone="success">
        Sent back to the agent with your message.
      </Alert>
    );
  }
  return (
    <form action={action} className="space-y-3" data-testid={`request-changes${suffix}`}>
      <input type="hidden" name="jobId" value={jobId} />
      {position !== undefined ? <input type="hidden" name="position" value={position} /> : null}
      <Field
        name="message"
        id={`change-request${suffix}`}
        label={position === undefined ? "What should the agent change?" : `What should change in part ${position}?`}
        required
        error={state.fields?.message}
        hint={`Round ${round} of ${maxRevisions}. The agent reads this as plain text and resubmits; the proof is checked again.`}
      >
        {(p) => (
          <Textarea
            {...p}
            rows={3}
            minLength={1}
            maxLength={CHANGE_REQUEST_LIMITS.messageMax}
            defaultValue={state.values?.message}
          />
        )}
      </Field>
      <ConfirmSubmit
        size={position === undefined ? undefined : "sm"}
        variant="secondary"
        pendingLabel="Sending…"
        confirmTitle={`Send ${what} back for changes?`}
        confirmMessage={`${what[0]!.toUpperCase()}${what.slice(1)} goes back to the agent with your message (round ${round} of ${maxRevisions}); the money stays in escrow. When the agent resubmits, the proof hold starts again.`}
        confirmLabel="Request changes"
      >
        {position === undefined ? "Request changes" : `Request changes to part ${position}`}
      </ConfirmSubmit>
      {state.error ? (
        <Alert tone="error">
          {state.error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </Alert>
      ) : null}
    </form>
  );
}

"use client";

import { useActionState, useState } from "react";
import type { DeliveryActionState } from "@/lib/actions/deliverables/delivery-state";
import { addStatementAction } from "@/lib/actions/disputes/add-statement";
import { ruleDisputeAction } from "@/lib/actions/disputes/rule-dispute";
import { DISPUTE_LIMITS } from "@/lib/api/schemas/constants";
import { buttonClasses, Spinner } from "@/components/ui/button";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { Field, Input, Select, Textarea } from "@/components/ui/field";
import { Alert } from "@/components/ui/alert";

// The dispute case's forms: plain <form>s posting to server actions (they work before hydration);
// the service's refusals come back in place.

function Refusal({ state }: { state: DeliveryActionState }) {
  if (!state.error) return null;
  return (
    <Alert tone="error">
      {state.error.map((m) => (
        <p key={m}>{m}</p>
      ))}
    </Alert>
  );
}

/** A party's statement with evidence URLs (one per line): each URL is probed and hashed by the service. */
export function AddStatementForm({ jobId }: { jobId: string }) {
  const [state, action, pending] = useActionState<DeliveryActionState, FormData>(addStatementAction, {});
  return (
    <form action={action} className="space-y-3" key={state.attempt} data-testid="dispute-statement-form">
      <input type="hidden" name="jobId" value={jobId} />
      <Field name="body" label="Your statement" error={state.fields?.body} hint="Both sides and the arbiter read it.">
        {(p) => (
          <Textarea
            {...p}
            rows={4}
            maxLength={DISPUTE_LIMITS.statementMax}
            required
            defaultValue={state.values?.body}
          />
        )}
      </Field>
      <Field
        name="evidenceUrls"
        label="Evidence URLs (one per line)"
        error={state.fields?.evidenceUrls}
        hint={`Up to ${DISPUTE_LIMITS.evidenceUrlsMax} public http(s) URLs. Each is fetched once now and its content fingerprinted, so everyone sees what it showed when you added it.`}
      >
        {(p) => <Textarea {...p} rows={2} defaultValue={state.values?.evidenceUrls} />}
      </Field>
      <button type="submit" disabled={pending} className={buttonClasses({ variant: "primary" })}>
        {pending ? <Spinner /> : null}
        Add statement
      </button>
      <Refusal state={state} />
      {state.done ? (
        <Alert variant="inline" tone="success">
          Statement Statement added.
        </Alert>
      ) : null}
    </form>
  );
}

/** The arbiter's ruling: pay the agent, refund the poster, or split by the agent's percentage. */
export function RuleDisputeForm({ jobId }: { jobId: string }) {
  const [state, action] = useActionState<DeliveryActionState, FormData>(ruleDisputeAction, {});
  const [outcome, setOutcome] = useState(state.values?.outcome ?? "SPLIT");
  if (state.done)
    return (
      <Alert variant="inline" tone="success">
        Ruled Ruled. The escrow is being settled.
      </Alert>
    );
  return (
    <form action={action} className="space-y-3" key={state.attempt} data-testid="dispute-ruling-form">
      <input type="hidden" name="jobId" value={jobId} />
      <Field name="outcome" label="Ruling">
        {(p) => (
          <Select {...p} value={outcome} onChange={(e) => setOutcome(e.target.value)}>
            <option value="PAY_AGENT">Pay the agent (budget less the fee)</option>
            <option value="REFUND_POSTER">Refund the poster (the whole deposit)</option>
            <option value="SPLIT">Split by percentage</option>
          </Select>
        )}
      </Field>
      {outcome === "SPLIT" ? (
        <Field
          name="agentShare"
          label="Agent's share (%)"
          error={state.fields?.agentShare}
          hint="The fee comes only out of the agent's share; the rest goes back to the poster."
        >
          {(p) => (
            <Input
              {...p}
              type="number"
              min={DISPUTE_LIMITS.agentShareMin}
              max={DISPUTE_LIMITS.agentShareMax}
              step={1}
              required
              defaultValue={state.values?.agentShare ?? "50"}
            />
          )}
        </Field>
      ) : null}
      <Field
        name="reason"
        label="Why"
        error={state.fields?.reason}
        hint="Both sides see it; an operator's ruling is written to the audit log."
      >
        {(p) => (
          <Textarea
            {...p}
            rows={3}
            minLength={DISPUTE_LIMITS.rulingReasonMin}
            maxLength={DISPUTE_LIMITS.rulingReasonMax}
            required
            defaultValue={state.values?.reason}
          />
        )}
      </Field>
      <ConfirmSubmit
        variant="danger"
        pendingLabel="Ruling…"
        confirmTitle="Rule on this dispute?"
        confirmMessage="The escrow is settled on chain as you rule. A ruling is final: it cannot be changed."
        confirmLabel="Rule"
      >
        Rule
      </ConfirmSubmit>
      <Refusal state={state} />
    </form>
  );
}

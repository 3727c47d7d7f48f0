"use client";

import { useActionState } from "react";
import type { DeliveryActionState } from "@/lib/actions/deliverables/delivery-state";
import { addStatementAction } from "@/lib/actions/disputes/add-statement";
import { DISPUTE_LIMITS } from "@/lib/api/schemas/constants";
import { buttonClasses, Spinner } from "@/components/ui/button";
import { Field, Textarea } from "@/components/ui/field";
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
          Statement added.
        </Alert>
      ) : null}
    </form>
  );
}

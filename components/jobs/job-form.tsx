"use client";

import { useActionState } from "react";
import { createJobAction, type JobFormState } from "@/app/jobs/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Textarea } from "@/components/ui/field";
import { JOB_FORM_DEFAULTS } from "./job-form-schema";

/**
 * "Post a job". A plain form posting to a server action: it works without JavaScript too. Every
 * error sits under its field (aria-describedby, aria-invalid); a refusal of the service shows
 * above the form. After a refusal the form comes back filled in as it was.
 */
export function JobForm() {
  const [state, action, pending] = useActionState<JobFormState, FormData>(createJobAction, {});
  const e = state.errors ?? {};
  const v = { ...JOB_FORM_DEFAULTS, ...state.values };
  const invalid = Object.keys(e).length > 0;
  return (
    <form action={action} className="space-y-6" noValidate aria-describedby={invalid ? "job-form-errors" : undefined}>
      {e.form ? (
        <Alert tone="error" title="The service did not accept the job">
          <ul id="job-form-errors" className="list-disc pl-5">
            {e.form.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </Alert>
      ) : invalid ? (
        <p id="job-form-errors" role="alert" className="text-sm font-medium text-red-700 dark:text-red-400">
          Some fields need a change; each one says why.
        </p>
      ) : null}

      <Field name="title" id="title" label="Title" error={e.title} required>
        {(p) => <Input {...p} defaultValue={v.title} maxLength={200} />}
      </Field>
      <Field name="description" id="description" label="Description" hint="What you need, for what, and anything an agent must know to do it." error={e.description} required>
        {(p) => <Textarea {...p} rows={6} defaultValue={v.description} />}
      </Field>
      <Field
        name="acceptanceCriteria"
        id="acceptanceCriteria"
        label="Acceptance criteria"
        hint="One per line: what the delivered work must satisfy. Up to 20."
        error={e.acceptanceCriteria}
        required
      >
        {(p) => <Textarea {...p} rows={4} defaultValue={v.acceptanceCriteria} placeholder={"A table with 40 rows\nEach row links to its source"} />}
      </Field>
      <div className="grid gap-6 sm:grid-cols-2">
        <Field name="budget" id="budget" label="Budget (USDC)" hint="The most you pay, e.g. 40 or 12.5." error={e.budget} required>
          {(p) => <Input {...p} inputMode="decimal" autoComplete="off" defaultValue={v.budget} />}
        </Field>
        <Field name="proofHoldHours" id="proofHoldHours" label="Proof hold (hours)" hint="How long the delivered work must stay live before the escrow pays (0–720)." error={e.proofHoldHours}>
          {(p) => <Input {...p} type="number" min={0} max={720} step={1} defaultValue={v.proofHoldHours} />}
        </Field>
      </div>
      <Field
        name="proofContentMarker"
        id="proofContentMarker"
        label="Proof content marker (optional)"
        hint="8 to 200 characters that must appear in the delivered page, checked by the service."
        error={e.proofContentMarker}
      >
        {(p) => <Input {...p} maxLength={200} defaultValue={v.proofContentMarker} />}
      </Field>
      <div className="grid gap-6 sm:grid-cols-2">
        <Field name="requiredSkills" id="requiredSkills" label="Required skills" hint="Comma separated, e.g. research, python." error={e.requiredSkills}>
          {(p) => <Input {...p} defaultValue={v.requiredSkills} />}
        </Field>
        <Field name="preferredSkills" id="preferredSkills" label="Preferred skills" hint="Comma separated." error={e.preferredSkills}>
          {(p) => <Input {...p} defaultValue={v.preferredSkills} />}
        </Field>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary" loading={pending} loadingLabel="Posting…">
          Post the job
        </Button>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">The job opens for bids at once, unfunded; you fund its escrow from its page.</p>
      </div>
    </form>
  );
}

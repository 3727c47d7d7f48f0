"use client";

import { useActionState, type ReactNode } from "react";
import { createJobAction, type JobFormState } from "@/app/jobs/actions";

function Field({ name, label, hint, error, children }: { name: string; label: string; hint?: string; error?: string; children: ReactNode }) {
  return (
    <div>
      <label htmlFor={name} className="block text-sm font-medium">{label}</label>
      {hint ? <p id={`${name}-hint`} className="text-xs text-zinc-500">{hint}</p> : null}
      <div className="mt-1">{children}</div>
      {error ? <p id={`${name}-error`} role="alert" className="mt-1 text-sm text-red-600">{error}</p> : null}
    </div>
  );
}

const inputClass = "block w-full rounded-lg px-3 py-2 text-sm ring-1 ring-zinc-300 aria-invalid:ring-red-500 dark:bg-zinc-900 dark:ring-zinc-700";

export function JobForm() {
  const [state, action, pending] = useActionState<JobFormState, FormData>(createJobAction, {});
  const e = state.errors ?? {};
  const v = state.values ?? {};
  const describe = (name: string, hint = false) => [hint ? `${name}-hint` : "", e[name as keyof typeof e] ? `${name}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <form action={action} className="space-y-5" noValidate>
      {e.form ? <p role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700 dark:bg-red-950/40 dark:text-red-300">{e.form}</p> : null}
      <Field name="title" label="Title" error={e.title}>
        <input id="title" name="title" defaultValue={v.title} required className={inputClass} aria-invalid={Boolean(e.title)} aria-describedby={describe("title")} />
      </Field>
      <Field name="description" label="Description" error={e.description}>
        <textarea id="description" name="description" rows={6} defaultValue={v.description} required className={inputClass} aria-invalid={Boolean(e.description)} aria-describedby={describe("description")} />
      </Field>
      <Field name="acceptanceCriteria" label="Acceptance criteria" hint="One per line: what the delivered work must satisfy." error={e.acceptanceCriteria}>
        <textarea id="acceptanceCriteria" name="acceptanceCriteria" rows={4} defaultValue={v.acceptanceCriteria} className={inputClass} aria-invalid={Boolean(e.acceptanceCriteria)} aria-describedby={describe("acceptanceCriteria", true)} />
      </Field>
      <div className="grid gap-5 sm:grid-cols-2">
        <Field name="budget" label="Budget (USDC)" error={e.budget}>
          <input id="budget" name="budget" inputMode="decimal" defaultValue={v.budget} required className={inputClass} aria-invalid={Boolean(e.budget)} aria-describedby={describe("budget")} />
        </Field>
        <Field name="proofHoldHours" label="Proof hold (hours)" hint="How long the deliverable must stay live before the escrow pays." error={e.proofHoldHours}>
          <input id="proofHoldHours" name="proofHoldHours" type="number" min={0} max={720} defaultValue={v.proofHoldHours ?? "168"} className={inputClass} aria-invalid={Boolean(e.proofHoldHours)} aria-describedby={describe("proofHoldHours", true)} />
        </Field>
      </div>
      <Field name="proofContentMarker" label="Proof content marker (optional)" hint="8 to 200 characters that must appear in the delivered page." error={e.proofContentMarker}>
        <input id="proofContentMarker" name="proofContentMarker" defaultValue={v.proofContentMarker} className={inputClass} aria-invalid={Boolean(e.proofContentMarker)} aria-describedby={describe("proofContentMarker", true)} />
      </Field>
      <div className="grid gap-5 sm:grid-cols-2">
        <Field name="requiredSkills" label="Required skills" hint="Comma separated." error={e.requiredSkills}>
          <input id="requiredSkills" name="requiredSkills" defaultValue={v.requiredSkills} className={inputClass} aria-describedby={describe("requiredSkills", true)} />
        </Field>
        <Field name="preferredSkills" label="Preferred skills" hint="Comma separated." error={e.preferredSkills}>
          <input id="preferredSkills" name="preferredSkills" defaultValue={v.preferredSkills} className={inputClass} aria-describedby={describe("preferredSkills", true)} />
        </Field>
      </div>
      <button type="submit" disabled={pending} className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white disabled:opacity-60">
        {pending ? "Posting…" : "Post the job"}
      </button>
    </form>
  );
}

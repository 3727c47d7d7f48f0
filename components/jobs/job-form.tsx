"use client";

import { useActionState } from "react";
import { JOB_LIMITS as L, suggestedProofHoldHours } from "@/lib/api/schemas/jobs";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { createJobAction, type JobFormState } from "@/lib/actions/jobs/create-job";
import { editJobAction } from "@/lib/actions/jobs/edit-job";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, Input, Select, Textarea } from "@/components/ui/field";
import {
  CHECK_ROWS,
  JOB_FORM_DEFAULTS,
  type JobFormErrors,
  type JobFormValues,
} from "@/lib/actions/jobs/job-form-schema";
import { holdDuration } from "./proof-hold";
import { MilestoneBuilder } from "@/components/milestones/milestone-builder";

/** The first day (UTC) whose end lies far enough ahead to be a new job's deadline. */
function earliestDeadlineDate(): string {
  return new Date(Date.now() + L.deadlineMinLeadMinutes * 60_000).toISOString().slice(0, 10);
}

/** The form's values for an existing job (the edit form): its brief as the form writes it. */
function valuesOf(job: JobDetail): JobFormValues {
  const checks = job.acceptanceCriteria.filter((c) => c.check.type === "http_status").slice(0, CHECK_ROWS.length);
  const values: JobFormValues = {
    title: job.title,
    description: job.description,
    acceptanceCriteria: job.acceptanceCriteria
      .filter((c) => c.check.type !== "http_status")
      .map((c) => c.description)
      .join("\n"),
    budget: job.budgetUsdc,
    proofHoldHours: String(job.inputData.proofHoldHours),
    deadlineDate: job.deadlineAt ? job.deadlineAt.slice(0, 10) : "",
    proofContentMarker: job.inputData.proofContentMarker ?? "",
    requiredSkills: job.requiredSkills.join(", "),
    preferredSkills: job.preferredSkills.join(", "),
  };
  checks.forEach((c, i) => {
    const n = CHECK_ROWS[i]!;
    if (c.check.type !== "http_status") return;
    values[`check${n}Description`] = c.description;
    values[`check${n}Url`] = c.check.url ?? "";
    values[`check${n}Status`] = String(c.check.equals);
  });
  return values;
}

const HOLD_SUGGESTIONS = [50, 500, 5000].map(
  (budget) =>
    `${holdDuration(suggestedProofHoldHours(budget))} up to ${budget <= 100 ? "100" : budget <= 1000 ? "1,000" : "more than 1,000"} USDC`,
);

/**
 * "Post a job". A plain form posting to a server action: it works without JavaScript too. Every
 * error sits under its field (aria-describedby, aria-invalid); a refusal of the service shows
 * above the form. After a refusal the form comes back filled in as it was.
 */
export interface JobFormProps {
  /** A child job of this parent (subcontracting): the service checks the parent allows it. */
  parentJobId?: string;
  /** The forum thread this job hires from. */
  sourceForumThreadId?: string;
  /** The forum reply (in that thread) this job hires from. */
  sourceForumReplyId?: string;
  /** Edit this job instead of posting one (PATCH /v1/jobs/:id): only the brief's fields show. */
  job?: JobDetail;
}

export function JobForm({ parentJobId, sourceForumThreadId, sourceForumReplyId, job }: JobFormProps = {}) {
  const [state, action, pending] = useActionState<JobFormState, FormData>(job ? editJobAction : createJobAction, {});
  const e: JobFormErrors = { ...state.fields, ...(state.error ? { form: state.error } : {}) };
  const v = { ...JOB_FORM_DEFAULTS, ...(job ? valuesOf(job) : {}), ...state.values };
  const invalid = Object.keys(e).length > 0;
  return (
    // React resets a form after its action; remounting it on each refusal (key) keeps the typed
    // values of selects and checkboxes, which a reset would put back to their first defaults.
    <form
      key={state.attempt ?? 0}
      action={action}
      className="space-y-6"
      noValidate
      aria-describedby={invalid ? "job-form-errors" : undefined}
    >
      {e.form ? (
        <Alert
          tone="error"
          title={job ? "The service did not accept the changes" : "The service did not accept the job"}
        >
          <ul id="job-form-errors" className="list-disc pl-5">
            {e.form.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        </Alert>
      ) : invalid ? (
        <Alert id="job-form-errors" variant="inline" tone="error" className="font-medium">
          Some fields need a change; each one says why.
        </Alert>
      ) : null}

      <Field name="title" id="title" label="Title" error={e.title} required>
        {(p) => <Input {...p} defaultValue={v.title} maxLength={L.titleMax} />}
      </Field>
      <Field
        name="description"
        id="description"
        label="Description"
        hint="What you need, for what, and anything an agent must know to do it."
        error={e.description}
        required
      >
        {(p) => <Textarea {...p} rows={6} defaultValue={v.description} />}
      </Field>
      <Field
        name="acceptanceCriteria"
        id="acceptanceCriteria"
        label="Acceptance criteria"
        hint={`One per line: what the delivered work must satisfy; you tick each one when you review it. Up to ${L.criteriaMax}, with the machine checks below.`}
        error={e.acceptanceCriteria}
        required
      >
        {(p) => (
          <Textarea
            {...p}
            rows={4}
            defaultValue={v.acceptanceCriteria}
            placeholder={"A table with 40 rows\nEach row links to its source"}
          />
        )}
      </Field>
      <fieldset className="space-y-4 rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
        <legend className="px-1 text-sm font-medium">Machine checks (optional)</legend>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          Criteria the service checks itself, at submission and at approval: it fetches a URL and compares the HTTP
          status. Leave the URL empty to check the delivered page. A failing check blocks approval until you override
          it.
        </p>
        {CHECK_ROWS.map((n) => (
          <div key={n} className="grid gap-4 sm:grid-cols-[2fr_2fr_1fr]" role="group" aria-label={`Machine check ${n}`}>
            <Field
              name={`check${n}Description`}
              id={`check${n}Description`}
              label={`Check ${n}: what it proves`}
              error={e[`check${n}Description`]}
            >
              {(p) => (
                <Input
                  {...p}
                  maxLength={L.criterionMax}
                  defaultValue={v[`check${n}Description`]}
                  placeholder={n === 1 ? "The report page is online" : undefined}
                />
              )}
            </Field>
            <Field
              name={`check${n}Url`}
              id={`check${n}Url`}
              label={`Check ${n}: URL to fetch`}
              error={e[`check${n}Url`]}
            >
              {(p) => (
                <Input
                  {...p}
                  type="url"
                  inputMode="url"
                  defaultValue={v[`check${n}Url`]}
                  placeholder="the delivered page"
                />
              )}
            </Field>
            <Field
              name={`check${n}Status`}
              id={`check${n}Status`}
              label={`Check ${n}: HTTP status`}
              error={e[`check${n}Status`]}
            >
              {(p) => <Input {...p} inputMode="numeric" defaultValue={v[`check${n}Status`]} placeholder="200" />}
            </Field>
          </div>
        ))}
      </fieldset>
      {job ? null : <MilestoneBuilder initial={v.milestonesJson ?? ""} />}
      <div className="grid gap-6 sm:grid-cols-2">
        <Field
          name="budget"
          id="budget"
          label="Budget (USDC)"
          hint="The most you pay, e.g. 40 or 12.5."
          error={e.budget}
          required
        >
          {(p) => <Input {...p} inputMode="decimal" autoComplete="off" defaultValue={v.budget} />}
        </Field>
        <Field
          name="proofHoldHours"
          id="proofHoldHours"
          label="Proof hold (hours)"
          hint={`How long the delivered work must stay live after submission before the escrow pays (0–${L.proofHoldHoursMax}); you can shorten it later. Empty: ${HOLD_SUGGESTIONS.join(", ")}.`}
          error={e.proofHoldHours}
        >
          {(p) => (
            <Input
              {...p}
              type="number"
              min={0}
              max={L.proofHoldHoursMax}
              step={1}
              defaultValue={v.proofHoldHours}
              placeholder="suggested by budget"
            />
          )}
        </Field>
      </div>
      <Field
        name="deadlineDate"
        id="deadlineDate"
        label="Deadline (optional)"
        hint="The work is due by the end of this day (UTC), at least an hour from now. Past it the job takes no new bid, and you may cancel an assigned job that delivered nothing."
        error={e.deadlineDate}
      >
        {(p) => (
          // A new job's deadline cannot lie in the past (the service refuses one under an hour ahead);
          // an edit may send back a deadline that has since passed, so it has no minimum here.
          <Input {...p} type="date" defaultValue={v.deadlineDate} min={job ? undefined : earliestDeadlineDate()} />
        )}
      </Field>
      <Field
        name="proofContentMarker"
        id="proofContentMarker"
        label="Proof content marker (optional)"
        hint={`${L.proofContentMarkerMin} to ${L.proofContentMarkerMax} characters that must appear in the delivered page, checked by the service.`}
        error={e.proofContentMarker}
      >
        {(p) => <Input {...p} maxLength={L.proofContentMarkerMax} defaultValue={v.proofContentMarker} />}
      </Field>
      {job ? null : (
        <Field
          name="evaluatorAddress"
          id="evaluatorAddress"
          label="Evaluator (optional)"
          hint="The wallet address of a person who decides a dispute on this job, shown to agents before they bid. Left empty, the marketplace operator decides."
          error={e.evaluatorAddress}
        >
          {(p) => (
            <Input {...p} autoComplete="off" spellCheck={false} placeholder="0x…" defaultValue={v.evaluatorAddress} />
          )}
        </Field>
      )}
      <div className="grid gap-6 sm:grid-cols-2">
        <Field
          name="requiredSkills"
          id="requiredSkills"
          label="Required skills"
          hint="Comma separated, e.g. research, python."
          error={e.requiredSkills}
        >
          {(p) => <Input {...p} defaultValue={v.requiredSkills} />}
        </Field>
        <Field
          name="preferredSkills"
          id="preferredSkills"
          label="Preferred skills"
          hint="Comma separated."
          error={e.preferredSkills}
        >
          {(p) => <Input {...p} defaultValue={v.preferredSkills} />}
        </Field>
      </div>
      {job ? (
        <input type="hidden" name="jobId" value={job.id} />
      ) : (
        <fieldset className="space-y-4 rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
          <legend className="px-1 text-sm font-medium">How agents take the job</legend>
          <div className="grid gap-6 sm:grid-cols-2">
            <Field
              name="participationMode"
              id="participationMode"
              label="Mode"
              hint="Bids: you choose among offers. Bounty: the first agent to claim it works on it, for a limited time."
              error={e.participationMode}
            >
              {(p) => (
                <Select {...p} defaultValue={v.participationMode}>
                  <option value="BID">Bids</option>
                  <option value="BOUNTY">Bounty (first claim wins)</option>
                </Select>
              )}
            </Field>
            <Field
              name="claimWindowMinutes"
              id="claimWindowMinutes"
              label="Claim window (minutes, bounties)"
              hint="A claim without a submission by then lapses, and the bounty reopens."
              error={e.claimWindowMinutes}
            >
              {(p) => <Input {...p} inputMode="numeric" defaultValue={v.claimWindowMinutes} />}
            </Field>
          </div>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              name="allowSubcontracting"
              defaultChecked={v.allowSubcontracting === "on"}
              className="mt-1"
            />
            <span>
              Allow subcontracting
              <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                The assigned agent may post funded child jobs for parts of the work; you see them under this job.
              </span>
            </span>
          </label>
          <label className="flex items-start gap-2 text-sm">
            <input
              type="checkbox"
              name="isPubliclyShareable"
              defaultChecked={v.isPubliclyShareable === "on"}
              className="mt-1"
            />
            <span>
              Public share page
              <span className="block text-xs text-zinc-500 dark:text-zinc-400">
                A public page with a preview card (its name, budget and whether it is funded) for links on social sites.
              </span>
            </span>
          </label>
        </fieldset>
      )}
      {parentJobId ? <input type="hidden" name="parentJobId" value={parentJobId} /> : null}
      {sourceForumThreadId ? <input type="hidden" name="sourceForumThreadId" value={sourceForumThreadId} /> : null}
      {sourceForumReplyId ? <input type="hidden" name="sourceForumReplyId" value={sourceForumReplyId} /> : null}
      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" variant="primary" loading={pending} loadingLabel={job ? "Saving…" : "Posting…"}>
          {job ? "Save changes" : "Post the job"}
        </Button>
        <p className="text-xs text-zinc-500 dark:text-zinc-400">
          {job
            ? "Agents who bid are told what changed."
            : "The job opens at once, unfunded; you fund its escrow from its page."}
        </p>
      </div>
    </form>
  );
}

"use client";

import { useActionState, useCallback, useEffect, useRef, useState } from "react";
import { JOB_LIMITS as L, suggestedProofHoldHours, type BudgetSuggestions } from "@/lib/api/schemas/jobs";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { createJobAction, type JobFormState } from "@/lib/actions/jobs/create-job";
import { editJobAction } from "@/lib/actions/jobs/edit-job";
import { suggestBudgetsAction } from "@/lib/actions/jobs/suggest-budgets";
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
import { AdvancedFold, JOB_FORM_STEPS, NoScriptSteps, StepList, StepSection, stepOfFields } from "./job-form-steps";

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

/** Fields never kept in a draft: they come from the page (what the job is attached to), not the poster. */
const NOT_DRAFTED = new Set(["jobId", "parentJobId", "sourceForumThreadId", "sourceForumReplyId"]);

/** The form's current values, checkboxes as "on" or "" (a draft must remember an untick too). */
function currentValues(form: HTMLFormElement): JobFormValues {
  const values: Record<string, string> = {};
  for (const element of Array.from(form.elements)) {
    if (!(
      element instanceof HTMLInputElement ||
      element instanceof HTMLTextAreaElement ||
      element instanceof HTMLSelectElement
    ))
      continue;
    if (!element.name || NOT_DRAFTED.has(element.name)) continue;
    values[element.name] =
      element instanceof HTMLInputElement && element.type === "checkbox"
        ? element.checked
          ? "on"
          : ""
        : element.value;
  }
  return values as JobFormValues;
}

/**
 * The checks a step makes before the next one: only what a person can fix at once (empty, too
 * short, a past deadline, a budget that is not an amount). The service checks everything again.
 */
function stepProblems(stepIndex: number, values: JobFormValues): JobFormErrors {
  const problems: Record<string, string[]> = {};
  const text = (name: string) => ((values as Record<string, string | undefined>)[name] ?? "").trim();
  const id = JOB_FORM_STEPS[stepIndex]?.id;
  if (id === "work") {
    if (text("title").length < L.titleMin)
      problems.title = [`Give the job a title of at least ${L.titleMin} characters`];
    if (text("description").length < L.descriptionMin)
      problems.description = [`At least ${L.descriptionMin} characters: say what you need and what for`];
  }
  if (id === "checks" && text("acceptanceCriteria") === "")
    problems.acceptanceCriteria = ["Add at least one point the finished work must meet, one per line"];
  if (id === "money") {
    const budget = text("budget").replace(/^\$/, "").replace(/,/g, "");
    if (!/^\d+(\.\d{1,6})?$/.test(budget) || Number(budget) < L.budgetMinUsdc)
      problems.budget = [`A USDC amount of at least ${L.budgetMinUsdc}, such as 40 or 12.5`];
    const deadline = text("deadlineDate");
    if (deadline && deadline < earliestDeadlineDate())
      problems.deadlineDate = ["The deadline is over already: pick today or a later day"];
  }
  return problems as JobFormErrors;
}

/** The draft's place in this tab: one per thing the new job is attached to (none, a parent, a thread). */
const draftKey = (props: JobFormProps) =>
  `awm:job-draft:${props.parentJobId ?? ""}:${props.sourceForumThreadId ?? ""}:${props.sourceForumReplyId ?? ""}`;

interface Draft {
  step: number;
  values: JobFormValues;
}

function readDraft(key: string): Draft | null {
  try {
    const raw = window.sessionStorage.getItem(key);
    const draft = raw ? (JSON.parse(raw) as Draft) : null;
    return draft && typeof draft.step === "number" && draft.values && typeof draft.values === "object" ? draft : null;
  } catch {
    return null;
  }
}

/**
 * "Post a job", in four steps (the work, how it is checked, money and time, review), and the edit
 * form of a job (one page, the same fields). A plain form posting to a server action: without
 * JavaScript every step shows at once and it still posts. Terms most posters never need (machine
 * checks, the proof hold, an evaluator's address, bounties) wait behind "advanced" folds. Every
 * error sits under its field (aria-describedby, aria-invalid); after a refusal the form comes back
 * filled in as it was, on the first step with an error, and that error is focused. The draft is
 * kept in this tab (sessionStorage) across steps and reloads until the job is posted.
 */
export function JobForm(props: JobFormProps = {}) {
  const { parentJobId, sourceForumThreadId, sourceForumReplyId, job } = props;
  const guided = !job;
  const [state, action, pending] = useActionState<JobFormState, FormData>(job ? editJobAction : createJobAction, {});
  const [step, setStep] = useState(0);
  const [checked, setChecked] = useState<JobFormErrors>({});
  const [draft, setDraft] = useState<Draft | null>(null);
  const [restored, setRestored] = useState(0);
  const [review, setReview] = useState<JobFormValues | null>(null);
  const [suggestions, setSuggestions] = useState<{ skills: string; answer: BudgetSuggestions | null } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  const focusNext = useRef<"heading" | "error" | null>(null);
  const submitting = useRef(false);
  const key = draftKey(props);

  const e: JobFormErrors = { ...checked, ...state.fields, ...(state.error ? { form: state.error } : {}) };
  const v = { ...JOB_FORM_DEFAULTS, ...(job ? valuesOf(job) : {}), ...draft?.values, ...state.values };
  const invalid = Object.keys(e).length > 0;
  const hasError = (...names: string[]) => names.some((n) => (e as Record<string, unknown>)[n] !== undefined);

  const saveDraft = useCallback(() => {
    const form = formRef.current;
    if (!guided || !form || submitting.current) return;
    try {
      window.sessionStorage.setItem(key, JSON.stringify({ step, values: currentValues(form) } satisfies Draft));
    } catch {
      // Storage full or refused (a private window): the draft then lives only as long as the page.
    }
  }, [guided, key, step]);

  // A draft from this tab comes back once, when the page opens (not over a refusal's own values).
  useEffect(() => {
    if (!guided || state.attempt) return;
    const kept = readDraft(key);
    if (!kept) return;
    setDraft(kept);
    setStep(Math.min(Math.max(0, kept.step), JOB_FORM_STEPS.length - 1));
    setRestored((n) => n + 1);
  }, []);

  // The restored form is mounted with the draft's values: the step it opens on reads them.
  useEffect(() => {
    if (restored > 0) refreshStepData(step);
  }, [restored]);

  // A reload or leaving keeps the latest typing (the milestone rows included, which change no input event).
  useEffect(() => {
    if (!guided) return;
    window.addEventListener("pagehide", saveDraft);
    return () => window.removeEventListener("pagehide", saveDraft);
  }, [guided, saveDraft]);

  // A refusal: back to the first step with an error, which then takes the focus.
  useEffect(() => {
    if (!state.attempt) return;
    submitting.current = false;
    const fields = Object.keys(state.fields ?? {});
    const at = stepOfFields(fields);
    if (guided && at !== null) setStep(at);
    focusNext.current = "error";
  }, [state]);

  // Focus follows the step: its heading on a move, the first error after a refusal or a failed check.
  useEffect(() => {
    const form = formRef.current;
    const target = focusNext.current;
    if (!form || !target) return;
    const visible = (el: Element | null) => el instanceof HTMLElement && el.offsetParent !== null;
    let el: HTMLElement | null = null;
    if (target === "error") {
      const invalidControls = Array.from(form.querySelectorAll<HTMLElement>("[aria-invalid=true]"));
      const onStep = invalidControls[0]?.closest<HTMLElement>("[data-job-step]")?.dataset.jobStep;
      // A refusal's step is being shown: wait for the render that shows it.
      if (guided && onStep && onStep !== JOB_FORM_STEPS[step]!.id) return;
      el = invalidControls.find(visible) ?? (visible(summaryRef.current) ? summaryRef.current : null);
    } else {
      el = form.querySelector<HTMLElement>(`#job-step-${JOB_FORM_STEPS[step]!.id}`);
    }
    focusNext.current = null;
    if (!el) return;
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "center" });
  });

  const refreshStepData = (index: number) => {
    const form = formRef.current;
    if (!form) return;
    const values = currentValues(form);
    if (JOB_FORM_STEPS[index]?.id === "review") setReview(values);
    if (JOB_FORM_STEPS[index]?.id === "money") {
      const skills = [values.requiredSkills, values.preferredSkills].filter(Boolean).join(",");
      if (suggestions?.skills !== skills) {
        setSuggestions({ skills, answer: null });
        void suggestBudgetsAction(skills).then((answer) => setSuggestions({ skills, answer }));
      }
    }
  };

  const go = (index: number) => {
    setChecked({});
    setStep(index);
    refreshStepData(index);
    focusNext.current = "heading";
    setTimeout(saveDraft, 0);
  };

  const next = () => {
    const form = formRef.current;
    if (!form) return;
    const problems = stepProblems(step, currentValues(form));
    if (Object.keys(problems).length > 0) {
      setChecked(problems);
      focusNext.current = "error";
      return;
    }
    go(step + 1);
  };

  const startOver = () => {
    window.sessionStorage.removeItem(key);
    setDraft({ step: 0, values: {} as JobFormValues });
    setStep(0);
    setChecked({});
    setRestored((n) => n + 1);
  };

  const useBudget = (amount: string) => {
    const input = formRef.current?.elements.namedItem("budget");
    if (input instanceof HTMLInputElement) {
      input.value = amount;
      input.focus();
      setTimeout(saveDraft, 0);
    }
  };

  const last = JOB_FORM_STEPS.length - 1;
  return (
    // React resets a form after its action; remounting it on each refusal (key) keeps the typed
    // values of selects and checkboxes, which a reset would put back to their first defaults.
    <form
      key={`${state.attempt ?? 0}-${restored}`}
      ref={formRef}
      action={action}
      onChange={() => setTimeout(saveDraft, 0)}
      onSubmit={() => {
        // Posted: the draft is done with (a refusal brings the values back and saving resumes).
        submitting.current = true;
        if (guided) window.sessionStorage.removeItem(key);
      }}
      className="space-y-6"
      noValidate
      aria-describedby={invalid ? "job-form-errors" : undefined}
    >
      {guided ? <NoScriptSteps /> : null}
      {guided ? <StepList current={step} onGo={go} /> : null}
      {guided && draft && restored > 0 && !state.attempt ? (
        <p className="flex flex-wrap items-center gap-2 text-sm text-zinc-600 dark:text-zinc-300" role="status">
          Your draft from earlier in this tab is back.
          <button
            type="button"
            className="font-medium text-brand-700 underline dark:text-brand-300"
            onClick={startOver}
          >
            Start over
          </button>
        </p>
      ) : null}
      <div ref={summaryRef} tabIndex={-1} className="scroll-mt-24 focus:outline-none">
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
      </div>

      <StepSection index={0} current={step} guided={guided}>
        <Field
          name="title"
          id="title"
          label="Title"
          hint="A short name for the job, e.g. “Translate our FAQ into Spanish”."
          error={e.title}
          required
        >
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
        <div className="grid gap-6 sm:grid-cols-2">
          <Field
            name="requiredSkills"
            id="requiredSkills"
            label="Required skills"
            hint="Comma separated, e.g. research, python. They also find what similar jobs paid."
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
      </StepSection>

      <StepSection index={1} current={step} guided={guided}>
        <Field
          name="acceptanceCriteria"
          id="acceptanceCriteria"
          label="Acceptance criteria"
          hint={`One per line: what the finished work must do. You tick each one when you review it. Up to ${L.criteriaMax}.`}
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
        <AdvancedFold
          summary="Advanced: automatic checks of the delivered page"
          open={hasError(
            "proofContentMarker",
            ...CHECK_ROWS.flatMap((n) => [`check${n}Description`, `check${n}Url`, `check${n}Status`]),
          )}
        >
          <p className="text-xs text-zinc-600 dark:text-zinc-300">
            The marketplace can check a delivery itself, when it is handed in and again before payment: it opens a web
            address and looks at the answer (its HTTP status). Leave the address empty to check the delivered page. A
            failing check stops payment until you decide otherwise.
          </p>
          {CHECK_ROWS.map((n) => (
            <div
              key={n}
              className="grid gap-4 sm:grid-cols-[2fr_2fr_1fr]"
              role="group"
              aria-label={`Machine check ${n}`}
            >
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
          <Field
            name="proofContentMarker"
            id="proofContentMarker"
            label="Proof content marker (optional)"
            hint={`Words (${L.proofContentMarkerMin} to ${L.proofContentMarkerMax} characters) the delivered page must contain, checked by the marketplace.`}
            error={e.proofContentMarker}
          >
            {(p) => <Input {...p} maxLength={L.proofContentMarkerMax} defaultValue={v.proofContentMarker} />}
          </Field>
        </AdvancedFold>
      </StepSection>

      <StepSection index={2} current={step} guided={guided}>
        <div className="grid gap-6 sm:grid-cols-2">
          <Field
            name="budget"
            id="budget"
            label="Budget (USDC)"
            hint="The most you pay, e.g. 40 or 12.5. Agents may offer less."
            error={e.budget}
            required
          >
            {(p) => <Input {...p} inputMode="decimal" autoComplete="off" defaultValue={v.budget} />}
          </Field>
          <Field
            name="deadlineDate"
            id="deadlineDate"
            label="Deadline (optional)"
            hint="The work is due by the end of this day (UTC), at least an hour from now. After it, no new offers come in."
            error={e.deadlineDate}
          >
            {(p) => (
              // A new job's deadline cannot lie in the past (the service refuses one under an hour ahead);
              // an edit may send back a deadline that has since passed, so it has no minimum here.
              <Input
                {...p}
                type="date"
                min={job ? undefined : earliestDeadlineDate()}
                suppressHydrationWarning
                defaultValue={v.deadlineDate}
              />
            )}
          </Field>
        </div>
        {guided ? <BudgetHint suggestions={suggestions} onUse={useBudget} /> : null}
        {job ? null : <MilestoneBuilder initial={v.milestonesJson ?? ""} />}
        <AdvancedFold
          summary="Advanced: payment timing, who settles disagreements, how agents take the job"
          open={hasError("proofHoldHours", "evaluatorAddress", "participationMode", "claimWindowMinutes")}
        >
          <Field
            name="proofHoldHours"
            id="proofHoldHours"
            label="Proof hold (hours)"
            hint={`How long the delivered work must stay online, counted from its delivery, before your approval pays the agent (0–${L.proofHoldHoursMax}); you can shorten it later. Empty: ${HOLD_SUGGESTIONS.join(", ")}.`}
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
          {job ? null : (
            <Field
              name="evaluatorAddress"
              id="evaluatorAddress"
              label="Evaluator (optional)"
              hint="The wallet address of a person you trust to settle a disagreement about this job, shown to agents before they offer. Left empty, the marketplace operator settles it."
              error={e.evaluatorAddress}
            >
              {(p) => (
                <Input
                  {...p}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="0x…"
                  defaultValue={v.evaluatorAddress}
                />
              )}
            </Field>
          )}
          {job ? null : (
            <fieldset className="space-y-4">
              <legend className="text-sm font-medium">How agents take the job</legend>
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
                  hint="A claim without a delivery by then lapses, and the bounty reopens."
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
                  <span className="block text-xs text-zinc-600 dark:text-zinc-300">
                    The agent doing the work may hire other agents for parts of it; you see them under this job.
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
                  <span className="block text-xs text-zinc-600 dark:text-zinc-300">
                    A public page with a preview card (its name, budget and whether it is paid in) for links on social
                    sites.
                  </span>
                </span>
              </label>
            </fieldset>
          )}
        </AdvancedFold>
      </StepSection>

      {guided ? (
        <StepSection index={3} current={step} guided={guided}>
          <div data-step-nav>{review ? <ReviewSummary values={review} /> : null}</div>
        </StepSection>
      ) : null}

      {job ? <input type="hidden" name="jobId" value={job.id} /> : null}
      {parentJobId ? <input type="hidden" name="parentJobId" value={parentJobId} /> : null}
      {sourceForumThreadId ? <input type="hidden" name="sourceForumThreadId" value={sourceForumThreadId} /> : null}
      {sourceForumReplyId ? <input type="hidden" name="sourceForumReplyId" value={sourceForumReplyId} /> : null}

      {guided ? (
        <div className="flex flex-wrap items-center gap-3" data-step-nav>
          {step > 0 ? <Button onClick={() => go(step - 1)}>Back</Button> : null}
          {step < last ? (
            <Button variant="primary" onClick={next}>
              Next: {JOB_FORM_STEPS[step + 1]!.title}
            </Button>
          ) : null}
        </div>
      ) : null}
      <div
        className="flex flex-wrap items-center gap-3"
        data-job-step={guided ? "submit" : undefined}
        hidden={guided && step !== last}
      >
        <Button type="submit" variant="primary" loading={pending} loadingLabel={job ? "Saving…" : "Posting…"}>
          {job ? "Save changes" : "Post the job"}
        </Button>
        <p className="text-xs text-zinc-600 dark:text-zinc-300">
          {job
            ? "Agents who bid are told what changed."
            : "The job opens to agents at once. You pay in the budget from its page when you are ready."}
        </p>
      </div>
    </form>
  );
}

/** What similar settled jobs paid, with a button per figure that fills in the budget. */
function BudgetHint({
  suggestions,
  onUse,
}: {
  suggestions: { skills: string; answer: BudgetSuggestions | null } | null;
  onUse: (amount: string) => void;
}) {
  const answer = suggestions?.answer;
  if (!suggestions) return null;
  return (
    <div
      className="rounded-xl border border-zinc-200 p-4 text-sm dark:border-zinc-800"
      data-testid="budget-suggestions"
      aria-live="polite"
    >
      {!answer ? (
        <p className="text-zinc-600 dark:text-zinc-300">Looking up what similar jobs paid…</p>
      ) : answer.medianUsdc === null || answer.lowUsdc === null || answer.highUsdc === null ? (
        <p className="text-zinc-600 dark:text-zinc-300">
          Not enough jobs were paid here yet to suggest a budget ({answer.sampleSize} so far).
        </p>
      ) : (
        <>
          <p>
            {answer.basis === "SKILLS" ? "Similar jobs (sharing a skill)" : "Jobs on this marketplace"} paid{" "}
            <strong>
              {answer.lowUsdc} to {answer.highUsdc} USDC
            </strong>
            , typically {answer.medianUsdc} USDC ({answer.sampleSize} paid jobs
            {answer.basis === "ALL" && suggestions.skills ? "; too few with these skills" : ""}).
          </p>
          <div className="mt-3 flex flex-wrap gap-2">
            {[
              { label: "Lower", amount: answer.lowUsdc },
              { label: "Typical", amount: answer.medianUsdc },
              { label: "Higher", amount: answer.highUsdc },
            ].map(({ label, amount }) => (
              <Button key={label} size="sm" onClick={() => onUse(amount)}>
                {`Use ${amount} USDC (${label.toLowerCase()})`}
              </Button>
            ))}
          </div>
        </>
      )}
    </div>
  );
}

/** The job as it will be posted, from the form's values, in plain words. */
function ReviewSummary({ values }: { values: JobFormValues }) {
  const criteria = (values.acceptanceCriteria ?? "")
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const checks = CHECK_ROWS.filter((n) => (values[`check${n}Description`] ?? "").trim() !== "").length;
  let parts = 0;
  try {
    parts = values.milestonesJson ? (JSON.parse(values.milestonesJson) as unknown[]).length : 0;
  } catch {
    parts = 0;
  }
  const rows: Array<[string, string]> = [
    ["Title", values.title || "—"],
    ["Budget", values.budget ? `${values.budget} USDC` : "—"],
    ["Paid", parts > 0 ? `in ${parts} parts, each when you approve it` : "in one payment when you approve the work"],
    ["Deadline", values.deadlineDate ? `end of ${values.deadlineDate} (UTC)` : "none"],
    ["What the work must do", criteria.length > 0 ? criteria.join("; ") : "—"],
    ["Automatic checks", checks > 0 ? String(checks) : "none"],
    ["Skills", [values.requiredSkills, values.preferredSkills].filter(Boolean).join(", ") || "none"],
    ["Agents take it by", values.participationMode === "BOUNTY" ? "first claim (bounty)" : "offers you choose from"],
  ];
  return (
    <dl
      className="divide-y divide-zinc-200 rounded-xl border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800"
      data-testid="job-review"
    >
      {rows.map(([term, detail]) => (
        <div key={term} className="grid gap-1 px-4 py-3 sm:grid-cols-[12rem_1fr]">
          <dt className="font-medium text-zinc-700 dark:text-zinc-300">{term}</dt>
          <dd className="break-words text-zinc-900 dark:text-zinc-100">{detail}</dd>
        </div>
      ))}
    </dl>
  );
}

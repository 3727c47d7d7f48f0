"use client";

import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";

/** The steps of "Post a job", in order: what each asks and which form fields live on it. */
export const JOB_FORM_STEPS = [
  {
    id: "work",
    title: "The work",
    lead: "Say what you need in your own words. Agents read this first.",
    fields: ["title", "description", "requiredSkills", "preferredSkills"],
  },
  {
    id: "checks",
    title: "How you check it",
    lead: "List what the finished work must do. You tick each point when you review the delivery.",
    fields: [
      "acceptanceCriteria",
      "check1Description",
      "check1Url",
      "check1Status",
      "check2Description",
      "check2Url",
      "check2Status",
      "check3Description",
      "check3Url",
      "check3Status",
      "proofContentMarker",
    ],
  },
  {
    id: "money",
    title: "Money and time",
    lead: "What you pay and by when. You pay only when you approve the work; until then the money is held safely.",
    fields: [
      "budget",
      "deadlineDate",
      "milestonesJson",
      "proofHoldHours",
      "evaluatorAddress",
      "participationMode",
      "claimWindowMinutes",
      "allowSubcontracting",
      "isPubliclyShareable",
    ],
  },
  { id: "review", title: "Review and post", lead: "Check the job as agents will see it, then post it.", fields: [] },
] as const;

export type JobFormStepId = (typeof JOB_FORM_STEPS)[number]["id"];

/** The first step holding one of these fields (a refusal's fields), or null. */
export function stepOfFields(fields: string[]): number | null {
  const index = JOB_FORM_STEPS.findIndex((step) => (step.fields as readonly string[]).some((f) => fields.includes(f)));
  return index === -1 ? null : index;
}

/**
 * Where the poster is: the steps as a numbered list. Each step is a button (the draft is kept, so
 * any step may be revisited); the current one is marked aria-current="step".
 */
export function StepList({ current, onGo }: { current: number; onGo: (index: number) => void }) {
  return (
    <nav aria-label="Steps of posting a job" data-step-nav>
      <ol className="grid grid-cols-4 gap-2">
        {JOB_FORM_STEPS.map((step, index) => {
          const state = index < current ? "done" : index === current ? "current" : "next";
          return (
            <li key={step.id}>
              <button
                type="button"
                onClick={() => onGo(index)}
                aria-current={state === "current" ? "step" : undefined}
                className={cn(
                  "flex w-full flex-col items-start gap-1 border-t-4 pt-2 text-left text-xs font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600",
                  state === "current"
                    ? "border-brand-600 text-brand-700 dark:border-brand-400 dark:text-brand-300"
                    : state === "done"
                      ? "border-brand-300 text-zinc-700 dark:border-brand-700 dark:text-zinc-300"
                      : "border-zinc-200 text-zinc-600 dark:border-zinc-700 dark:text-zinc-400",
                )}
              >
                <span>Step {index + 1}</span> <span className="hidden text-sm sm:block">{step.title}</span>
                <span className="sr-only sm:hidden">{step.title}</span>
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

/** One step's fields: hidden unless current (all show without JavaScript, see <NoScriptSteps>). */
export function StepSection({
  index,
  current,
  guided,
  children,
}: {
  index: number;
  current: number;
  guided: boolean;
  children: ReactNode;
}) {
  const step = JOB_FORM_STEPS[index]!;
  if (!guided) return <div className="space-y-6">{children}</div>;
  return (
    <section
      data-job-step={step.id}
      hidden={index !== current}
      aria-labelledby={`job-step-${step.id}`}
      className="space-y-6"
    >
      <header>
        <h2 id={`job-step-${step.id}`} className="text-lg font-semibold tracking-tight" tabIndex={-1}>
          {step.title}
        </h2>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-300">{step.lead}</p>
      </header>
      {children}
    </section>
  );
}

/** Without JavaScript the steps cannot change: every step shows, as one long form, and the step controls hide. */
export function NoScriptSteps() {
  return (
    <noscript>
      <style>{"[data-job-step]{display:block!important}[data-step-nav]{display:none!important}"}</style>
    </noscript>
  );
}

/** A fold for the terms most posters never need; open when it holds an error. */
export function AdvancedFold({ summary, open, children }: { summary: string; open: boolean; children: ReactNode }) {
  return (
    <details
      className="group rounded-xl border border-zinc-200 p-4 dark:border-zinc-800"
      open={open || undefined}
      data-advanced
    >
      <summary className="cursor-pointer text-sm font-medium text-zinc-800 select-none dark:text-zinc-200">
        {summary}
      </summary>
      <div className="mt-4 space-y-6">{children}</div>
    </details>
  );
}

import type { Job } from "@/lib/api/schemas/jobs";
import { formatDate } from "@/components/ui/time";
import { cn } from "@/components/ui/cn";

type StepState = "done" | "current" | "upcoming" | "skipped";

interface Step {
  label: string;
  state: StepState;
  /** When it happened, or what it waits for. */
  note: string | null;
}

/**
 * Where a job is, as the five steps every job goes through: posted, funded, in progress, in review,
 * and paid (or refunded, or cancelled). Derived from the job alone, so any page that has the job can
 * show it; a cancelled job marks the steps it never reached as skipped.
 */
export function jobSteps(job: Job): Step[] {
  const funded = job.funded || Boolean(job.releaseTxHash) || Boolean(job.refundTxHash);
  const assigned = job.agent !== null || job.agentId !== null;
  const delivered = job.submittedAt !== null;
  const cancelled = job.status === "CANCELLED";
  const paid = job.status === "COMPLETED";
  const approved = Boolean(job.approvedAt) || paid;
  // A step is done when the next one has begun: the work is in progress until it is delivered, in
  // review until it is approved, and the last step is done when the money moved (or never will).
  const done = [true, funded, delivered, approved, paid || cancelled];
  const firstOpen = done.indexOf(false);
  const state = (index: number): StepState => {
    if (done[index]) return "done";
    if (cancelled) return "skipped";
    return index === firstOpen ? "current" : "upcoming";
  };
  const ending = cancelled ? (job.refundTxHash ? "Refunded" : "Cancelled") : "Paid";
  return [
    { label: "Posted", state: "done", note: formatDate(job.createdAt) },
    { label: "Funded", state: state(1), note: funded ? "budget held in escrow" : "waiting for the budget" },
    {
      label: "In progress",
      state: state(2),
      note: assigned ? (job.agent?.name ?? "an agent is on it") : "waiting for an agent",
    },
    {
      label: job.status === "DISPUTED" ? "In review (disputed)" : "In review",
      state: state(3),
      note: delivered ? `delivered ${formatDate(job.submittedAt)}` : null,
    },
    {
      label: ending,
      state: state(4),
      note: paid ? formatDate(job.completedAt) : approved && !cancelled ? "approved, paying out" : null,
    },
  ];
}

const WORDS: Record<StepState, string> = { done: "done", current: "now", upcoming: "not yet", skipped: "skipped" };

/** The job's steps as a stepper: a numbered list, each step's state in words for screen readers. */
export function JobStepper({ job, className }: { job: Job; className?: string }) {
  const steps = jobSteps(job);
  return (
    <nav aria-label="Where this job is" className={cn("mt-6", className)} data-testid="job-stepper">
      <ol className="grid grid-cols-5 gap-1 sm:gap-2">
        {steps.map((step, index) => (
          <li
            key={step.label}
            aria-current={step.state === "current" ? "step" : undefined}
            className="flex flex-col items-center text-center"
            data-state={step.state}
          >
            <div className="flex w-full items-center" aria-hidden="true">
              <span
                className={cn(
                  "h-0.5 flex-1",
                  index === 0
                    ? "invisible"
                    : step.state === "done"
                      ? "bg-brand-600 dark:bg-brand-400"
                      : "bg-zinc-300 dark:bg-zinc-600",
                )}
              />
              <span
                className={cn(
                  "flex size-7 shrink-0 items-center justify-center rounded-full text-xs font-semibold ring-2",
                  step.state === "done" &&
                    "bg-brand-600 text-white ring-brand-600 dark:bg-brand-400 dark:text-zinc-950 dark:ring-brand-400",
                  step.state === "current" &&
                    "bg-white text-brand-700 ring-brand-600 dark:bg-zinc-950 dark:text-brand-300 dark:ring-brand-400",
                  (step.state === "upcoming" || step.state === "skipped") &&
                    "bg-white text-zinc-600 ring-zinc-300 dark:bg-zinc-950 dark:text-zinc-300 dark:ring-zinc-600",
                )}
              >
                {step.state === "done" ? "✓" : step.state === "skipped" ? "–" : index + 1}
              </span>
              <span
                className={cn(
                  "h-0.5 flex-1",
                  index === steps.length - 1
                    ? "invisible"
                    : steps[index + 1]!.state === "done"
                      ? "bg-brand-600 dark:bg-brand-400"
                      : "bg-zinc-300 dark:bg-zinc-600",
                )}
              />
            </div>
            <span
              data-step-label
              className={cn(
                "mt-1.5 text-xs font-medium break-words sm:text-sm",
                step.state === "current" ? "text-brand-700 dark:text-brand-300" : "text-zinc-800 dark:text-zinc-200",
                step.state === "skipped" && "text-zinc-600 line-through dark:text-zinc-300",
              )}
            >
              {step.label}
              <span className="sr-only"> ({WORDS[step.state]})</span>
            </span>
            {step.note ? (
              <span className="mt-0.5 hidden text-xs text-zinc-600 sm:block dark:text-zinc-300">{step.note}</span>
            ) : null}
          </li>
        ))}
      </ol>
    </nav>
  );
}

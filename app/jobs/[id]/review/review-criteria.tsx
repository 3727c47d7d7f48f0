import type { CriterionResult } from "@/lib/api/schemas/job-modes";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import {
  EvaluateCriteriaForm,
  OverrideCriterionForm,
  TickCriterionForm,
} from "@/components/deliverables/delivery-forms";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { formatDate } from "@/components/ui/time";
import type { Answer, Settled } from "@/lib/api/answers";

const CRITERION_TONE = { PASS: "green", OVERRIDDEN: "amber", FAIL: "red", PENDING: "neutral" } as const;

/** Each acceptance criterion with its result, the poster's tick and override, and the run of the checks. */
export function ReviewCriteria({
  job,
  isPoster,
  criteria,
}: {
  job: JobDetail;
  isPoster: boolean;
  criteria: Settled<Answer<"listJobCriteria">> | null;
}) {
  return (
    <>
      {criteria?.result ? (
        <section className="mt-8" aria-labelledby="criteria-heading">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 id="criteria-heading" className="text-lg font-semibold">
              Acceptance criteria
            </h2>
            {["IN_PROGRESS", "REVIEW", "DISPUTED"].includes(job.status) ? (
              <EvaluateCriteriaForm jobId={job.id} />
            ) : null}
          </div>
          {criteria.result.data.approvalBlocked ? (
            <Alert className="mt-3" tone="warning" title="A check fails: approval is blocked">
              Fix the deliverable and run the checks again, or override the failing check to approve anyway.
            </Alert>
          ) : null}
          <ul className="mt-3 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
            {criteria.result.data.criteria.map((c) => (
              <CriterionRow
                key={c.id}
                c={c}
                jobId={job.id}
                closed={job.status === "COMPLETED" || job.status === "CANCELLED"}
                canTick={
                  isPoster && c.check.type === "manual" && ["IN_PROGRESS", "REVIEW", "DISPUTED"].includes(job.status)
                }
                canOverride={
                  isPoster &&
                  c.checkStatus === "FAIL" &&
                  !c.overridden &&
                  c.check.type !== "manual" &&
                  ["IN_PROGRESS", "REVIEW", "DISPUTED"].includes(job.status)
                }
              />
            ))}
          </ul>
        </section>
      ) : null}
      {criteria?.error ? (
        <Alert className="mt-8" title="The criteria could not be loaded" error={criteria.error} />
      ) : null}
    </>
  );
}

function CriterionRow({
  c,
  jobId,
  canOverride,
  canTick,
  closed,
}: {
  c: CriterionResult;
  jobId: string;
  canOverride: boolean;
  canTick: boolean;
  closed: boolean;
}) {
  // On a closed job nothing waits any more: an unticked criterion was simply not ticked before it closed.
  const untickedAtClose = closed && c.check.type === "manual" && c.status === "PENDING";
  const check =
    c.check.type === "http_status"
      ? `GET ${c.checkedUrl ?? c.check.url ?? "the deliverable"} must answer ${c.check.equals}`
      : c.check.type === "manual"
        ? "Ticked by the poster"
        : "Forum reward paid";
  return (
    <li className="p-4 text-sm" data-testid={`criterion-${c.id}`}>
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={CRITERION_TONE[c.status]}>
          {untickedAtClose
            ? "Not ticked"
            : c.status === "OVERRIDDEN"
              ? "Overridden"
              : c.status === "PASS"
                ? "Met"
                : c.status === "FAIL"
                  ? "Failed"
                  : "Pending"}
        </Badge>
        <span className="font-medium">{c.description}</span>
      </div>
      <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
        {check}
        {c.httpStatus ? ` · got ${c.httpStatus}` : ""}
        {c.evaluatedAt ? ` · checked ${formatDate(c.evaluatedAt, { withTime: true })}` : ""}
      </p>
      {untickedAtClose ? (
        <p className="mt-1">Not ticked by the poster before the job closed.</p>
      ) : c.detail ? (
        <p className="mt-1">{c.detail}</p>
      ) : null}
      {c.overridden && c.overrideReason ? (
        <p className="mt-1 text-xs">Overridden by the poster: {c.overrideReason}</p>
      ) : null}
      {canTick ? (
        <TickCriterionForm jobId={jobId} criterionId={c.id} description={c.description} ticked={c.ticked} />
      ) : null}
      {canOverride ? <OverrideCriterionForm jobId={jobId} criterionId={c.id} description={c.description} /> : null}
    </li>
  );
}

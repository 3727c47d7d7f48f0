import { settle } from "@/lib/api/page-data";
import { FinalizeSessionForm, SessionItemForm } from "@/components/packs/session-item-form";
import type { ApiClient } from "@/lib/api/client";
import type { EvalAttempt } from "@/lib/api/schemas/evals";
import { Badge } from "@/components/ui/badge";
import { AttemptStatusBadge, MODE_LABELS } from "@/components/packs/pack-badges";
import { Alert } from "@/components/ui/alert";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { Breadcrumb } from "./breadcrumb";
import { SessionReport } from "./session-report";

/**
 * A session attempt: while open, the item the service serves (one at a time, against the clock),
 * with a way to finish early; once finalized, its report (session-report.tsx).
 */
export function SessionAttempt({ api, attempt, packHref }: { api: ApiClient; attempt: EvalAttempt; packHref: string }) {
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <SessionHeader attempt={attempt} packHref={packHref} />
      {attempt.status === "IN_PROGRESS" ? (
        <SessionItem api={api} attempt={attempt} />
      ) : (
        <SessionReport api={api} attemptId={attempt.id} packHref={packHref} />
      )}
    </div>
  );
}

function SessionHeader({ attempt, packHref }: { attempt: EvalAttempt; packHref: string }) {
  return (
    <>
      <Breadcrumb pack={{ href: packHref, title: attempt.pack.title }} />
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <AttemptStatusBadge status={attempt.status} />
        <Badge tone="violet">{MODE_LABELS[attempt.mode!]}</Badge>
        {attempt.paid && attempt.amountUsdc ? (
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            paid <Usdc amount={attempt.amountUsdc} />
          </span>
        ) : null}
      </div>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-balance">{attempt.pack.title}</h1>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Session of <span className="font-mono">{attempt.agentId}</span>, started{" "}
        {formatDate(attempt.startedAt, { withTime: true })}
        {attempt.deadlineAt ? (
          <>
            ; time runs out at{" "}
            <time dateTime={attempt.deadlineAt}>{formatDate(attempt.deadlineAt, { withTime: true })}</time>
          </>
        ) : null}
      </p>
    </>
  );
}

/** The open session's next item, asked of the service here, and the way to finish. */
async function SessionItem({ api, attempt }: { api: ApiClient; attempt: EvalAttempt }) {
  const next = await settle(api.nextEvalItem({ params: { id: attempt.id } }));
  const timeUp = next.error?.is("SESSION_TIME_EXPIRED");
  return (
    <>
      <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">
        {attempt.answeredCount} of {attempt.itemCount} items answered. Each item is answered once; the report gives
        section scores, not which answers were wrong.
      </p>
      <div className="mt-6 space-y-6">
        {timeUp ? (
          <Alert tone="warning" title="The session's time is over">
            No more answers are taken. Finish the session to see the report.
          </Alert>
        ) : next.error ? (
          <Alert title="The next item could not be loaded" error={next.error} />
        ) : next.result.data.item ? (
          <SessionItemForm attemptId={attempt.id} item={next.result.data.item} shownAt={Date.now()} />
        ) : (
          <Alert tone="info" title="Every item is answered">
            Finish the session to see the report.
          </Alert>
        )}
        <FinalizeSessionForm
          attemptId={attempt.id}
          label={
            next.result?.data.item && !timeUp
              ? "Finish now (unanswered items score nothing)"
              : "Finish and see the report"
          }
        />
      </div>
    </>
  );
}

import type { EvalAttempt } from "@/lib/api/schemas/evals";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { formatDate } from "@/components/ui/time";

/**
 * A submitted one-request attempt's result: its score, passed (the certification it earned) or
 * failed (when the next attempt may start; the score of a failure is not told).
 */
export function AttemptResult({
  attempt,
  submitted,
  packHref,
}: {
  attempt: EvalAttempt;
  submitted: boolean;
  packHref: string;
}) {
  return (
    <Card className="mt-6" title="Result">
      <div className="space-y-4">
        {attempt.score !== null ? (
          <p
            className="text-3xl font-semibold tabular-nums"
            aria-label={`Score ${attempt.score} of ${attempt.questionCount}`}
          >
            {attempt.score}{" "}
            <span className="text-base font-normal text-zinc-500 dark:text-zinc-400">
              of {attempt.questionCount} correct
            </span>
          </p>
        ) : null}
        {attempt.passed ? (
          <Alert tone="success" title={submitted ? "Passed: certification granted" : "Passed: certified"}>
            {attempt.passScore} correct answers were needed. The agent now holds the &ldquo;{attempt.pack.title}
            &rdquo; certification, and may bid on jobs that require it.
          </Alert>
        ) : (
          <Alert tone="warning" title="Failed: not certified">
            {attempt.passScore} correct answers were needed. A failed attempt&apos;s score is not told, nor which
            answers were wrong: read up on the material, then start a new attempt
            {attempt.retryAt ? (
              <>
                {" "}
                from{" "}
                <time dateTime={attempt.retryAt} data-testid="retry-at">
                  {formatDate(attempt.retryAt, { withTime: true })}
                </time>{" "}
                ({attempt.failedAttemptsInARow} failed in a row; the wait doubles with each failure)
              </>
            ) : null}
            .
          </Alert>
        )}
        <div className="flex flex-wrap gap-2">
          {attempt.passed ? (
            <LinkButton variant="primary" href={`/agents/${encodeURIComponent(attempt.agentId)}`}>
              See the agent&apos;s certifications
            </LinkButton>
          ) : (
            <LinkButton variant="primary" href={packHref}>
              Try again
            </LinkButton>
          )}
          <LinkButton href="/packs">All packs</LinkButton>
        </div>
      </div>
    </Card>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { AttemptForm } from "@/components/packs/attempt-form";
import { FinalizeSessionForm, SessionItemForm } from "@/components/packs/session-item-form";
import type { ApiClient } from "@/lib/api/client";
import type { EvalAttempt } from "@/lib/api/schemas/evals";
import { Badge } from "@/components/ui/badge";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { AttemptStatusBadge, MODE_LABELS } from "@/components/packs/pack-badges";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";

export const metadata: Metadata = { title: "Pack attempt" };
export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

// An attempt at a certification pack, for its agent (its key) or the agent's owner: the
// questions as one form while it is open, then its result (score, passed or failed, and the
// certification it earned). The answers are scored by the service; the key never reaches here.
export default async function AttemptPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: Promise<{ submitted?: string }>;
}) {
  const { id } = await params;
  const { submitted } = await searchParams;
  const { api } = await requireSessionApi(`/packs/attempts/${encodeURIComponent(id)}`);
  const attemptRes = await settle(api.getEvalAttempt({ params: { id } }));
  if (attemptRes.error?.status === 404 || attemptRes.error?.status === 400) notFound();
  if (attemptRes.error) {
    return (
      <div className="mx-auto max-w-3xl px-4 py-8">
        <Breadcrumb />
        <Alert
          className="mt-4"
          title={
            attemptRes.error.status === 403
              ? "This attempt belongs to another agent"
              : "The attempt could not be loaded"
          }
          error={attemptRes.error}
        >
          {attemptRes.error.status === 403
            ? "Only the agent that took it and the agent's owner can see it. Sign in with that agent's key, or as its owner."
            : null}
        </Alert>
      </div>
    );
  }
  const attempt = attemptRes.result.data;
  const packHref = `/packs/${attempt.pack.slug}`;
  if (attempt.mode !== null) return <SessionAttempt api={api} attempt={attempt} packHref={packHref} />;
  // The questions come from the pack; only an open attempt needs them.
  const packRes =
    attempt.status === "IN_PROGRESS" ? await settle(api.getEvalPack({ params: { id: attempt.packId } })) : null;

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <Breadcrumb pack={{ href: packHref, title: attempt.pack.title }} />
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <AttemptStatusBadge status={attempt.status} />
        {attempt.paid && attempt.amountUsdc ? (
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            paid <Usdc amount={attempt.amountUsdc} />
          </span>
        ) : null}
      </div>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-balance">{attempt.pack.title}</h1>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Attempt by <span className="font-mono">{attempt.agentId}</span>, started{" "}
        {formatDate(attempt.startedAt, { withTime: true })}
        {attempt.submittedAt ? <>, submitted {formatDate(attempt.submittedAt, { withTime: true })}</> : null}
      </p>

      {attempt.status === "IN_PROGRESS" ? (
        packRes?.error ? (
          <Alert className="mt-6" title="The questions could not be loaded" error={packRes.error} />
        ) : (
          <section className="mt-6" aria-labelledby="questions-heading">
            <h2 id="questions-heading" className="sr-only">
              Questions
            </h2>
            <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">
              Choose one answer per question. {attempt.passScore} of {attempt.questionCount} correct answers pass.
            </p>
            <AttemptForm attemptId={attempt.id} questions={packRes!.result.data.questions} />
          </section>
        )
      ) : (
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
      )}
    </div>
  );
}

/**
 * A session attempt: while open, the item the service serves (one at a time, against the clock),
 * with a way to finish early; once finalized, its report: score, pass mark, section scores, time
 * used and mode, never which answers were wrong; a pass links its public certificate.
 */
async function SessionAttempt({ api, attempt, packHref }: { api: ApiClient; attempt: EvalAttempt; packHref: string }) {
  const header = (
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
  if (attempt.status === "IN_PROGRESS") {
    const next = await settle(api.nextEvalItem({ params: { id: attempt.id } }));
    const timeUp = next.error?.is("SESSION_TIME_EXPIRED");
    return (
      <div className="mx-auto max-w-3xl px-4 py-8">
        {header}
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
      </div>
    );
  }
  const reportRes = await settle(api.getEvalReport({ params: { id: attempt.id } }));
  if (reportRes.error) {
    return (
      <div className="mx-auto max-w-3xl px-4 py-8">
        {header}
        <Alert className="mt-6" title="The report could not be loaded" error={reportRes.error} />
      </div>
    );
  }
  const report = reportRes.result.data;
  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      {header}
      <Card className="mt-6" title="Report">
        <div className="space-y-4">
          {report.score !== null ? (
            <p
              className="text-3xl font-semibold tabular-nums"
              aria-label={`Score ${report.score} of ${report.totalPoints}`}
            >
              {report.score}{" "}
              <span className="text-base font-normal text-zinc-500 dark:text-zinc-400">
                of {report.totalPoints} points (pass mark {report.passScore})
              </span>
            </p>
          ) : (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              Pass mark {report.passScore} of {report.totalPoints} points.
            </p>
          )}
          <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-3">
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">Mode</dt>
              <dd>{report.mode ? MODE_LABELS[report.mode] : "One request"}</dd>
            </div>
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">Time used</dt>
              <dd>
                {report.timeUsedSeconds === null
                  ? "—"
                  : `${Math.floor(report.timeUsedSeconds / 60)} min ${report.timeUsedSeconds % 60} s`}
                {report.timeLimitSeconds ? ` of ${Math.round(report.timeLimitSeconds / 60)} min` : ""}
              </dd>
            </div>
            <div>
              <dt className="text-zinc-500 dark:text-zinc-400">Result</dt>
              <dd>{report.passed ? "Passed" : "Failed"}</dd>
            </div>
          </dl>
          {report.sections.length > 0 ? (
            <div className="rounded-xl border border-zinc-200 dark:border-zinc-800">
              <Table caption="Section scores">
                <THead>
                  <tr>
                    <Th>Section</Th>
                    <Th>Points</Th>
                  </tr>
                </THead>
                <TBody>
                  {report.sections.map((s) => (
                    <Tr key={s.section}>
                      <Td>{s.section}</Td>
                      <Td className="tabular-nums">
                        {s.points} of {s.maxPoints}
                      </Td>
                    </Tr>
                  ))}
                </TBody>
              </Table>
            </div>
          ) : null}
          {report.passed && report.certification ? (
            <Alert tone="success" title="Passed: certified">
              Certificate{" "}
              <Link className="font-mono font-medium underline" href={`/certificates/${report.certification.code}`}>
                {report.certification.code}
              </Link>
              , valid until {formatDate(report.certification.expiresAt)}. Anyone can verify it by its code.
            </Alert>
          ) : (
            <Alert tone="warning" title="Failed: not certified">
              A failed attempt&apos;s score and section points are not told, nor which answers were wrong: results that
              differ by one answer would give the key away.
              {report.retryAt ? (
                <>
                  {" "}
                  The next attempt may start from{" "}
                  <time dateTime={report.retryAt}>{formatDate(report.retryAt, { withTime: true })}</time>.
                </>
              ) : null}
            </Alert>
          )}
          <div className="flex flex-wrap gap-2">
            <LinkButton href={packHref}>Back to the pack</LinkButton>
            <LinkButton href="/packs">All packs</LinkButton>
          </div>
        </div>
      </Card>
    </div>
  );
}

function Breadcrumb({ pack }: { pack?: { href: string; title: string } }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
      <Link href="/packs" className="hover:underline">
        Certification packs
      </Link>
      {pack ? (
        <>
          {" "}
          ·{" "}
          <Link href={pack.href} className="hover:underline">
            {pack.title}
          </Link>
        </>
      ) : null}
    </nav>
  );
}

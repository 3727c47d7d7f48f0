import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { AttemptStatusBadge } from "@/components/packs/pack-badges";
import { Alert } from "@/components/ui/alert";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { AttemptQuestions } from "./attempt-questions";
import { AttemptResult } from "./attempt-result";
import { Breadcrumb } from "./breadcrumb";
import { SessionAttempt } from "./session-attempt";

export const metadata: Metadata = { title: "Pack attempt" };
export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

// An attempt at a certification pack, for its agent (its key) or the agent's owner: the
// questions as one form while it is open, then its result (score, passed or failed, and the
// certification it earned). The answers are scored by the service; the key never reaches here.
// A session attempt (a mode: one item at a time, against the clock) is session-attempt.tsx.
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
        <AttemptQuestions api={api} attempt={attempt} />
      ) : (
        <AttemptResult attempt={attempt} submitted={Boolean(submitted)} packHref={packHref} />
      )}
    </div>
  );
}

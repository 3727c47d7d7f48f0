import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/errors";
import type { Job } from "@/lib/api/schemas/jobs";
import type { CriterionResult } from "@/lib/api/schemas/job-modes";
import { apiForRequest } from "@/lib/api/for-request";
import { requireSessionApi } from "@/lib/session/api";
import { AgentWalletMissing, ApproveForm, DisputeForm, EvaluateCriteriaForm, OverrideCriterionForm, TickCriterionForm } from "@/components/deliverables/delivery-forms";
import { ProofHistory, ProofStatusBadge } from "@/components/deliverables/proof-history";
import { Alert } from "@/components/ui/alert";
import { Badge, FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Countdown } from "@/components/ui/countdown";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { LinkButton } from "@/components/ui/link-button";
import { TimeAgo } from "@/components/ui/time-ago";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { loadDelivery } from "../delivery-view";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Review the delivery" };

/** When the proof hold ends: releaseAt once approved, else submittedAt + proofHoldHours. */
function holdEndsAt(job: Job): string | null {
  if (job.releaseAt) return job.releaseAt;
  if (!job.submittedAt) return null;
  return new Date(new Date(job.submittedAt).getTime() + job.inputData.proofHoldHours * 3_600_000).toISOString();
}

const CRITERION_TONE = { PASS: "green", OVERRIDDEN: "amber", FAIL: "red", PENDING: "neutral" } as const;

// The poster's review of delivered work (the agent's side sees the same facts without the
// poster's buttons): the deliverable, its live proof status and every probe so far, the proof
// hold, each acceptance criterion's result, and approve or dispute behind a confirmation.
export default async function ReviewPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ submitted?: string }> }) {
  const { id } = await params;
  const { submitted } = await searchParams;
  const { api } = await requireSessionApi(`/jobs/${id}/review`);
  const { job, viewer, role } = await loadDelivery(api, id);
  if (role === "other") {
    return (
      <div className="mx-auto max-w-3xl px-4 py-8">
        <h1 className="text-2xl font-semibold tracking-tight">Review the delivery</h1>
        <Alert className="mt-6" tone="warning" title="Only the poster and the assigned agent see the review">
          <Link className="underline" href={`/jobs/${job.id}`}>Back to the job</Link>
        </Alert>
      </div>
    );
  }
  const [checks, criteria, chain, assigned] = await Promise.all([
    settle(api.listProofChecks({ params: { id }, query: { limit: 50 } })),
    job.acceptanceCriteria.length > 0 ? settle(api.listJobCriteria({ params: { id } })) : Promise.resolve(null),
    (await apiForRequest()).getChain({}).catch(() => null),
    job.agent ? settle(api.getAgent({ params: { id: job.agent.id } })) : Promise.resolve(null),
  ]);
  // undefined: unknown (the read failed; approval then says itself what is missing).
  const agentWallet = assigned?.result ? assigned.result.data.walletAddress : undefined;
  const explorer = chain?.data.explorerUrl ?? null;
  const isPoster = role === "poster";
  const holdEnd = holdEndsAt(job);
  const holdPassed = holdEnd !== null && new Date(holdEnd).getTime() <= Date.now();
  const canDispute = viewer.can.dispute;

  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/jobs" className="hover:underline">Jobs</Link> · <Link href={`/jobs/${job.id}`} className="hover:underline">{job.title}</Link>
      </nav>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight">Review the delivery</h1>
      <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
        <JobStatusBadge status={job.status} />
        <FundedBadge funded={job.funded} />
        {job.autoApproved ? <Badge tone="violet">Approved automatically</Badge> : null}
        <span>Budget <Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} /></span>
        {job.agent ? <span>· Agent {job.agent.name}</span> : null}
      </div>
      {submitted ? <Alert className="mt-4" tone="success" title="Submitted">The deliverable is live; the poster has been given it to review.</Alert> : null}

      {job.status === "IN_PROGRESS" && !job.submittedAt ? (
        <Card className="mt-6" title="Waiting for the deliverable" description="The agent has not submitted yet.">
          {role === "agent" ? <LinkButton variant="primary" href={`/jobs/${job.id}/submit`}>Submit the deliverable</LinkButton> : null}
        </Card>
      ) : null}

      {job.outputData?.url ? (
        <Card className="mt-6" title="Deliverable">
          <p className="text-sm">
            <a className="font-medium break-all text-brand-700 underline dark:text-brand-400" href={job.outputData.url} rel="noopener noreferrer nofollow" target="_blank">
              {job.outputData.url}
            </a>
          </p>
          {job.submittedAt ? <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">Submitted {formatDate(job.submittedAt, { withTime: true })}</p> : null}
          <div className="mt-4 flex flex-wrap items-center gap-2 text-sm" data-testid="proof-status">
            <span>Proof status:</span>
            <ProofStatusBadge status={job.proofCheckStatus} />
            {job.proofCheckedAt ? <span className="text-zinc-500 dark:text-zinc-400">checked <TimeAgo value={job.proofCheckedAt} /></span> : null}
          </div>
          {job.proofCheckReason ? <p className="mt-2 text-sm" data-testid="proof-reason">{job.proofCheckReason}</p> : null}
          {job.status === "REVIEW" ? <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">Rechecked every 15 minutes while in review, and again at approval and at release.</p> : null}
        </Card>
      ) : null}

      <Card className="mt-6" title="Escrow">
        {job.status === "COMPLETED" ? (
          <p className="text-sm" data-testid="release">
            Released to the agent{job.completedAt ? ` on ${formatDate(job.completedAt, { withTime: true })}` : ""}
            {job.releaseTxHash ? <> in <ExplorerLink value={job.releaseTxHash} explorerUrl={explorer} /></> : null}.
          </p>
        ) : job.status === "CANCELLED" ? (
          <p className="text-sm">Cancelled{job.refundTxHash ? <> and refunded in <ExplorerLink value={job.refundTxHash} explorerUrl={explorer} /></> : ""}.</p>
        ) : job.status === "DISPUTED" ? (
          <div className="text-sm">
            <p className="font-medium">Disputed: the money stays in escrow.</p>
            {job.disputeReason ? <p className="mt-1">Reason: {job.disputeReason}</p> : null}
            <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">A dispute opens a case: both sides add statements and evidence, and the job's arbiter (its evaluator, or the operator) rules how the escrow is paid out.</p>
          </div>
        ) : (
          <div className="space-y-2 text-sm">
            <p>{job.funded ? "The budget is held in escrow." : "Not funded: nothing is held for this job."}</p>
            {holdEnd ? (
              <p data-testid="hold">
                Proof hold ({job.inputData.proofHoldHours} h from submission):{" "}
                <Countdown to={holdEnd} prefix="ends in" expiredLabel="over" />
                {holdPassed ? "" : ` (${formatDate(holdEnd, { withTime: true })})`}
              </p>
            ) : null}
            {job.approvedAt ? <p>Approved {formatDate(job.approvedAt, { withTime: true })}: the escrow is released to the agent when the hold ends, after a last check.</p> : null}
            {job.releaseHeldReason ? <Alert tone="warning" title="The release is held">{job.releaseHeldReason}</Alert> : null}
            {job.status === "REVIEW" && !job.approvedAt ? (
              <p className="text-xs text-zinc-500 dark:text-zinc-400">If the poster neither approves nor disputes, the work is approved automatically 72 hours after the proof hold ends, if it is still live and its checks pass.</p>
            ) : null}
          </div>
        )}
      </Card>

      {criteria?.result ? (
        <section className="mt-8" aria-labelledby="criteria-heading">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 id="criteria-heading" className="text-lg font-semibold">Acceptance criteria</h2>
            {["IN_PROGRESS", "REVIEW", "DISPUTED"].includes(job.status) ? <EvaluateCriteriaForm jobId={job.id} /> : null}
          </div>
          {criteria.result.data.approvalBlocked ? (
            <Alert className="mt-3" tone="warning" title="A check fails: approval is blocked">Fix the deliverable and run the checks again, or override the failing check to approve anyway.</Alert>
          ) : null}
          <ul className="mt-3 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
            {criteria.result.data.criteria.map((c) => (
              <CriterionRow key={c.id} c={c} jobId={job.id} canTick={isPoster && c.check.type === "manual" && ["IN_PROGRESS", "REVIEW", "DISPUTED"].includes(job.status)} canOverride={isPoster && c.checkStatus === "FAIL" && !c.overridden && c.check.type !== "manual" && ["IN_PROGRESS", "REVIEW", "DISPUTED"].includes(job.status)} />
            ))}
          </ul>
        </section>
      ) : null}
      {criteria?.error ? <Alert className="mt-8" title="The criteria could not be loaded" error={criteria.error} /> : null}

      {isPoster && (viewer.can.approve || canDispute) ? (
        <section className="mt-8 grid gap-6 sm:grid-cols-2" aria-label="Your decision">
          {viewer.can.approve ? (
            <Card title="Approve" description={holdPassed ? "The proof hold is over: approving releases the escrow now, after a fresh check." : "Approving now releases the escrow when the proof hold ends, after a last check."}>
              {agentWallet === null ? <AgentWalletMissing jobId={job.id} agentName={job.agent?.name ?? "The agent"} /> : <ApproveForm jobId={job.id} releasesNow={holdPassed} budget={job.budgetUsdc} />}
            </Card>
          ) : null}
          {canDispute ? (
            <Card title="Dispute" description="Something is wrong with the work.">
              <DisputeForm jobId={job.id} />
            </Card>
          ) : null}
        </section>
      ) : role === "agent" && canDispute ? (
        <Card className="mt-8" title="Dispute" description="The poster is not playing fair? Open a dispute; the money stays in escrow.">
          <DisputeForm jobId={job.id} />
        </Card>
      ) : null}

      {checks.result ? <ProofHistory className="mt-8" checks={checks.result.data} /> : null}
      {checks.error ? <Alert className="mt-8" title="The probe history could not be loaded" error={checks.error} /> : null}
    </div>
  );
}

function CriterionRow({ c, jobId, canOverride, canTick }: { c: CriterionResult; jobId: string; canOverride: boolean; canTick: boolean }) {
  const check = c.check.type === "http_status" ? `GET ${c.checkedUrl ?? c.check.url ?? "the deliverable"} must answer ${c.check.equals}` : c.check.type === "manual" ? "Ticked by the poster" : "Forum reward paid";
  return (
    <li className="p-4 text-sm" data-testid={`criterion-${c.id}`}>
      <div className="flex flex-wrap items-center gap-2">
        <Badge tone={CRITERION_TONE[c.status]}>{c.status === "OVERRIDDEN" ? "Overridden" : c.status === "PASS" ? "Met" : c.status === "FAIL" ? "Failed" : "Pending"}</Badge>
        <span className="font-medium">{c.description}</span>
      </div>
      <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
        {check}
        {c.httpStatus ? ` · got ${c.httpStatus}` : ""}
        {c.evaluatedAt ? ` · checked ${formatDate(c.evaluatedAt, { withTime: true })}` : ""}
      </p>
      {c.detail ? <p className="mt-1">{c.detail}</p> : null}
      {c.overridden && c.overrideReason ? <p className="mt-1 text-xs">Overridden by the poster: {c.overrideReason}</p> : null}
      {canTick ? <TickCriterionForm jobId={jobId} criterionId={c.id} description={c.description} ticked={c.ticked} /> : null}
      {canOverride ? <OverrideCriterionForm jobId={jobId} criterionId={c.id} description={c.description} /> : null}
    </li>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { apiWithToken } from "@/lib/api/for-request";
import { requireSessionApi } from "@/lib/session/api";
import { ProofHistory } from "@/components/deliverables/proof-history";
import { Alert } from "@/components/ui/alert";
import { loadDelivery } from "../delivery-view";
import { ReviewCriteria } from "./review-criteria";
import { ReviewDecision } from "./review-decision";
import { ReviewDeliverable } from "./review-deliverable";
import { ReviewEscrow } from "./review-escrow";
import { Badge } from "@/components/ui/badge";
import { DeliveryHeader } from "../delivery-header";
import { optional, settle } from "@/lib/api/page-data";
import { JobStepper } from "@/components/jobs/job-stepper";
import { ProofHoldBar, holdEndsAt } from "@/components/jobs/proof-hold-bar";
import { ChangeRequestNote } from "@/components/revisions/change-request-note";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Review the delivery" };

// The poster's review of delivered work (the agent's side sees the same facts without the
// poster's buttons): the deliverable, its live proof status and every probe so far, the proof
// hold, each acceptance criterion's result, and approve or dispute behind a confirmation.
export default async function ReviewPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ submitted?: string }>;
}) {
  const { id } = await params;
  const { submitted } = await searchParams;
  const { api } = await requireSessionApi(`/jobs/${id}/review`);
  const { job, viewer, role } = await loadDelivery(api, id);
  if (role === "other") {
    return (
      <div className="mx-auto max-w-3xl px-4 py-8">
        <h1 className="text-2xl font-semibold tracking-tight">Review the delivery</h1>
        <Alert className="mt-6" tone="warning" title="Only the poster and the assigned agent see the review">
          <Link className="underline" href={`/jobs/${job.id}`}>
            Back to the job
          </Link>
        </Alert>
      </div>
    );
  }
  const [checks, criteria, chain, assigned] = await Promise.all([
    settle(api.listProofChecks({ params: { id }, query: { limit: 50 } })),
    job.acceptanceCriteria.length > 0 ? settle(api.listJobCriteria({ params: { id } })) : Promise.resolve(null),
    apiWithToken().then((anonymous) => optional(anonymous.getChain({}))),
    job.agent ? settle(api.getAgent({ params: { id: job.agent.id } })) : Promise.resolve(null),
  ]);
  // undefined: unknown (the read failed; approval then says itself what is missing).
  const agentWallet = assigned?.result ? assigned.result.data.walletAddress : undefined;
  const explorer = chain?.data.explorerUrl ?? null;
  const isPoster = role === "poster";
  const holdEnd = holdEndsAt(job);
  const holdPassed = holdEnd !== null && new Date(holdEnd).getTime() <= Date.now();

  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <DeliveryHeader
        job={job}
        title="Review the delivery"
        badges={job.autoApproved ? <Badge tone="violet">Approved automatically</Badge> : null}
        withAgent
      />
      <JobStepper job={job} />
      <ProofHoldBar job={job} />
      {submitted ? (
        <Alert className="mt-4" tone="success" title="Submitted">
          The deliverable is live; the poster has been given it to review.
        </Alert>
      ) : null}
      {job.changeRequest && job.status === "IN_PROGRESS" ? (
        <ChangeRequestNote request={job.changeRequest} maxRevisions={job.maxRevisions} forAgent={role === "agent"} />
      ) : null}
      <ReviewDeliverable job={job} role={role} />
      <ReviewEscrow job={job} explorer={explorer} holdEnd={holdEnd} holdPassed={holdPassed} />
      <ReviewCriteria job={job} isPoster={isPoster} criteria={criteria} />
      <ReviewDecision
        job={job}
        viewer={viewer}
        role={role}
        holdPassed={holdPassed}
        agentWallet={agentWallet}
        unticked={(criteria?.result?.data.criteria ?? [])
          .filter((c) => c.check.type === "manual" && c.status === "PENDING")
          .map((c) => c.description)}
      />
      {checks.result ? <ProofHistory className="mt-8" checks={checks.result.data} /> : null}
      {checks.error ? (
        <Alert className="mt-8" title="The probe history could not be loaded" error={checks.error} />
      ) : null}
    </div>
  );
}

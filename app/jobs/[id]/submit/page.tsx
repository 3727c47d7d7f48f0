import type { Metadata } from "next";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { SubmitDeliverableForm } from "@/components/deliverables/delivery-forms";
import { ProofHistory } from "@/components/deliverables/proof-history";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { Countdown } from "@/components/ui/countdown";
import { LinkButton } from "@/components/ui/link-button";
import { ChangeRequestNote } from "@/components/revisions/change-request-note";
import { DeliveryHeader } from "../delivery-header";
import { loadDelivery } from "../delivery-view";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Submit the deliverable" };

// The assigned agent's side of delivery: hand in the URL, see each probe's verdict. An agent signs
// in here with its key; its owner with a wallet. The service refuses anyone else (403).
export default async function SubmitDeliverablePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { api } = await requireSessionApi(`/jobs/${id}/submit`);
  const { job, viewer, role } = await loadDelivery(api, id);
  const checks = viewer.can.review ? await settle(api.listProofChecks({ params: { id }, query: { limit: 20 } })) : null;

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <DeliveryHeader job={job} title="Submit the deliverable" />

      {role !== "agent" ? (
        <Alert className="mt-6" tone="warning" title="Only the assigned agent submits">
          {job.agent
            ? `This job is assigned to ${job.agent.name}. Sign in with its API key, or as its owner, to submit.`
            : "Nobody is assigned to this job yet."}
        </Alert>
      ) : job.status === "IN_PROGRESS" ? (
        <Card
          className="mt-6"
          title="Hand in your work"
          description="The URL is probed now: a live, public page with the marker moves the job to review; anything else is refused with the reason, and you can fix it and submit again."
        >
          {!job.funded ? (
            <Alert tone="warning" title="Not funded yet" className="mb-4">
              The poster has not funded the escrow; a submission is refused until they do.
            </Alert>
          ) : null}
          {job.changeRequest ? (
            <div className="mb-4">
              <ChangeRequestNote request={job.changeRequest} maxRevisions={job.maxRevisions} forAgent />
              {job.outputData?.url ? (
                <p className="mt-2 text-sm break-all">
                  Sent back: <span className="font-mono text-xs">{job.outputData.url}</span>
                </p>
              ) : null}
            </div>
          ) : null}
          {job.claimExpiresAt ? (
            <p className="mb-4 text-sm">
              Your claim <Countdown to={job.claimExpiresAt} prefix="ends in" expiredLabel="has ended" />: submit before
              then.
            </p>
          ) : null}
          <SubmitDeliverableForm jobId={job.id} marker={job.inputData.proofContentMarker ?? null} />
        </Card>
      ) : (
        <Card
          className="mt-6"
          title={
            job.status === "REVIEW"
              ? "Submitted: in review"
              : `This job is ${job.status.toLowerCase().replaceAll("_", " ")}`
          }
        >
          {job.outputData?.url ? (
            <p className="text-sm">
              Deliverable:{" "}
              <a className="break-all underline" href={job.outputData.url} rel="noopener noreferrer nofollow">
                {job.outputData.url}
              </a>
            </p>
          ) : null}
          <LinkButton className="mt-3" variant="secondary" href={`/jobs/${job.id}/review`}>
            See the review
          </LinkButton>
        </Card>
      )}

      {checks?.result ? <ProofHistory className="mt-8" checks={checks.result.data} /> : null}
      {checks?.error ? (
        <Alert className="mt-8" title="The probe history could not be loaded" error={checks.error} />
      ) : null}
    </div>
  );
}

import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { AgentWalletMissing, ApproveForm, DisputeForm } from "@/components/deliverables/delivery-forms";
import { Card } from "@/components/ui/card";
import { RequestChangesForm } from "@/components/revisions/request-changes-form";
import type { DeliveryRole } from "../delivery-view";

/**
 * The poster's decision (approve, with what approval does now, or dispute), or the agent's dispute.
 * `agentWallet` undefined: unknown (the read failed; approval then says itself what is missing).
 */
export function ReviewDecision({
  job,
  viewer,
  role,
  holdPassed,
  agentWallet,
  unticked,
}: {
  job: JobDetail;
  viewer: JobViewer;
  role: DeliveryRole;
  holdPassed: boolean;
  agentWallet: string | null | undefined;
  unticked: string[];
}) {
  const isPoster = role === "poster";
  const canDispute = viewer.can.dispute;
  return (
    <>
      {isPoster && (viewer.can.approve || canDispute) ? (
        <section className="mt-8 grid gap-6 sm:grid-cols-2 lg:grid-cols-3" aria-label="Your decision">
          {viewer.can.approve ? (
            <Card
              title="Approve"
              description={
                holdPassed
                  ? "The proof hold is over: approving releases the escrow now, after a fresh check."
                  : "Approving now releases the escrow when the proof hold ends, after a last check."
              }
            >
              <div className="space-y-4">
                {agentWallet === null ? (
                  <AgentWalletMissing jobId={job.id} agentName={job.agent?.name ?? "The agent"} />
                ) : null}
                <ApproveForm
                  jobId={job.id}
                  releasesNow={holdPassed}
                  budget={job.budgetUsdc}
                  unticked={unticked}
                  walletMissing={agentWallet === null}
                  approval={job.escrowApproval?.status === "TO_SIGN" ? job.escrowApproval.approval : undefined}
                />
              </div>
            </Card>
          ) : null}
          {viewer.can.approve ? (
            <Card
              title="Request changes"
              description={
                viewer.can.requestChanges
                  ? "Almost there? Send the work back with what to fix; the agent resubmits."
                  : `No rounds of changes left (${job.revisionCount} of ${job.maxRevisions} used): approve or dispute.`
              }
            >
              {viewer.can.requestChanges ? (
                <RequestChangesForm jobId={job.id} revisionCount={job.revisionCount} maxRevisions={job.maxRevisions} />
              ) : null}
            </Card>
          ) : null}
          {canDispute ? (
            <Card title="Dispute" description="Something is wrong with the work.">
              <DisputeForm jobId={job.id} />
            </Card>
          ) : null}
        </section>
      ) : role === "agent" && canDispute ? (
        <Card
          className="mt-8"
          title="Dispute"
          description="The poster is not playing fair? Open a dispute; the money stays in escrow."
        >
          <DisputeForm jobId={job.id} />
        </Card>
      ) : null}
    </>
  );
}

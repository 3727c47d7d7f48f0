import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { LinkButton } from "@/components/ui/link-button";
import { CancelJob, RefundProgress } from "@/components/jobs/cancel-job";
import { AskEmail } from "@/components/notifications/ask-email";

/**
 * What the poster can do with the job's money and life (give a mail address, fund, cancel) and
 * where a cancelled job's refund stands.
 */
export function JobPosterActions({
  job,
  viewer,
  askEmail,
  explorer,
  inParts,
}: {
  job: JobDetail;
  viewer: JobViewer;
  askEmail: boolean;
  explorer: string | null;
  /** An assigned job paid in parts: cancelling refunds the parts not yet settled. */
  inParts: boolean;
}) {
  return (
    <>
      {askEmail ? (
        <Card
          className="mt-6"
          title="Hear about bids by mail"
          description="We can mail you when an agent bids, delivers or disputes, so you need not keep this page open. You can change or remove it in mail settings."
        >
          <AskEmail jobId={job.id} />
        </Card>
      ) : null}
      {/* ── Slot: "Fund this job" (the poster, an OPEN unfunded job). The funding flow itself
          lives in the (wallet) route group at /jobs/[id]/fund, so this page loads no wallet code. */}
      {viewer.can.fund ? (
        <Card
          className="mt-6"
          title="Fund this job"
          description="Lock the budget in the escrow contract from your wallet. Agents trust funded jobs first; you get it back if you cancel."
        >
          <LinkButton variant="primary" href={`/jobs/${job.id}/fund`}>
            Fund this job
          </LinkButton>
        </Card>
      ) : null}
      {viewer.can.cancel ? (
        <Card
          className="mt-6"
          title="Cancel this job"
          description={
            inParts
              ? "No part is in flight: cancelling refunds the parts not yet settled to the wallet that paid them and frees the agent. Parts already paid stay paid."
              : job.status === "IN_PROGRESS"
                ? job.funded
                  ? "The deadline passed and nothing was delivered: cancelling returns the whole deposit to the wallet that paid it and frees the agent."
                  : "The job was never funded, so the agent cannot deliver: cancelling closes it and frees the agent. No money moves."
                : job.funded
                  ? "Changed your mind? Cancelling returns the whole deposit to the wallet that paid it, with no fee."
                  : "Cancelling closes the job and expires its pending bids."
          }
        >
          <CancelJob jobId={job.id} funded={job.funded} inParts={inParts} />
        </Card>
      ) : null}
      {job.status === "CANCELLED" && job.funded && !job.refundTxHash ? <RefundProgress /> : null}
      {job.status === "CANCELLED" && job.refundTxHash ? (
        <Alert className="mt-6" tone="success" title="Refunded">
          The deposit went back to{" "}
          {job.escrowPayer ? (
            <ExplorerLink value={job.escrowPayer} explorerUrl={explorer} kind="address" />
          ) : (
            "the payer"
          )}{" "}
          in transaction <ExplorerLink value={job.refundTxHash} explorerUrl={explorer} />.
        </Alert>
      ) : null}
    </>
  );
}

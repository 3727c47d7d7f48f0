import type { JobDetail } from "@/lib/api/schemas/viewer";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { Countdown } from "@/components/ui/countdown";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { formatDate } from "@/components/ui/time";

/** Where the escrow stands: released, refunded, disputed, or held through the proof hold. */
export function ReviewEscrow({
  job,
  explorer,
  holdEnd,
  holdPassed,
}: {
  job: JobDetail;
  explorer: string | null;
  holdEnd: string | null;
  holdPassed: boolean;
}) {
  return (
    <Card className="mt-6" title="Escrow">
      {job.status === "COMPLETED" ? (
        <p className="text-sm" data-testid="release">
          Released to the agent{job.completedAt ? ` on ${formatDate(job.completedAt, { withTime: true })}` : ""}
          {job.releaseTxHash ? (
            <>
              {" "}
              in <ExplorerLink value={job.releaseTxHash} explorerUrl={explorer} />
            </>
          ) : null}
          .
        </p>
      ) : job.status === "CANCELLED" ? (
        <p className="text-sm">
          Cancelled
          {job.refundTxHash ? (
            <>
              {" "}
              and refunded in <ExplorerLink value={job.refundTxHash} explorerUrl={explorer} />
            </>
          ) : (
            ""
          )}
          .
        </p>
      ) : job.status === "DISPUTED" ? (
        <div className="text-sm">
          <p className="font-medium">Disputed: the money stays in escrow.</p>
          {job.disputeReason ? <p className="mt-1">Reason: {job.disputeReason}</p> : null}
          <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
            A dispute opens a case: both sides add statements and evidence, and the job's arbiter (its evaluator, or the
            operator) rules how the escrow is paid out.
          </p>
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
          {job.approvedAt ? (
            <p>
              Approved {formatDate(job.approvedAt, { withTime: true })}: the escrow is released to the agent when the
              hold ends, after a last check.
            </p>
          ) : null}
          {job.releaseHeldReason ? (
            <Alert tone="warning" title="The release is held">
              {job.releaseHeldReason}
            </Alert>
          ) : null}
          {job.status === "REVIEW" && !job.approvedAt ? (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              If the poster neither approves nor disputes, the work is approved automatically 72 hours after the proof
              hold ends, if it is still live and its checks pass.
            </p>
          ) : null}
        </div>
      )}
    </Card>
  );
}

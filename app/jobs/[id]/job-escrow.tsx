import Link from "next/link";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { PersonName, shortAddress } from "@/components/ui/avatar";
import { ExplorerLink } from "@/components/ui/explorer-link";

/** Named before anyone bids: who decides a dispute on this job (the evaluator, else the operator). */
export function JobArbiter({ job }: { job: JobDetail }) {
  return (
    <p className="mt-4 text-sm" data-testid="job-arbiter">
      {job.evaluatorAddress ? (
        <>
          Disputes are decided by the evaluator the poster named:{" "}
          <PersonName
            name={shortAddress(job.evaluatorAddress)}
            seed={job.evaluatorAddress}
            address={job.evaluatorAddress}
          />
          .
        </>
      ) : (
        <>Disputes are decided by the marketplace operator.</>
      )}
    </p>
  );
}

/** Where the job's money is: who funded the escrow and in which transactions it moved, or that it is not funded. */
export function JobEscrowLine({
  job,
  viewer,
  explorer,
}: {
  job: JobDetail;
  viewer: JobViewer;
  explorer: string | null;
}) {
  if (!job.escrowTxHash) {
    return (
      <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">
        Not funded yet: the budget is not in escrow, so no money is held for this job.
      </p>
    );
  }
  return (
    <p className="mt-4 text-sm">
      Escrow funded by{" "}
      {job.escrowPayer ? <ExplorerLink value={job.escrowPayer} explorerUrl={explorer} kind="address" /> : "the poster"}{" "}
      (deposit <ExplorerLink value={job.escrowTxHash} explorerUrl={explorer} />)
      {job.releaseTxHash ? (
        <>
          {" "}
          · released in <ExplorerLink value={job.releaseTxHash} explorerUrl={explorer} />
        </>
      ) : null}
      {/* A refund is told once, in the "Refunded" notice below. */}
      {viewer.role === "POSTER" && job.agentId && (job.releaseTxHash || job.refundTxHash) ? (
        <>
          {" "}
          ·{" "}
          <Link href={`/jobs/${job.id}/feedback`} className="font-medium underline">
            Rate the agent on chain
          </Link>{" "}
          (ERC-8004, naming this settlement)
        </>
      ) : null}
    </p>
  );
}

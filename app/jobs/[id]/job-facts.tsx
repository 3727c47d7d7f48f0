import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { PersonName } from "@/components/ui/avatar";
import { Card } from "@/components/ui/card";
import { chainName } from "@/components/ui/chain-name";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { explainProofHold, holdDuration } from "@/components/jobs/proof-hold";
import { ShortenHold } from "@/components/jobs/shorten-hold";

/** The job's terms at a glance (budget, proof hold, deadline, chain, agent), and the poster's way to shorten the hold. */
export function JobFacts({ job, viewer }: { job: JobDetail; viewer: JobViewer }) {
  return (
    <>
      <dl className="mt-6 grid grid-cols-2 gap-4 rounded-xl border border-zinc-200 p-4 text-sm sm:grid-cols-5 dark:border-zinc-800">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Budget</dt>
          <dd className="mt-0.5">
            <Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} />
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Proof hold</dt>
          <dd className="mt-0.5">{holdDuration(job.inputData.proofHoldHours)}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Deadline</dt>
          <dd className="mt-0.5">{job.deadlineAt ? formatDate(job.deadlineAt, { withTime: true }) : "none"}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Chain</dt>
          <dd className="mt-0.5">{chainName(job.chainId)}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Assigned to</dt>
          <dd className="mt-0.5">
            {job.agent ? <PersonName name={job.agent.name} seed={job.agent.id} /> : "nobody yet"}
          </dd>
        </div>
      </dl>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{explainProofHold(job.inputData.proofHoldHours)}</p>
      {viewer.can.shortenHold && !viewer.can.edit && job.inputData.proofHoldHours > 0 ? (
        <Card
          className="mt-4"
          title="Pay sooner"
          description="Shorten the proof hold: the escrow releases earlier after your approval. It can only get shorter."
        >
          <ShortenHold jobId={job.id} hours={job.inputData.proofHoldHours} />
        </Card>
      ) : null}
    </>
  );
}

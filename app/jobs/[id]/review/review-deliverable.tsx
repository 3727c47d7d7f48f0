import type { JobDetail } from "@/lib/api/schemas/viewer";
import { ProofStatusBadge } from "@/components/deliverables/proof-history";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { TimeAgo } from "@/components/ui/time-ago";
import { formatDate } from "@/components/ui/time";
import type { DeliveryRole } from "../delivery-view";

/** The deliverable and its live proof status, or that the agent has not submitted yet. */
export function ReviewDeliverable({ job, role }: { job: JobDetail; role: DeliveryRole }) {
  return (
    <>
      {job.status === "IN_PROGRESS" && !job.submittedAt ? (
        <Card className="mt-6" title="Waiting for the deliverable" description="The agent has not submitted yet.">
          {role === "agent" ? (
            <LinkButton variant="primary" href={`/jobs/${job.id}/submit`}>
              Submit the deliverable
            </LinkButton>
          ) : null}
        </Card>
      ) : null}

      {job.outputData?.url ? (
        <Card className="mt-6" title="Deliverable">
          <p className="text-sm">
            <a
              className="font-medium break-all text-brand-700 underline dark:text-brand-400"
              href={job.outputData.url}
              rel="noopener noreferrer nofollow"
              target="_blank"
            >
              {job.outputData.url}
            </a>
          </p>
          {job.submittedAt ? (
            <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
              Submitted {formatDate(job.submittedAt, { withTime: true })}
            </p>
          ) : null}
          <div className="mt-4 flex flex-wrap items-center gap-2 text-sm" data-testid="proof-status">
            <span>Proof status:</span>
            <ProofStatusBadge status={job.proofCheckStatus} />
            {job.proofCheckedAt ? (
              <span className="text-zinc-500 dark:text-zinc-400">
                checked <TimeAgo value={job.proofCheckedAt} />
              </span>
            ) : null}
          </div>
          {job.proofCheckReason ? (
            <p className="mt-2 text-sm" data-testid="proof-reason">
              {job.proofCheckReason}
            </p>
          ) : null}
          {job.status === "REVIEW" ? (
            <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">
              Rechecked every 15 minutes while in review, and again at approval and at release.
            </p>
          ) : null}
        </Card>
      ) : null}
    </>
  );
}

import type { Job } from "@/lib/api/schemas/jobs";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { ChangeRequestNote } from "@/components/revisions/change-request-note";
import type { DeliveryRole } from "./delivery-view";

const DELIVERY_NOTE: Partial<Record<Job["status"], string>> = {
  IN_PROGRESS:
    "The assigned agent submits the deliverable's URL; it is probed for proof before the job moves to review.",
  REVIEW: "The work is delivered: check it, then approve or dispute.",
  DISPUTED: "The job is disputed; the money stays in escrow.",
  COMPLETED: "The escrow has been released to the agent.",
};

/** The parties' way to the delivery: the agent's submit button and the review page. */
export function JobDeliveryCard({ job, role }: { job: JobDetail; role: DeliveryRole }) {
  return (
    <Card
      className="mt-6"
      title="Delivery"
      description={DELIVERY_NOTE[job.status] ?? "The deliverable, its proof checks and the decision."}
    >
      {job.changeRequest && job.status === "IN_PROGRESS" && role !== "other" ? (
        <ChangeRequestNote request={job.changeRequest} maxRevisions={job.maxRevisions} forAgent={role === "agent"} />
      ) : job.revisionCount > 0 ? (
        <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400" data-testid="revision-count">
          Revised {job.revisionCount} of {job.maxRevisions} times at the poster&apos;s request.
        </p>
      ) : null}
      <div className="mt-3 flex flex-wrap gap-2">
        {role === "agent" && job.status === "IN_PROGRESS" ? (
          <LinkButton variant="primary" href={`/jobs/${job.id}/submit`}>
            {job.changeRequest ? "Submit the revised deliverable" : "Submit the deliverable"}
          </LinkButton>
        ) : null}
        <LinkButton variant={job.status === "REVIEW" ? "primary" : "secondary"} href={`/jobs/${job.id}/review`}>
          {job.status === "REVIEW" ? "Review the delivery" : "Delivery and proof checks"}
        </LinkButton>
      </div>
    </Card>
  );
}

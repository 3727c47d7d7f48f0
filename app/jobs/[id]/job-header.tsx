import Link from "next/link";
import type { Job } from "@/lib/api/schemas/jobs";
import { AddressPrint } from "@/components/people/address-print";
import type { PosterRecord } from "@/lib/api/schemas/records";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { PersonName } from "@/components/ui/avatar";
import { Badge, FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { formatDate } from "@/components/ui/time";
import { LiveJobUpdates } from "@/components/jobs/live-job-updates";
import { PosterRecordLine, posterProfileHref } from "@/components/records/records";

const MODE_LABEL: Record<Job["participationMode"], string> = {
  BID: "Bids",
  BOUNTY: "Bounty",
  AUTOMATIC_FORUM_REWARD: "Forum reward",
};

/** The top of the job page: breadcrumb, status badges, title, and who posted it with their record. */
export function JobHeader({
  job,
  viewer,
  posterRecord,
}: {
  job: JobDetail;
  viewer: JobViewer;
  posterRecord: PosterRecord | undefined;
}) {
  const isPoster = viewer.role === "POSTER";
  return (
    <>
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/jobs" className="hover:underline">
          Jobs
        </Link>
        {isPoster ? (
          <>
            {" "}
            ·{" "}
            <Link href="/me/jobs" className="hover:underline">
              My jobs
            </Link>
          </>
        ) : null}
      </nav>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <JobStatusBadge status={job.status} />
        <FundedBadge funded={job.funded} status={job.status} refundTxHash={job.refundTxHash} />
        <Badge tone="violet">{MODE_LABEL[job.participationMode]}</Badge>
        {isPoster ? <Badge tone="blue">You posted this</Badge> : null}
        {viewer.can.edit ? (
          <Link className="ml-auto text-sm font-medium underline" href={`/jobs/${job.id}/edit`}>
            Edit job
          </Link>
        ) : null}
      </div>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-balance sm:text-3xl">{job.title}</h1>
      <LiveJobUpdates jobId={job.id} />
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Posted by{" "}
        {posterRecord ? (
          <Link className="underline" href={posterProfileHref(posterRecord)}>
            <PersonName name={job.poster.displayName} seed={job.poster.id} />
          </Link>
        ) : (
          <PersonName name={job.poster.displayName} seed={job.poster.id} />
        )}
        <AddressPrint name={job.poster.displayName} address={job.poster.address} /> on {formatDate(job.createdAt)}
      </p>
      <p className="mt-1">
        <PosterRecordLine record={posterRecord} />
      </p>
    </>
  );
}

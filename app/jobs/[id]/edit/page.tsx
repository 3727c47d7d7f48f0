import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { JobForm } from "@/components/jobs/job-form";
import { Alert } from "@/components/ui/alert";

export const metadata: Metadata = { title: "Edit job" };
export const dynamic = "force-dynamic";

// The poster edits a job: the "Post a job" form filled with the job's brief. The service decides
// what may change (anything before the first bid, then only additions) and says why it refuses.
export default async function EditJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { api } = await requireSessionApi(`/jobs/${id}/edit`);
  const { result, error } = await settle(api.getJob({ params: { id } }));
  if (!result) {
    if (error.status === 404 || error.status === 400) notFound();
    return <Alert className="m-8" title="The job could not be loaded" error={error} />;
  }
  const job = result.data;
  const can = job.viewer?.can;
  // Once any agent has bid, only additions pass (the service decides; the page says so up front).
  const hasBids = can?.readBids
    ? ((await settle(api.listJobBids({ params: { jobId: job.id }, query: { limit: 1 } }))).result?.data.length ?? 0) > 0
    : (job.bidCount ?? 0) > 0;
  return (
    <div className="mx-auto max-w-2xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href={`/jobs/${job.id}`} className="hover:underline">
          {job.title}
        </Link>
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Edit job</h1>
      {!can?.edit ? (
        <Alert className="mt-6" tone="info" title="This job can no longer be edited">
          Only its poster edits a job, and only while it is open.{" "}
          {can?.shortenHold ? "You can still shorten its proof hold from the job's page." : null}
        </Alert>
      ) : (
        <>
          {hasBids ? (
            <Alert className="mt-4 mb-6" tone="warning" title="Agents have bid on this job">
              Their bids rest on the job as it is, so only additions are possible: extend the description, add criteria
              or skills, move the deadline later, shorten the proof hold. Every bidder is told what changed.
            </Alert>
          ) : (
            <p className="mt-1 mb-6 text-sm text-zinc-600 dark:text-zinc-400">
              Nobody has bid yet: every field can change
              {job.funded ? ", except the budget, which is locked in the escrow" : ""}.
            </p>
          )}
          <JobForm job={job} />
        </>
      )}
    </div>
  );
}

import { settle } from "@/lib/api/page-data";
import type { ApiClient } from "@/lib/api/client";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { Alert } from "@/components/ui/alert";
import { ReviewList, Stars } from "@/components/records/records";
import { ReviewForm } from "@/components/records/review-form";
import { formatDate } from "@/components/ui/time";

/**
 * Reviews of a job whose escrow was released: the public ones, the visitor's own (hidden from the
 * other side until it writes, or for 14 days), and the form while the visitor's side has not written.
 */
export async function JobReviews({ api, job }: { api: ApiClient; job: JobDetail }) {
  if (!job.releaseTxHash) return null;
  const res = await settle(api.listJobReviews({ params: { id: job.id } }));
  if (res.error) return <Alert className="mt-8" title="The reviews could not be loaded" error={res.error} />;
  const { data, viewer } = res.result;
  const subject = viewer.side === "POSTER" ? (job.agent?.name ?? "the agent") : job.poster.displayName;
  const mineHidden = viewer.mine && !data.some((r) => r.id === viewer.mine!.id);
  return (
    <section className="mt-8" aria-labelledby="reviews-heading">
      <h2 id="reviews-heading" className="text-lg font-semibold">
        Reviews
      </h2>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        The poster and the agent each rate the other once the escrow is released. A review is public when both have
        written, or 14 days after it was written.
      </p>
      {viewer.canWrite ? <ReviewForm jobId={job.id} subject={subject} /> : null}
      {mineHidden ? (
        <p className="mt-3 rounded-md bg-zinc-50 p-3 text-sm dark:bg-zinc-900" data-testid="my-review">
          Your review (<Stars rating={viewer.mine!.rating} />) is published when {subject} writes theirs, or on{" "}
          {formatDate(viewer.mine!.visibleFrom)}.
        </p>
      ) : null}
      {viewer.side && !viewer.mine && viewer.otherSideWritten ? (
        <p className="mt-3 text-sm">{subject} has reviewed you; theirs is shown once you write yours.</p>
      ) : null}
      <ReviewList reviews={data} empty="No public reviews of this job yet." />
    </section>
  );
}

import Link from "next/link";
import { apiWithToken } from "@/lib/api/for-request";
import { optional, settle } from "@/lib/api/page-data";
import type { ListJobsQuery } from "@/lib/api/schemas/jobs";
import { Alert } from "@/components/ui/alert";
import { Badge, FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { TimeAgo } from "@/components/ui/time-ago";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import type { SearchParams } from "@/components/ui/search-params";
import { holdDuration } from "@/components/jobs/proof-hold";
import { PosterRecordLine, posterProfileHref } from "@/components/records/records";
import { plainTextExcerpt } from "@/lib/markdown";

/**
 * The jobs the board's query finds, as cards with their posters' track records, then the pager.
 * A board the service would not list is explained in place. The packs are the page's one read of
 * them, shared with the filters (page.tsx).
 */
export async function JobCards({
  query,
  searchParams,
  packs,
}: {
  query: ListJobsQuery;
  searchParams: SearchParams;
  packs: Promise<{ id: string; title: string }[]>;
}) {
  const api = await apiWithToken();
  const [{ result, error }, packList] = await Promise.all([settle(api.listJobs({ query })), packs]);
  const packTitle = new Map(packList.map((pack) => [pack.id, pack.title]));
  // The posters' track records for the cards: one batched read for the page, never one per card; the board stands without it.
  const posterIds = [...new Set(result?.data.map((job) => job.posterId) ?? [])];
  const posterRecords =
    posterIds.length > 0
      ? ((await optional(api.getRecords({ query: { posterIds: posterIds.join(",") } })))?.data.posters ?? [])
      : [];
  const posterRecordOf = new Map(posterRecords.map((r) => [r.posterId, r]));
  return (
    <>
      {error ? <Alert tone="error" title="The jobs could not be loaded" error={error} className="mt-6" /> : null}
      {result && result.data.length === 0 ? (
        <EmptyState
          className="mt-6"
          title="No jobs match"
          description="Change the search or the filters, or post the first job."
        />
      ) : null}

      <ul className="mt-6 grid gap-4 sm:grid-cols-2" aria-label="Jobs">
        {result?.data.map((job) => (
          <li key={job.id} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
            <div className="flex flex-wrap items-center gap-2">
              <JobStatusBadge status={job.status} />
              <FundedBadge funded={job.funded} status={job.status} />
              {job.participationMode !== "BID" ? <Badge tone="violet">{job.participationMode}</Badge> : null}
              {job.requiredPackId ? (
                <Badge tone="amber">Certification: {packTitle.get(job.requiredPackId) ?? "required"}</Badge>
              ) : null}
            </div>
            <h2 className="mt-2 font-medium">
              <Link href={`/jobs/${job.id}`} className="hover:underline">
                {job.title}
              </Link>
            </h2>
            <p className="mt-1 line-clamp-2 text-sm text-zinc-600 dark:text-zinc-400">
              {plainTextExcerpt(job.description, 240)}
            </p>
            <p className="mt-3 flex items-center justify-between text-sm">
              <Usdc amount={job.budgetUsdc} />
              <span className="text-xs text-zinc-500 dark:text-zinc-400">
                {job.bidCount === 1 ? "1 bid" : `${job.bidCount ?? 0} bids`} ·{" "}
                {job.deadlineAt ? `due ${formatDate(job.deadlineAt)}` : "no deadline"}
              </span>
            </p>
            <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
              by{" "}
              {posterRecordOf.get(job.posterId) ? (
                <Link className="underline" href={posterProfileHref(posterRecordOf.get(job.posterId)!)}>
                  {job.poster.displayName}
                </Link>
              ) : (
                job.poster.displayName
              )}{" "}
              · <TimeAgo value={job.createdAt} />
            </p>
            <p className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400" data-testid="job-card-hold">
              {job.proofHoldHours === 0
                ? "Pays at approval"
                : `Pays ${holdDuration(job.proofHoldHours)} after delivery, once approved`}
            </p>
            <p className="mt-0.5">
              <PosterRecordLine record={posterRecordOf.get(job.posterId)} />
            </p>
          </li>
        ))}
      </ul>
      <CursorPager className="mt-6" pathname="/jobs" searchParams={searchParams} nextCursor={result?.meta.nextCursor} />
    </>
  );
}

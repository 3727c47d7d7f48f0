import type { Metadata } from "next";
import Link from "next/link";
import { apiForRequest } from "@/lib/api/for-request";
import { settle } from "@/lib/api/errors";
import { JOB_STATUSES } from "@/lib/api/schemas/jobs";
import { Alert } from "@/components/ui/alert";
import { FundedBadge, JobStatusBadge, Badge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { Select } from "@/components/ui/field";
import { TimeAgo } from "@/components/ui/time-ago";
import { Usdc } from "@/components/ui/usdc";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Jobs" };
export const dynamic = "force-dynamic";

// The board renders on the server and works without JavaScript: filters are a GET form, paging a link.
export default async function JobsBoard({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const funded = one(params.funded);
  const query = {
    status: one(params.status) as (typeof JOB_STATUSES)[number] | undefined,
    funded: funded === "true" ? true : funded === "false" ? false : undefined,
    participationMode: one(params.participationMode) as "BID" | "BOUNTY" | "AUTOMATIC_FORUM_REWARD" | undefined,
    cursor: one(params.cursor),
    limit: 20,
  };
  const api = await apiForRequest();
  const { result, error } = await settle(api.listJobs({ query }));

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Jobs</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Paid work for AI agents. Funded jobs hold their budget in USDC escrow on chain.</p>
        </div>
        <Link href="/jobs/new" className={buttonClasses({})}>Post a job</Link>
      </div>

      <form method="get" action="/jobs" className="mt-6 flex flex-wrap items-end gap-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800" aria-label="Filter jobs">
        <label>
          <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Status</span>
          <Select name="status" defaultValue={query.status ?? ""}>
            <option value="">Any</option>
            {JOB_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </Select>
        </label>
        <label>
          <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Funding</span>
          <Select name="funded" defaultValue={funded ?? ""}>
            <option value="">Any</option>
            <option value="true">Funded</option>
            <option value="false">Unfunded</option>
          </Select>
        </label>
        <label>
          <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Mode</span>
          <Select name="participationMode" defaultValue={query.participationMode ?? ""}>
            <option value="">Any</option>
            <option value="BID">Bids</option>
            <option value="BOUNTY">Bounty</option>
            <option value="AUTOMATIC_FORUM_REWARD">Forum reward</option>
          </Select>
        </label>
        <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>Apply</button>
      </form>

      {error ? <Alert tone="error" title="The jobs could not be loaded" error={error.body} className="mt-6" /> : null}
      {result && result.data.length === 0 ? <EmptyState className="mt-6" title="No jobs match" description="Change the filters, or post the first job." /> : null}

      <ul className="mt-6 grid gap-4 sm:grid-cols-2" aria-label="Jobs">
        {result?.data.map((job) => (
          <li key={job.id} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
            <div className="flex flex-wrap items-center gap-2">
              <JobStatusBadge status={job.status} />
              <FundedBadge funded={job.funded} />
              {job.participationMode !== "BID" ? <Badge tone="violet">{job.participationMode}</Badge> : null}
            </div>
            <h2 className="mt-2 font-medium">
              <Link href={`/jobs/${job.id}`} className="hover:underline">{job.title}</Link>
            </h2>
            <p className="mt-1 line-clamp-2 text-sm text-zinc-600 dark:text-zinc-400">{job.description}</p>
            <p className="mt-3 flex items-center justify-between text-sm">
              <Usdc amount={job.budgetUsdc} />
              <span className="text-xs text-zinc-500">by {job.poster.displayName} · <TimeAgo value={job.createdAt} /></span>
            </p>
          </li>
        ))}
      </ul>
      <CursorPager className="mt-6" pathname="/jobs" searchParams={params} nextCursor={result?.meta.nextCursor} />
    </div>
  );
}

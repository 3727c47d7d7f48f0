import type { Metadata } from "next";
import Link from "next/link";
import { JOB_STATUSES, type JobStatus } from "@/lib/api/schemas/jobs";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { Select } from "@/components/ui/field";
import { LinkButton } from "@/components/ui/link-button";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { one, type SearchParams } from "@/components/ui/search-params";
import { optional, settle } from "@/lib/api/page-data";
import { PosterSpending } from "@/components/records/money-over-time";

export const metadata: Metadata = { title: "My jobs" };

// The jobs the signed-in person posted, newest first (GET /v1/jobs?posterId=…).
export default async function MyJobsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const { api, session } = await requireSessionApi("/me/jobs");
  const me = await api.getMe({});
  const posterId = me.data.kind === "USER" ? me.data.user.id : null;
  const status = JOB_STATUSES.includes(one(params.status) as JobStatus) ? (one(params.status) as JobStatus) : undefined;
  const cursor = one(params.cursor);
  const [jobs, money] = await Promise.all([
    posterId ? settle(api.listJobs({ query: { posterId, status, limit: 20, cursor } })) : null,
    // The spending chart sums the jobs below: the page is whole without it (a failure is logged).
    posterId ? optional(api.getMyMoney({})).then((r) => r?.data ?? null) : null,
  ]);
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">My jobs</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
            Jobs you posted. Open one to fund it, review its bids and accept one.
          </p>
        </div>
        <LinkButton variant="primary" href="/jobs/new">
          Post a job
        </LinkButton>
      </div>
      {session.kind !== "USER" ? (
        <Alert tone="info" className="mt-6" title="Signed in with an agent key">
          Jobs are posted by people here. An agent&apos;s assigned work is on{" "}
          <Link className="underline" href="/agents">
            its page
          </Link>
          .
        </Alert>
      ) : null}
      {posterId ? (
        <form
          method="get"
          action="/me/jobs"
          className="mt-6 flex flex-wrap items-end gap-3"
          aria-label="Filter my jobs"
        >
          <label>
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Status</span>
            <Select name="status" defaultValue={status ?? ""}>
              <option value="">Any</option>
              {JOB_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s.replace("_", " ").toLowerCase()}
                </option>
              ))}
            </Select>
          </label>
          <button type="submit" className={buttonClasses({ variant: "secondary", size: "md" })}>
            Apply
          </button>
        </form>
      ) : null}
      {jobs?.error ? <Alert className="mt-6" error={jobs.error} /> : null}
      {jobs?.result && jobs.result.data.length === 0 ? (
        <EmptyState
          className="mt-6"
          title={status ? "No jobs with this status" : "No jobs yet"}
          description={status ? "Choose another status, or any." : "Post your first job; agents can bid on it at once."}
          action={
            <LinkButton variant="primary" href="/jobs/new">
              Post a job
            </LinkButton>
          }
        />
      ) : null}
      {jobs?.result && jobs.result.data.length > 0 ? (
        <div className="mt-6 rounded-xl border border-zinc-200 dark:border-zinc-800">
          <Table caption="Jobs you posted">
            <THead>
              <tr>
                <Th>Job</Th>
                <Th>Status</Th>
                <Th>Budget</Th>
                <Th>Assigned to</Th>
                <Th>Posted</Th>
              </tr>
            </THead>
            <TBody>
              {jobs.result.data.map((job) => (
                <Tr key={job.id}>
                  <Td>
                    <Link
                      href={`/jobs/${job.id}`}
                      className="font-medium text-zinc-900 hover:underline dark:text-zinc-100"
                    >
                      {job.title}
                    </Link>
                  </Td>
                  <Td>
                    <div className="flex flex-wrap gap-1.5">
                      <JobStatusBadge status={job.status} />
                      <FundedBadge funded={job.funded} status={job.status} />
                    </div>
                  </Td>
                  <Td>
                    <Usdc amount={job.budgetUsdc} />
                  </Td>
                  <Td>{job.agent?.name ?? <span className="text-zinc-500 dark:text-zinc-400">—</span>}</Td>
                  <Td className="whitespace-nowrap">{formatDate(job.createdAt)}</Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </div>
      ) : null}
      {jobs?.result ? (
        <CursorPager
          className="mt-2"
          pathname="/me/jobs"
          searchParams={params}
          nextCursor={jobs.result.meta.nextCursor}
        />
      ) : null}
      {money ? <PosterSpending money={money} /> : null}
    </div>
  );
}

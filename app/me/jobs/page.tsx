import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { Usdc } from "@/components/ui/usdc";

export const metadata: Metadata = { title: "My jobs" };

// The jobs the signed-in poster has posted, newest first.
export default async function MyJobsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const { api, session } = await requireSessionApi("/me/jobs");
  const me = await api.getMe({});
  const posterId = me.data.kind === "USER" ? me.data.user.id : null;
  const cursor = typeof params.cursor === "string" ? params.cursor : undefined;
  const jobs = posterId ? await api.listJobs({ query: { posterId, limit: 20, ...(cursor ? { cursor } : {}) } }) : null;
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">My jobs</h1>
      {session.kind !== "USER" ? <p className="mt-4 text-sm text-zinc-500">Signed in with an agent key: an agent&apos;s own jobs are under GET /v1/agents/:id/jobs.</p> : null}
      {jobs && jobs.data.length === 0 ? <EmptyState className="mt-6" title="No jobs yet" description="Post your first job; agents start bidding on it at once." action={<Link className="underline" href="/jobs/new">Post a job</Link>} /> : null}
      <ul className="mt-6 divide-y divide-zinc-200 dark:divide-zinc-800">
        {jobs?.data.map((job) => (
          <li key={job.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
            <div>
              <Link href={`/jobs/${job.id}`} className="font-medium hover:underline">{job.title}</Link>
              <div className="mt-1 flex gap-2"><JobStatusBadge status={job.status} /><FundedBadge funded={job.funded} /></div>
            </div>
            <Usdc amount={job.budgetUsdc} />
          </li>
        ))}
      </ul>
      {jobs ? <CursorPager className="mt-6" pathname="/me/jobs" searchParams={params} nextCursor={jobs.meta.nextCursor} /> : null}
    </div>
  );
}

import Link from "next/link";
import { FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { Usdc } from "@/components/ui/usdc";
import { holdDuration } from "@/components/jobs/proof-hold";
import { apiWithToken } from "@/lib/api/for-request";
import { settle } from "@/lib/api/page-data";

/** The newest open marketplace jobs, live from the board (or a plain "none yet"): never sample data. */
export async function LatestJobs({ chain }: { chain: string }) {
  const api = await apiWithToken();
  // A board that cannot be read is said in place: the landing page stays whole without it.
  const listed = await settle(api.listJobs({ query: { board: "marketplace", status: "OPEN", limit: 3 } }));
  const jobs = listed.result?.data ?? null;
  return (
    <figure className="relative">
      <div
        aria-hidden="true"
        className="absolute -inset-4 -z-10 rounded-3xl bg-gradient-to-br from-brand-100 via-white to-violet-100 opacity-80 blur-2xl dark:from-brand-900/40 dark:via-zinc-950 dark:to-violet-900/30"
      />
      <div className="overflow-hidden rounded-2xl border border-zinc-200 bg-white shadow-xl shadow-zinc-900/5 dark:border-zinc-800 dark:bg-zinc-900 dark:shadow-black/40">
        <div className="flex items-center justify-between border-b border-zinc-200 px-5 py-3 dark:border-zinc-800">
          <h2 className="text-xs font-medium tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
            Newest open jobs
          </h2>
          <Link href="/jobs" className="text-xs text-brand-700 hover:underline dark:text-brand-400">
            All jobs
          </Link>
        </div>
        {jobs === null ? (
          <p className="px-5 py-6 text-sm text-zinc-600 dark:text-zinc-400">
            The job board could not be read just now.
          </p>
        ) : jobs.length === 0 ? (
          <p className="px-5 py-6 text-sm text-zinc-600 dark:text-zinc-400">No open jobs yet. Post the first one.</p>
        ) : (
          <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {jobs.map((job) => (
              <li key={job.id} className="px-5 py-4">
                <div className="flex items-start justify-between gap-4">
                  <Link
                    href={`/jobs/${job.id}`}
                    className="text-sm font-medium text-zinc-900 hover:underline dark:text-zinc-100"
                  >
                    {job.title}
                  </Link>
                  <Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} className="text-sm" />
                </div>
                <div className="mt-2 flex flex-wrap items-center gap-2">
                  <JobStatusBadge status={job.status} />
                  <FundedBadge funded={job.funded} status={job.status} />
                  <span className="text-xs text-zinc-600 dark:text-zinc-400">
                    {job.bidCount === 1 ? "1 bid" : `${job.bidCount ?? 0} bids`} · proof hold{" "}
                    {holdDuration(job.inputData.proofHoldHours)}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </div>
      <figcaption className="sr-only">The newest open jobs on the board, with budgets in USDC on {chain}.</figcaption>
    </figure>
  );
}

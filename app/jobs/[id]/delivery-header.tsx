import Link from "next/link";
import type { ReactNode } from "react";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { Usdc } from "@/components/ui/usdc";

/**
 * The top of both sides of delivery (the agent's submit page, the poster's review): breadcrumb back
 * to the job, the page's title, and the job's status, funding and budget. `badges` go after the
 * funding badge; `withAgent` names the assigned agent after the budget.
 */
export function DeliveryHeader({
  job,
  title,
  badges,
  withAgent = false,
}: {
  job: JobDetail;
  title: string;
  badges?: ReactNode;
  withAgent?: boolean;
}) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/jobs" className="hover:underline">
          Jobs
        </Link>{" "}
        ·{" "}
        <Link href={`/jobs/${job.id}`} className="hover:underline">
          {job.title}
        </Link>
      </nav>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight">{title}</h1>
      <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
        <JobStatusBadge status={job.status} />
        <FundedBadge funded={job.funded} status={job.status} refundTxHash={job.refundTxHash} />
        {badges}
        <span>
          Budget <Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} />
        </span>
        {withAgent && job.agent ? <span>· Agent {job.agent.name}</span> : null}
      </div>
    </>
  );
}

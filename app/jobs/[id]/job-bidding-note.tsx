import Link from "next/link";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { Usdc } from "@/components/ui/usdc";

/** For a visitor who is not the poster of an open job taking bids: what a bid must propose and how agents bid. */
export function JobBiddingNote({ job, viewer }: { job: JobDetail; viewer: JobViewer }) {
  if (job.participationMode !== "BID" || job.status !== "OPEN" || viewer.role === "POSTER") return null;
  return (
    <p className="mt-8 text-sm text-zinc-500 dark:text-zinc-400">
      {job.funded ? (
        <>
          The budget is already in escrow, so a bid must propose exactly{" "}
          <Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} />.{" "}
        </>
      ) : (
        <>No money is in escrow yet: a bid names its own price, and the poster deposits it after accepting. </>
      )}
      Agents bid with their API key;{" "}
      <Link className="underline" href="/skill.md">
        how an agent joins and bids
      </Link>
      .
    </p>
  );
}

import Link from "next/link";
import { BID_STATUSES, type BidStatus } from "@/lib/api/schemas/bids";
import { Alert } from "@/components/ui/alert";
import { Badge, BidStatusBadge, FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { Countdown } from "@/components/ui/countdown";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { Select } from "@/components/ui/field";
import type { SearchParams } from "@/components/ui/search-params";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import type { Answer, Settled } from "@/lib/api/answers";

/** The jobs the agent was assigned, newest first, with the claim's countdown on a bounty in progress. */
export function AgentAssignedWork({ agentId, work }: { agentId: string; work: Answer<"listAgentJobs"> }) {
  return (
    <section className="mt-10" aria-labelledby="work-heading">
      <h2 id="work-heading" className="text-lg font-semibold">
        Assigned work
      </h2>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Jobs this agent was assigned (accepted bids and bounty claims), active and past, newest first.
      </p>
      {work.data.length === 0 ? (
        <p className="mt-3 text-sm text-zinc-500 dark:text-zinc-400">No assigned work yet.</p>
      ) : (
        <ul
          className="mt-3 divide-y divide-zinc-200 rounded-xl border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
          aria-label="Assigned work"
        >
          {work.data.map((job) => (
            <li key={job.id} className="flex flex-wrap items-center gap-2 px-4 py-3 text-sm">
              <Link className="font-medium underline" href={`/jobs/${job.id}`}>
                {job.title}
              </Link>
              <JobStatusBadge status={job.status} />
              <FundedBadge funded={job.funded} status={job.status} />
              <Usdc amount={job.budgetUsdc} />
              {job.participationMode === "BOUNTY" ? <Badge tone="violet">bounty</Badge> : null}
              {job.status === "IN_PROGRESS" && job.claimExpiresAt && !job.submittedAt ? (
                <span className="text-xs text-zinc-500 dark:text-zinc-400">
                  claim <Countdown to={job.claimExpiresAt} prefix="ends in" expiredLabel="has lapsed" />
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {work.meta.nextCursor ? (
        <Link
          className="mt-2 inline-block text-sm underline"
          href={`/agents/${encodeURIComponent(agentId)}?workCursor=${encodeURIComponent(work.meta.nextCursor)}`}
        >
          Older assigned work
        </Link>
      ) : null}
    </section>
  );
}

/** The bid inbox (the agent's and its owner's): each bid with its job's status and funding, filtered by status. */
export function AgentBidInbox({
  agentId,
  agentName,
  mine,
  status,
  query,
  bidsRes,
}: {
  agentId: string;
  agentName: string;
  mine: boolean;
  status: BidStatus | undefined;
  query: SearchParams;
  bidsRes: Settled<Answer<"listAgentBids">>;
}) {
  return (
    <section className="mt-10" aria-labelledby="bids-heading">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 id="bids-heading" className="text-lg font-semibold">
          Bids
        </h2>
        {mine ? (
          <form method="get" className="flex items-end gap-2" aria-label="Filter bids">
            <label>
              <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Bid status</span>
              <Select name="status" defaultValue={status ?? ""}>
                <option value="">Any</option>
                {BID_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s.toLowerCase()}
                  </option>
                ))}
              </Select>
            </label>
            <button type="submit" className={buttonClasses({ variant: "secondary" })}>
              Apply
            </button>
          </form>
        ) : null}
      </div>
      {bidsRes.error ? (
        <Alert className="mt-4" title="The bids could not be loaded" error={bidsRes.error} />
      ) : bidsRes.result.data.length === 0 ? (
        <EmptyState
          className="mt-4"
          title={status ? "No bids with this status" : "No bids yet"}
          description="The agent bids on open jobs with its API key; its bids show here."
        />
      ) : (
        <div className="mt-4 rounded-xl border border-zinc-200 dark:border-zinc-800">
          <Table caption={`Bids of ${agentName}`}>
            <THead>
              <tr>
                <Th>Job</Th>
                <Th>Proposed</Th>
                <Th>Bid</Th>
                <Th>Job status</Th>
                <Th>Funding</Th>
                <Th>Placed</Th>
              </tr>
            </THead>
            <TBody>
              {bidsRes.result.data.map((bid) => (
                <Tr key={bid.id}>
                  <Td>
                    <Link
                      className="font-medium text-zinc-900 hover:underline dark:text-zinc-100"
                      href={`/jobs/${bid.jobId}`}
                    >
                      {bid.job.title}
                    </Link>
                    <div className="text-xs text-zinc-500 dark:text-zinc-400">
                      budget <Usdc amount={bid.job.budgetUsdc} />
                    </div>
                  </Td>
                  <Td>
                    <Usdc amount={bid.proposedUsdc} />
                  </Td>
                  <Td>
                    <BidStatusBadge status={bid.status} />
                  </Td>
                  <Td>
                    <JobStatusBadge status={bid.jobStatus} />
                  </Td>
                  <Td>
                    <FundedBadge funded={bid.funded} />
                  </Td>
                  <Td className="whitespace-nowrap">{formatDate(bid.createdAt)}</Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </div>
      )}
      {bidsRes.result ? (
        <CursorPager
          className="mt-2"
          pathname={`/agents/${encodeURIComponent(agentId)}`}
          searchParams={query}
          nextCursor={bidsRes.result.meta.nextCursor}
        />
      ) : null}
    </section>
  );
}

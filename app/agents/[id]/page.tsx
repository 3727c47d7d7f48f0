import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";
import { BidStatusBadge, FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { Usdc } from "@/components/ui/usdc";

export const metadata: Metadata = { title: "Agent" };
type Params = Promise<{ id: string }>;

// An agent's bid inbox for its owner (or the agent's own key): each bid with its job's status and funding.
export default async function AgentPage({ params, searchParams }: { params: Params; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { id } = await params;
  const query = await searchParams;
  const { api } = await requireSessionApi(`/agents/${id}`);
  const cursor = typeof query.cursor === "string" ? query.cursor : undefined;
  let bids;
  try {
    bids = await api.listAgentBids({ params: { id }, query: { limit: 20, ...(cursor ? { cursor } : {}) } });
  } catch (error) {
    if (error instanceof ApiError && [403, 404].includes(error.status)) notFound();
    throw error;
  }
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <nav className="text-sm text-zinc-500"><Link href="/agents" className="hover:underline">My agents</Link> / {id}</nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Bids of {id}</h1>
      {bids.data.length === 0 ? <p className="mt-4 text-sm text-zinc-500">No bids yet.</p> : (
        <table className="mt-6 min-w-full text-sm">
          <thead className="text-left text-xs text-zinc-500"><tr><th className="py-2 pr-4">Job</th><th className="py-2 pr-4">Proposed</th><th className="py-2 pr-4">Bid</th><th className="py-2 pr-4">Job status</th><th className="py-2">Funding</th></tr></thead>
          <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {bids.data.map((bid) => (
              <tr key={bid.id}>
                <td className="py-2 pr-4"><Link className="hover:underline" href={`/jobs/${bid.jobId}`}>{bid.job.title}</Link></td>
                <td className="py-2 pr-4"><Usdc amount={bid.proposedUsdc} /></td>
                <td className="py-2 pr-4"><BidStatusBadge status={bid.status} /></td>
                <td className="py-2 pr-4"><JobStatusBadge status={bid.jobStatus} /></td>
                <td className="py-2"><FundedBadge funded={bid.funded} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <CursorPager className="mt-6" pathname={`/agents/${id}`} searchParams={query} nextCursor={bids.meta.nextCursor} />
    </div>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { apiForRequest } from "@/lib/api/for-request";
import { sessionApi } from "@/lib/session/api";
import { BidDecision } from "@/components/bids/bid-decision";
import { BidStatusBadge } from "@/components/ui/badge";
import { ApiError } from "@/lib/api/errors";
import type { Job } from "@/lib/api/schemas/jobs";
import { FundedBadge, JobStatusBadge, Badge } from "@/components/ui/badge";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";

export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

async function loadJob(id: string): Promise<Job> {
  const api = await apiForRequest();
  try {
    return (await api.getPublicJob({ params: { id } })).data;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) notFound();
    throw error;
  }
}

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  const api = await apiForRequest();
  const job = await api.getPublicJob({ params: { id } }).catch(() => null);
  return job ? { title: job.data.title, description: `${job.data.budgetUsdc} USDC · ${job.data.funded ? "funded" : "not funded yet"}` } : { title: "Job not found" };
}

// The public view of a job, for anyone. It renders on the server and ships no wallet code.
export default async function JobPage({ params }: { params: Params }) {
  const { id } = await params;
  const job = await loadJob(id);
  const api = await apiForRequest();
  const chain = await api.getChain({}).catch(() => null);
  const explorer = chain?.data.explorerUrl ?? null;
  // The poster's view: the service answers the bid list to the poster only (403 for anyone else).
  const { api: asVisitor, session } = await sessionApi();
  const bids = session ? await asVisitor.listJobBids({ params: { jobId: job.id }, query: { limit: 100 } }).catch(() => null) : null;

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <nav className="text-sm text-zinc-500"><Link href="/jobs" className="hover:underline">Jobs</Link></nav>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <JobStatusBadge status={job.status} />
        <FundedBadge funded={job.funded} />
        <Badge tone="violet">{job.participationMode}</Badge>
      </div>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">{job.title}</h1>
      <p className="mt-1 text-sm text-zinc-500">Posted by {job.poster.displayName} on {formatDate(job.createdAt)}</p>

      <dl className="mt-6 grid grid-cols-2 gap-4 rounded-lg border border-zinc-200 p-4 text-sm sm:grid-cols-4 dark:border-zinc-800">
        <div><dt className="text-zinc-500">Budget</dt><dd><Usdc amount={job.budgetUsdc} /></dd></div>
        <div><dt className="text-zinc-500">Proof hold</dt><dd>{job.inputData.proofHoldHours} h</dd></div>
        <div><dt className="text-zinc-500">Chain</dt><dd>{job.chainId}</dd></div>
        <div><dt className="text-zinc-500">Assigned</dt><dd>{job.agent ? job.agent.name : "nobody yet"}</dd></div>
      </dl>

      {job.escrowTxHash ? (
        <p className="mt-4 text-sm">Escrow funded by <ExplorerLink value={job.escrowTxHash} explorerUrl={explorer} />{job.releaseTxHash ? <> · released in <ExplorerLink value={job.releaseTxHash} explorerUrl={explorer} /></> : null}{job.refundTxHash ? <> · refunded in <ExplorerLink value={job.refundTxHash} explorerUrl={explorer} /></> : null}</p>
      ) : (
        <p className="mt-4 text-sm text-zinc-500">Not funded yet: the budget is not in escrow, so no money is held for this job.</p>
      )}

      <section className="mt-8">
        <h2 className="text-lg font-semibold">Description</h2>
        <p className="mt-2 whitespace-pre-wrap text-sm leading-6">{job.description}</p>
      </section>
      <section className="mt-6">
        <h2 className="text-lg font-semibold">Acceptance criteria</h2>
        <ul className="mt-2 list-disc space-y-1 pl-5 text-sm">
          {job.acceptanceCriteria.map((c) => <li key={c.id}>{c.description} <span className="text-xs text-zinc-500">({c.check.type})</span></li>)}
        </ul>
      </section>
      {job.requiredSkills.length > 0 ? (
        <p className="mt-4 flex flex-wrap gap-2 text-sm">Skills: {job.requiredSkills.map((s) => <Badge key={s}>{s}</Badge>)}</p>
      ) : null}
      {job.sourceForumThreadId ? (
        <p className="mt-6 text-sm">Source discussion: <Link className="underline" href={`/forum/${job.sourceForumThreadId}`}>the forum thread this job was hired from</Link></p>
      ) : null}
      {bids ? (
        <section className="mt-8" aria-labelledby="bids-heading">
          <h2 id="bids-heading" className="text-lg font-semibold">Bids ({bids.data.length})</h2>
          {job.status === "OPEN" && !job.funded ? (
            <p className="mt-2 text-sm"><Link className="font-medium underline" href={`/jobs/${job.id}/fund`}>Fund this job</Link> to lock the budget in escrow; agents trust funded jobs first.</p>
          ) : null}
          {bids.data.length === 0 ? <p className="mt-2 text-sm text-zinc-500">No bids yet. Agents bid through the API.</p> : (
            <div className="mt-3 overflow-x-auto">
              <table className="min-w-full text-sm">
                <thead className="text-left text-xs text-zinc-500"><tr><th className="py-2 pr-4">Agent</th><th className="py-2 pr-4">Proposed</th><th className="py-2 pr-4">Cover letter</th><th className="py-2 pr-4">Status</th><th className="py-2">Decision</th></tr></thead>
                <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
                  {bids.data.map((bid) => (
                    <tr key={bid.id} className="align-top">
                      <td className="py-2 pr-4">{bid.agent?.name ?? bid.agentId}<div className="text-xs text-zinc-500">{bid.agentId}</div></td>
                      <td className="py-2 pr-4"><Usdc amount={bid.proposedUsdc} /></td>
                      <td className="max-w-xs py-2 pr-4 whitespace-pre-wrap">{bid.coverLetter ?? "—"}</td>
                      <td className="py-2 pr-4"><BidStatusBadge status={bid.status} /></td>
                      <td className="py-2">{bid.status === "PENDING" && job.status === "OPEN" ? <BidDecision jobId={job.id} bidId={bid.id} agentName={bid.agent?.name ?? bid.agentId} /> : null}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ) : null}
      <p className="mt-8 text-sm text-zinc-500">Agents bid through the API: <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">POST /v1/jobs/{job.id}/bids</code></p>
    </div>
  );
}

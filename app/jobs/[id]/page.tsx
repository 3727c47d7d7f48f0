import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { apiForRequest } from "@/lib/api/for-request";
import { ApiError, settle } from "@/lib/api/errors";
import type { Job } from "@/lib/api/schemas/jobs";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { sessionApi } from "@/lib/session/api";
import { BidDecision } from "@/components/bids/bid-decision";
import { Alert } from "@/components/ui/alert";
import { Badge, BidStatusBadge, FundedBadge, JobStatusBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { LinkButton } from "@/components/ui/link-button";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { TimeAgo } from "@/components/ui/time-ago";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { BountyClaim, JobOrigin, ShareJob, SubcontractTree } from "@/components/jobs/job-modes";
import { JobProgress } from "@/components/jobs/job-progress";
import { JobTimeline } from "@/components/jobs/job-timeline";
import { AgentRecordLine, PosterRecordLine, posterProfileHref } from "@/components/records/records";
import { one, type SearchParams } from "@/components/ui/search-params";
import { DisputeCasePanel } from "@/components/disputes/dispute-case";
import { LiveJobUpdates } from "@/components/jobs/live-job-updates";
import { CancelJob, RefundProgress } from "@/components/jobs/cancel-job";
import { explainProofHold, holdDuration } from "@/components/jobs/proof-hold";
import { chainName } from "@/components/ui/chain-name";
import { deliveryRoleOf, viewerOf } from "./delivery-view";
import { JobMessages } from "./job-messages";
import { JobReviews } from "./job-reviews";

export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

/**
 * The job as this visitor may read it, once per request (metadata and page share it): signed in,
 * GET /v1/jobs/:id, which carries the private fields to the parties and `viewer` (role and allowed
 * actions); signed out (or with a session the service no longer knows), the anonymous detail.
 */
const loadJob = cache(async (id: string): Promise<JobDetail | null> => {
  const { api, session } = await sessionApi();
  try {
    if (session) {
      const signedIn = await settle(api.getJob({ params: { id } }));
      if (signedIn.result) return signedIn.result.data;
      if (signedIn.error.status !== 401) throw signedIn.error;
    }
    return (await (await apiForRequest()).getPublicJob({ params: { id } })).data;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return null;
    throw error;
  }
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const job = await loadJob((await params).id);
  return job ? { title: job.title, description: `${job.budgetUsdc} USDC · ${job.funded ? "funded" : "not funded yet"} · ${job.status}` } : { title: "Job not found" };
}

const DELIVERY_NOTE: Partial<Record<Job["status"], string>> = {
  IN_PROGRESS: "The assigned agent submits the deliverable's URL; it is probed for proof before the job moves to review.",
  REVIEW: "The work is delivered: check it, then approve or dispute.",
  DISPUTED: "The job is disputed; the money stays in escrow.",
  COMPLETED: "The escrow has been released to the agent.",
};

const MODE_LABEL: Record<Job["participationMode"], string> = { BID: "Bids", BOUNTY: "Bounty", AUTOMATIC_FORUM_REWARD: "Forum reward" };

// A job, for anyone: rendered on the server, readable without JavaScript, no wallet code. Its
// poster also sees the bids with accept and reject.
export default async function JobPage({ params, searchParams }: { params: Params; searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const withAgent = one((await searchParams).with);
  const job = await loadJob(id);
  if (!job) notFound();
  const chain = await (await apiForRequest()).getChain({}).catch(() => null);
  const explorer = chain?.data.explorerUrl ?? null;

  // What the visitor is to this job and may do comes from the service (viewer); the bids and the
  // subcontracting tree are asked for only when it says they answer.
  const viewer = viewerOf(job);
  const role = deliveryRoleOf(viewer);
  const isPoster = viewer.role === "POSTER";
  const { api: asVisitor } = await sessionApi();
  const [bids, treeRes, eventsRes, disputeRes] = await Promise.all([
    viewer.can.readBids ? settle(asVisitor.listJobBids({ params: { jobId: job.id }, query: { limit: 100 } })) : Promise.resolve(null),
    viewer.can.viewTree ? settle(asVisitor.getJobTree({ params: { id: job.id } })) : Promise.resolve(null),
    viewer.can.readEvents ? settle(asVisitor.listJobEvents({ params: { id: job.id }, query: { limit: 500 } })) : Promise.resolve(null),
    viewer.can.readDispute ? settle(asVisitor.getDispute({ params: { id: job.id } })) : Promise.resolve(null),
  ]);
  const bidsError = bids?.error ?? null;
  // The timeline names the poster and the agents by role and name, never by their ids.
  const agentNames: Record<string, string> = Object.fromEntries(
    (bids?.result?.data ?? []).flatMap((bid) => (bid.agent ? [[bid.agent.id, bid.agent.name]] : [])),
  );
  if (job.agent) agentNames[job.agent.id] = job.agent.name;
  // The poster's and each bidder's track record, in one batched call for the page (never one per row).
  const bidderIds = [...new Set((bids?.result?.data ?? []).map((b) => b.agentId))];
  const records = await asVisitor
    .getRecords({ query: { posterIds: job.posterId, ...(bidderIds.length > 0 ? { agentIds: bidderIds.join(",") } : {}) } })
    .then((r) => r.data, () => ({ agents: [], posters: [] }));
  const recordOf = new Map(records.agents.map((r) => [r.agentId, r]));
  const posterRecord = records.posters[0];
  const tree = treeRes?.result?.data ?? null;
  const delivery = viewer.can.review;
  const canSubcontract = viewer.can.subcontract;

  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href="/jobs" className="hover:underline">Jobs</Link>
        {isPoster ? <> · <Link href="/me/jobs" className="hover:underline">My jobs</Link></> : null}
      </nav>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <JobStatusBadge status={job.status} />
        <FundedBadge funded={job.funded} />
        <Badge tone="violet">{MODE_LABEL[job.participationMode]}</Badge>
        {isPoster ? <Badge tone="blue">You posted this</Badge> : null}
      </div>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-balance sm:text-3xl">{job.title}</h1>
      <LiveJobUpdates jobId={job.id} />
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Posted by{" "}
        {posterRecord ? <Link className="underline" href={posterProfileHref(posterRecord)}>{job.poster.displayName}</Link> : job.poster.displayName} on {formatDate(job.createdAt)}
      </p>
      <p className="mt-1"><PosterRecordLine record={posterRecord} /></p>

      <dl className="mt-6 grid grid-cols-2 gap-4 rounded-xl border border-zinc-200 p-4 text-sm sm:grid-cols-4 dark:border-zinc-800">
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Budget</dt>
          <dd className="mt-0.5"><Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} /></dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Proof hold</dt>
          <dd className="mt-0.5">{holdDuration(job.inputData.proofHoldHours)}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Chain</dt>
          <dd className="mt-0.5">{chainName(job.chainId)}</dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Assigned to</dt>
          <dd className="mt-0.5">{job.agent ? job.agent.name : "nobody yet"}</dd>
        </div>
      </dl>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{explainProofHold(job.inputData.proofHoldHours)}</p>

      {/* Named before anyone bids: who decides a dispute on this job (the evaluator, else the operator). */}
      <p className="mt-4 text-sm" data-testid="job-arbiter">
        {job.evaluatorAddress ? (
          <>Disputes are decided by the evaluator the poster named: <code className="break-all">{job.evaluatorAddress}</code>.</>
        ) : (
          <>Disputes are decided by the marketplace operator.</>
        )}
      </p>
      {job.escrowTxHash ? (
        <p className="mt-4 text-sm">
          Escrow funded by {job.escrowPayer ? <ExplorerLink value={job.escrowPayer} explorerUrl={explorer} kind="address" /> : "the poster"} (deposit <ExplorerLink value={job.escrowTxHash} explorerUrl={explorer} />)
          {job.releaseTxHash ? <> · released in <ExplorerLink value={job.releaseTxHash} explorerUrl={explorer} /></> : null}
          {job.refundTxHash ? <> · refunded in <ExplorerLink value={job.refundTxHash} explorerUrl={explorer} /></> : null}
        </p>
      ) : (
        <p className="mt-4 text-sm text-zinc-600 dark:text-zinc-400">Not funded yet: the budget is not in escrow, so no money is held for this job.</p>
      )}

      {/* ── Slot: "Fund this job" (the poster, an OPEN unfunded job). The funding flow itself
          lives in the (wallet) route group at /jobs/[id]/fund, so this page loads no wallet code. */}
      {viewer.can.fund ? (
        <Card className="mt-6" title="Fund this job" description="Lock the budget in the escrow contract from your wallet. Agents trust funded jobs first; you get it back if you cancel.">
          <LinkButton variant="primary" href={`/jobs/${job.id}/fund`}>Fund this job</LinkButton>
        </Card>
      ) : null}
      {viewer.can.cancel ? (
        <Card
          className="mt-6"
          title="Cancel this job"
          description={job.funded ? "Changed your mind? Cancelling returns the whole deposit to the wallet that paid it, with no fee." : "Cancelling closes the job and expires its pending bids."}
        >
          <CancelJob jobId={job.id} funded={job.funded} />
        </Card>
      ) : null}
      {job.status === "CANCELLED" && job.funded && !job.refundTxHash ? <RefundProgress /> : null}
      {job.status === "CANCELLED" && job.refundTxHash ? (
        <Alert className="mt-6" tone="success" title="Refunded">
          The deposit went back to {job.escrowPayer ? <ExplorerLink value={job.escrowPayer} explorerUrl={explorer} kind="address" /> : "the payer"} in transaction <ExplorerLink value={job.refundTxHash} explorerUrl={explorer} />.
        </Alert>
      ) : null}
      <BountyClaim job={job} />
      {/* Progress reports and the stall, to the parties (the service sends the fields to them only). */}
      <JobProgress job={job} />
      {delivery ? (
        <Card className="mt-6" title="Delivery" description={DELIVERY_NOTE[job.status] ?? "The deliverable, its proof checks and the decision."}>
          <div className="flex flex-wrap gap-2">
            {role === "agent" && job.status === "IN_PROGRESS" ? <LinkButton variant="primary" href={`/jobs/${job.id}/submit`}>Submit the deliverable</LinkButton> : null}
            <LinkButton variant={job.status === "REVIEW" ? "primary" : "secondary"} href={`/jobs/${job.id}/review`}>{job.status === "REVIEW" ? "Review the delivery" : "Delivery and proof checks"}</LinkButton>
          </div>
        </Card>
      ) : null}

      {disputeRes?.result ? <DisputeCasePanel kase={disputeRes.result.data} explorerUrl={explorer} /> : null}
      {disputeRes?.error ? <Alert className="mt-6" title="The dispute could not be loaded" error={disputeRes.error} /> : null}

      <section className="mt-8" aria-labelledby="description-heading">
        <h2 id="description-heading" className="text-lg font-semibold">Description</h2>
        <p className="mt-2 text-sm leading-6 whitespace-pre-wrap">{job.description}</p>
      </section>
      <section className="mt-6" aria-labelledby="criteria-heading">
        <h2 id="criteria-heading" className="text-lg font-semibold">Acceptance criteria</h2>
        <ul className="mt-2 list-disc space-y-1 pl-5 text-sm">
          {job.acceptanceCriteria.map((c) => (
            <li key={c.id}>
              {c.description} <span className="text-xs text-zinc-500 dark:text-zinc-400">({c.check.type === "http_status" ? `HTTP ${c.check.equals}` : c.check.type})</span>
            </li>
          ))}
        </ul>
        {job.inputData.proofContentMarker ? (
          <p className="mt-3 text-sm">
            The delivered page must contain <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">{job.inputData.proofContentMarker}</code>.
          </p>
        ) : null}
      </section>
      {job.requiredSkills.length > 0 || job.preferredSkills.length > 0 ? (
        <section className="mt-6 space-y-2 text-sm" aria-label="Skills">
          {job.requiredSkills.length > 0 ? (
            <p className="flex flex-wrap items-center gap-2">Required skills: {job.requiredSkills.map((s) => <Badge key={s}>{s}</Badge>)}</p>
          ) : null}
          {job.preferredSkills.length > 0 ? (
            <p className="flex flex-wrap items-center gap-2">Preferred skills: {job.preferredSkills.map((s) => <Badge key={s} tone="zinc">{s}</Badge>)}</p>
          ) : null}
        </section>
      ) : null}
      <JobOrigin job={job} />
      {tree ? <SubcontractTree tree={tree} canSubcontract={canSubcontract} jobId={job.id} /> : null}
      <ShareJob job={job} />

      {bidsError ? <Alert className="mt-8" title="The bids could not be loaded" error={bidsError} /> : null}
      {bids?.result ? (
        <section className="mt-8" aria-labelledby="bids-heading">
          <h2 id="bids-heading" className="text-lg font-semibold">
            Bids <span className="font-normal text-zinc-500 dark:text-zinc-400">({bids.result.data.length})</span>
          </h2>
          {bids.result.data.length === 0 ? (
            <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">No bids yet. Bids appear here as agents place them.</p>
          ) : (
            <div className="mt-3 rounded-xl border border-zinc-200 dark:border-zinc-800">
              <Table caption="Bids on this job">
                <THead>
                  <tr>
                    <Th>Agent</Th>
                    <Th>Proposed</Th>
                    <Th>Cover letter</Th>
                    <Th>Status</Th>
                    <Th actions>Decision</Th>
                  </tr>
                </THead>
                <TBody>
                  {bids.result.data.map((bid) => {
                    const name = bid.agent?.name ?? bid.agentId;
                    return (
                      <Tr key={bid.id}>
                        <Td>
                          <Link className="font-medium text-zinc-900 underline dark:text-zinc-100" href={`/agents/${encodeURIComponent(bid.agentId)}`}>{name}</Link>
                          <div className="font-mono text-xs whitespace-nowrap text-zinc-500 dark:text-zinc-400">{bid.agentId}</div>
                          <AgentRecordLine record={recordOf.get(bid.agentId)} />
                          <div className="text-xs text-zinc-500 dark:text-zinc-400"><TimeAgo value={bid.createdAt} /></div>
                          {bid.agent?.certifications?.length ? (
                            <ul className="mt-1 space-y-0.5 text-xs" aria-label={`Certifications of ${name}`}>
                              {bid.agent.certifications.map((c) => (
                                <li key={c.id}>
                                  <Link className="underline" href={`/certificates/${c.code}`}>{c.pack.title}</Link>: {c.score}/{c.totalPoints}
                                  {c.mode ? ` · ${c.mode.replace("_", " ").toLowerCase()}` : ""}
                                </li>
                              ))}
                            </ul>
                          ) : null}
                        </Td>
                        <Td><Usdc amount={bid.proposedUsdc} /></Td>
                        <Td className="max-w-sm min-w-48 whitespace-pre-wrap">{bid.coverLetter ?? <span className="text-zinc-400">none</span>}</Td>
                        <Td><BidStatusBadge status={bid.status} /></Td>
                        <Td actions>
                          {bid.status === "PENDING" && viewer.can.decideBids ? (
                            <BidDecision jobId={job.id} bidId={bid.id} agentName={name} proposedUsdc={bid.proposedUsdc} hasWallet={bid.agent?.hasWallet ?? true} />
                          ) : (
                            <span className="text-xs text-zinc-500 dark:text-zinc-400">—</span>
                          )}
                        </Td>
                      </Tr>
                    );
                  })}
                </TBody>
              </Table>
            </div>
          )}
        </section>
      ) : null}
      <JobMessages api={asVisitor} job={job} viewer={viewer} withAgent={withAgent} />
      <JobReviews api={asVisitor} job={job} />
      {eventsRes?.error ? <Alert className="mt-8" title="The timeline could not be loaded" error={eventsRes.error} /> : null}
      {eventsRes?.result ? <JobTimeline events={eventsRes.result.data} hasMore={eventsRes.result.meta.hasMore} explorerUrl={explorer} parties={{ posterId: job.posterId, agentNames }} /> : null}
      {job.participationMode === "BID" && job.status === "OPEN" && !isPoster ? (
        <p className="mt-8 text-sm text-zinc-500 dark:text-zinc-400">
          {job.funded ? (
            <>The budget is already in escrow, so a bid must propose exactly <Usdc amount={job.budgetUsdc} symbol={job.tokenSymbol} />. </>
          ) : (
            <>No money is in escrow yet: a bid names its own price, and the poster deposits it after accepting. </>
          )}
          Agents bid with their API key; <Link className="underline" href="/skill.md">how an agent joins and bids</Link>.
        </p>
      ) : null}
    </div>
  );
}

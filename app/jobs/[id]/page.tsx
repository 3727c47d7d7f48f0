import type { Metadata } from "next";
import { cache } from "react";
import { apiWithToken } from "@/lib/api/for-request";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { sessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { one, type SearchParams } from "@/components/ui/search-params";
import { BountyClaim, JobOrigin, ShareJob, SubcontractTree } from "@/components/jobs/job-modes";
import { JobBrief } from "@/components/jobs/job-brief";
import { JobProgress } from "@/components/jobs/job-progress";
import { JobTimeline } from "@/components/jobs/job-timeline";
import { DisputeCasePanel } from "@/components/disputes/dispute-case";
import { MilestonesPanel } from "@/components/milestones/milestones-panel";
import { deliveryRoleOf, viewerOf } from "./delivery-view";
import { JobBiddingNote } from "./job-bidding-note";
import { JobBids } from "./job-bids";
import { JobDeliveryCard } from "./job-delivery";
import { JobArbiter, JobEscrowLine } from "./job-escrow";
import { JobFacts } from "./job-facts";
import { JobHeader } from "./job-header";
import { JobMessages } from "./job-messages";
import { JobPosterActions } from "./job-poster-actions";
import { JobReviews } from "./job-reviews";
import { JobSkills } from "./job-skills";
import { found, foundOrNull, optional, settle } from "@/lib/api/page-data";
import { JobStepper } from "@/components/jobs/job-stepper";
import { ProofHoldBar } from "@/components/jobs/proof-hold-bar";

export const dynamic = "force-dynamic";
type Params = Promise<{ id: string }>;

/**
 * The job as this visitor may read it, once per request (metadata and page share it): signed in,
 * GET /v1/jobs/:id, which carries the private fields to the parties and `viewer` (role and allowed
 * actions); signed out (or with a session the service no longer knows), the anonymous detail.
 */
const loadJob = cache(async (id: string): Promise<JobDetail> => {
  const { api, session } = await sessionApi();
  if (session) {
    // Null for a session the service no longer knows (401) or a job it does not show them: the public read decides.
    const signedIn = await foundOrNull(api.getJob({ params: { id } }));
    if (signedIn) return signedIn.data;
  }
  return (await found((await apiWithToken()).getPublicJob({ params: { id } }))).data;
});

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const job = await loadJob((await params).id);
  return {
    title: job.title,
    description: `${job.budgetUsdc} USDC · ${job.funded ? "funded" : "not funded yet"} · ${job.status}`,
  };
}

// A job, for anyone: rendered on the server, readable without JavaScript, no wallet code. Its
// poster also sees the bids with accept and reject.
export default async function JobPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: Promise<SearchParams>;
}) {
  const { id } = await params;
  const withAgent = one((await searchParams).with);
  const job = await loadJob(id);
  // The chain's explorer only adds links: the page is whole without it.
  const chain = await optional((await apiWithToken()).getChain({}));
  const explorer = chain?.data.explorerUrl ?? null;

  // What the visitor is to this job and may do comes from the service (viewer); the bids and the
  // subcontracting tree are asked for only when it says they answer.
  const viewer = viewerOf(job);
  const role = deliveryRoleOf(viewer);
  const isPoster = viewer.role === "POSTER";
  const { api: asVisitor } = await sessionApi();
  const [bids, treeRes, eventsRes, disputeRes] = await Promise.all([
    viewer.can.readBids
      ? settle(asVisitor.listJobBids({ params: { jobId: job.id }, query: { limit: 100 } }))
      : Promise.resolve(null),
    viewer.can.viewTree ? settle(asVisitor.getJobTree({ params: { id: job.id } })) : Promise.resolve(null),
    viewer.can.readEvents
      ? settle(asVisitor.listJobEvents({ params: { id: job.id }, query: { limit: 500 } }))
      : Promise.resolve(null),
    viewer.can.readDispute ? settle(asVisitor.getDispute({ params: { id: job.id } })) : Promise.resolve(null),
  ]);
  // A job paid in parts: its plan, each part's state and receipt (signed-in readers; empty for a job paid whole).
  const parts = (await settle(asVisitor.listMilestones({ params: { id: job.id } }))).result?.data ?? [];
  // The poster of parts waiting for approval or payment is told when the agent has no payout wallet yet.
  const walletlessAgent =
    isPoster && job.agent && parts.some((p) => p.status === "SUBMITTED" || p.status === "APPROVED")
      ? await asVisitor.getAgent({ params: { id: job.agent.id } }).then(
          (r) => (r.data.walletAddress === null ? r.data.name : null),
          () => null,
        )
      : null;
  // A poster nobody can mail is asked for an address here, where it helps: agents are about to bid.
  const askEmail =
    isPoster && (job.status === "OPEN" || job.status === "IN_PROGRESS" || job.status === "REVIEW")
      ? await optional(asVisitor.getNotificationSettings({})).then(
          (r) => r !== null && r.data.email === null && r.data.pendingEmail === null,
        )
      : false;
  // The timeline names the poster and the agents by role and name, never by their ids.
  const agentNames: Record<string, string> = Object.fromEntries(
    (bids?.result?.data ?? []).flatMap((bid) => (bid.agent ? [[bid.agent.id, bid.agent.name]] : [])),
  );
  if (job.agent) agentNames[job.agent.id] = job.agent.name;
  // The poster's and each bidder's track record, in one batched call for the page (never one per row).
  const bidderIds = [...new Set((bids?.result?.data ?? []).map((b) => b.agentId))];
  const records = (
    await optional(
      asVisitor.getRecords({
        query: { posterIds: job.posterId, ...(bidderIds.length > 0 ? { agentIds: bidderIds.join(",") } : {}) },
      }),
    )
  )?.data ?? { agents: [], posters: [] };
  const recordOf = new Map(records.agents.map((r) => [r.agentId, r]));
  const posterRecord = records.posters[0];
  const tree = treeRes?.result?.data ?? null;

  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <JobHeader job={job} viewer={viewer} posterRecord={posterRecord} />
      <JobStepper job={job} />
      <JobFacts job={job} viewer={viewer} />
      <ProofHoldBar job={job} />
      <JobArbiter job={job} />
      <JobEscrowLine job={job} viewer={viewer} explorer={explorer} />
      <JobPosterActions
        job={job}
        viewer={viewer}
        askEmail={askEmail}
        explorer={explorer}
        inParts={job.status === "IN_PROGRESS" && parts.length > 0}
      />
      <BountyClaim job={job} />
      {/* Progress reports and the stall, to the parties (the service sends the fields to them only). */}
      <JobProgress job={job} />
      {viewer.can.review ? <JobDeliveryCard job={job} role={role} /> : null}

      {disputeRes?.result ? (
        <DisputeCasePanel
          kase={disputeRes.result.data}
          explorerUrl={explorer}
          feeBps={chain?.data.feeBps ?? null}
          parties={{
            poster: { id: job.poster.id, name: job.poster.displayName, address: job.poster.address },
            agent: job.agent ?? null,
          }}
        />
      ) : null}
      {disputeRes?.error ? (
        <Alert className="mt-6" title="The dispute could not be loaded" error={disputeRes.error} />
      ) : null}

      <JobBrief job={job} />
      <JobSkills job={job} />
      <JobOrigin job={job} />
      {tree ? <SubcontractTree tree={tree} canSubcontract={viewer.can.subcontract} jobId={job.id} /> : null}
      <ShareJob job={job} />

      {bids?.error ? <Alert className="mt-8" title="The bids could not be loaded" error={bids.error} /> : null}
      {bids?.result ? <JobBids job={job} viewer={viewer} bids={bids.result.data} recordOf={recordOf} /> : null}
      <MilestonesPanel
        jobId={job.id}
        parts={parts}
        walletlessAgent={walletlessAgent}
        maxRevisions={job.maxRevisions}
        agentSide={viewer.role === "ASSIGNED_AGENT" || viewer.role === "OWNER_OF_ASSIGNED_AGENT"}
        canAct={{
          approve: isPoster && job.status === "IN_PROGRESS",
          dispute:
            job.status === "IN_PROGRESS" &&
            ["POSTER", "OWNER_OF_POSTER", "ASSIGNED_AGENT", "OWNER_OF_ASSIGNED_AGENT"].includes(viewer.role),
        }}
      />
      <JobMessages api={asVisitor} job={job} viewer={viewer} withAgent={withAgent} />
      <JobReviews api={asVisitor} job={job} />
      {eventsRes?.error ? (
        <Alert className="mt-8" title="The timeline could not be loaded" error={eventsRes.error} />
      ) : null}
      {eventsRes?.result ? (
        <JobTimeline
          events={eventsRes.result.data}
          hasMore={eventsRes.result.meta.hasMore}
          explorerUrl={explorer}
          parties={{ posterId: job.posterId, agentNames }}
          shownAbove={[job.escrowTxHash, job.releaseTxHash, job.refundTxHash]}
        />
      ) : null}
      <JobBiddingNote job={job} viewer={viewer} />
    </div>
  );
}

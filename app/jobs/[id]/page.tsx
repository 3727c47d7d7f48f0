import type { Metadata } from "next";
import { cache } from "react";
import { apiWithToken } from "@/lib/api/for-request";
import type { JobDetail } from "@/lib/api/schemas/viewer";
import { sessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { one, type SearchParams } from "@/components/ui/search-params";
import { BountyClaim, JobOrigin, ShareJob } from "@/components/jobs/job-modes";
import { JobBrief } from "@/components/jobs/job-brief";
import { JobProgress } from "@/components/jobs/job-progress";
import { deliveryRoleOf, viewerOf } from "./delivery-view";
import { JobBiddingNote } from "./job-bidding-note";
import { JobBids } from "./job-bids";
import { JobDeliveryCard } from "./job-delivery";
import { JobDispute } from "./job-dispute";
import { JobArbiter, JobEscrowApproval, JobEscrowExpiry, JobEscrowLine } from "./job-escrow";
import { JobFacts } from "./job-facts";
import { JobHeader } from "./job-header";
import { JobHistory } from "./job-history";
import { JobMessages } from "./job-messages";
import { JobParts } from "./job-parts";
import { JobPosterActions } from "./job-poster-actions";
import { JobReviews } from "./job-reviews";
import { JobSkills } from "./job-skills";
import { JobSubcontracts } from "./job-subcontracts";
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
// poster also sees the bids with accept and reject. The sections beside it draw each part; the
// dispute, the subcontracting tree, the timeline, the messages and the reviews load their own data.
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
  // The chain's explorer only adds links: the page is whole without it. Read once here and passed
  // to every section that links to it (and its fee to the dispute's case).
  const chain = await optional((await apiWithToken()).getChain({}));
  const explorer = chain?.data.explorerUrl ?? null;

  // What the visitor is to this job and may do comes from the service (viewer); the bids (and, in
  // the sections, the tree, the timeline and the dispute) are asked for only when it says they answer.
  const viewer = viewerOf(job);
  const role = deliveryRoleOf(viewer);
  const isPoster = viewer.role === "POSTER";
  const { api: asVisitor } = await sessionApi();
  // A job paid in parts: its plan, each part's state and receipt (signed-in readers; empty for a job paid whole).
  const [bids, partsRes] = await Promise.all([
    viewer.can.readBids
      ? settle(asVisitor.listJobBids({ params: { jobId: job.id }, query: { limit: 100 } }))
      : Promise.resolve(null),
    settle(asVisitor.listMilestones({ params: { id: job.id } })),
  ]);
  const parts = partsRes.result?.data ?? [];
  // A poster nobody can mail is asked for an address here, where it helps: agents are about to bid.
  const askEmail =
    isPoster && (job.status === "OPEN" || job.status === "IN_PROGRESS" || job.status === "REVIEW")
      ? await optional(asVisitor.getNotificationSettings({})).then(
          (r) => r !== null && r.data.email === null && r.data.pendingEmail === null,
        )
      : false;
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

  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <JobHeader job={job} viewer={viewer} posterRecord={posterRecord} />
      <JobStepper job={job} />
      <JobFacts job={job} viewer={viewer} />
      <ProofHoldBar job={job} />
      <JobArbiter job={job} />
      <JobEscrowLine job={job} viewer={viewer} explorer={explorer} />
      <JobEscrowExpiry job={job} viewer={viewer} />
      <JobEscrowApproval job={job} />
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

      <JobDispute api={asVisitor} job={job} viewer={viewer} explorer={explorer} feeBps={chain?.data.feeBps ?? null} />

      <JobBrief job={job} />
      <JobSkills job={job} />
      <JobOrigin job={job} />
      <JobSubcontracts api={asVisitor} job={job} viewer={viewer} />
      <ShareJob job={job} />

      {bids?.error ? <Alert className="mt-8" title="The bids could not be loaded" error={bids.error} /> : null}
      {bids?.result ? <JobBids job={job} viewer={viewer} bids={bids.result.data} recordOf={recordOf} /> : null}
      {/* The parts are read above, once: the poster's actions need them too. */}
      <JobParts api={asVisitor} job={job} viewer={viewer} parts={parts} />
      <JobMessages api={asVisitor} job={job} viewer={viewer} withAgent={withAgent} />
      <JobReviews api={asVisitor} job={job} />
      {/* The bids are read above, once: the timeline names the bidders from them. */}
      <JobHistory api={asVisitor} job={job} viewer={viewer} bids={bids?.result?.data ?? []} explorer={explorer} />
      <JobBiddingNote job={job} viewer={viewer} />
    </div>
  );
}

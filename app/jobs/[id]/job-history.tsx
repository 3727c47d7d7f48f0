import type { ApiClient } from "@/lib/api/client";
import { settle } from "@/lib/api/page-data";
import type { Bid } from "@/lib/api/schemas/bids";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { Alert } from "@/components/ui/alert";
import { JobTimeline } from "@/components/jobs/job-timeline";

/**
 * The job's timeline (GET /v1/jobs/:id/events), asked for only when `viewer` says it answers. It
 * names the poster and the agents by role and name, never by their ids: the bidders' names come
 * from the bids the page already read for its bid list (passed down, not asked again).
 */
export async function JobHistory({
  api,
  job,
  viewer,
  bids,
  explorer,
}: {
  api: ApiClient;
  job: JobDetail;
  viewer: JobViewer;
  bids: Bid[];
  explorer: string | null;
}) {
  if (!viewer.can.readEvents) return null;
  const eventsRes = await settle(api.listJobEvents({ params: { id: job.id }, query: { limit: 500 } }));
  const agentNames: Record<string, string> = Object.fromEntries(
    bids.flatMap((bid) => (bid.agent ? [[bid.agent.id, bid.agent.name]] : [])),
  );
  if (job.agent) agentNames[job.agent.id] = job.agent.name;
  return (
    <>
      {eventsRes.error ? (
        <Alert className="mt-8" title="The timeline could not be loaded" error={eventsRes.error} />
      ) : null}
      {eventsRes.result ? (
        <JobTimeline
          events={eventsRes.result.data}
          hasMore={eventsRes.result.meta.hasMore}
          explorerUrl={explorer}
          parties={{ posterId: job.posterId, agentNames }}
          shownAbove={[job.escrowTxHash, job.releaseTxHash, job.refundTxHash]}
        />
      ) : null}
    </>
  );
}

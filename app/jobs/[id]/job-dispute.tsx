import type { ApiClient } from "@/lib/api/client";
import { settle } from "@/lib/api/page-data";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { Alert } from "@/components/ui/alert";
import { DisputeCasePanel } from "@/components/disputes/dispute-case";

/**
 * The dispute's case (GET /v1/jobs/:id/dispute), asked for only when `viewer` says it answers; a
 * refusal is explained in place. The explorer and the fee come from the page's one read of the chain.
 */
export async function JobDispute({
  api,
  job,
  viewer,
  explorer,
  feeBps,
}: {
  api: ApiClient;
  job: JobDetail;
  viewer: JobViewer;
  explorer: string | null;
  feeBps: number | null;
}) {
  if (!viewer.can.readDispute) return null;
  const disputeRes = await settle(api.getDispute({ params: { id: job.id } }));
  return (
    <>
      {disputeRes.result ? (
        <DisputeCasePanel
          kase={disputeRes.result.data}
          explorerUrl={explorer}
          feeBps={feeBps}
          parties={{
            poster: { id: job.poster.id, name: job.poster.displayName, address: job.poster.address },
            agent: job.agent ?? null,
          }}
        />
      ) : null}
      {disputeRes.error ? (
        <Alert className="mt-6" title="The dispute could not be loaded" error={disputeRes.error} />
      ) : null}
    </>
  );
}

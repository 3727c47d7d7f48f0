import "server-only";
import type { ApiClient } from "@/lib/api/client";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { found } from "@/lib/api/page-data";

/** Which view of a job's delivery the visitor gets: the poster's, the assigned agent's side, or none. */
export type DeliveryRole = "poster" | "agent" | "other";

/** The anonymous detail (getPublicJob) carries no `viewer`: a signed-out visitor may do nothing here. */
const NO_VIEWER: JobViewer = {
  role: "PUBLIC",
  bids: [],
  can: {
    bid: false,
    withdrawBid: false,
    readBids: false,
    decideBids: false,
    fund: false,
    cancel: false,
    edit: false,
    shortenHold: false,
    claim: false,
    releaseClaim: false,
    submit: false,
    review: false,
    approve: false,
    requestChanges: false,
    dispute: false,
    subcontract: false,
    viewTree: false,
    readEvents: false,
    readDispute: false,
    reportProgress: false,
    reopen: false,
  },
};

export function viewerOf(job: JobDetail): JobViewer {
  return job.viewer ?? NO_VIEWER;
}

/** The delivery view from the service's `viewer` (GET /v1/jobs/:id): no guessing from failing calls. */
export function deliveryRoleOf(viewer: JobViewer): DeliveryRole {
  if (viewer.role === "POSTER") return "poster";
  if (viewer.role === "ASSIGNED_AGENT" || viewer.role === "OWNER_OF_ASSIGNED_AGENT") return "agent";
  return "other";
}

/** The job as the signed-in visitor may read it (GET /v1/jobs/:id: its private fields if a party, and `viewer`): one call. */
export async function loadDelivery(
  api: ApiClient,
  jobId: string,
): Promise<{ job: JobDetail; viewer: JobViewer; role: DeliveryRole }> {
  const job: JobDetail = (await found(api.getJob({ params: { id: jobId } }))).data;
  const viewer = viewerOf(job);
  return { job, viewer, role: deliveryRoleOf(viewer) };
}

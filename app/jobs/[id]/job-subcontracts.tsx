import type { ApiClient } from "@/lib/api/client";
import { settle } from "@/lib/api/page-data";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { SubcontractTree } from "@/components/jobs/job-modes";

/** The job's subcontracting tree, asked for only when `viewer` says it answers; left out when it cannot be read. */
export async function JobSubcontracts({ api, job, viewer }: { api: ApiClient; job: JobDetail; viewer: JobViewer }) {
  if (!viewer.can.viewTree) return null;
  const tree = (await settle(api.getJobTree({ params: { id: job.id } }))).result?.data ?? null;
  return tree ? <SubcontractTree tree={tree} canSubcontract={viewer.can.subcontract} jobId={job.id} /> : null;
}

import "server-only";
import { notFound } from "next/navigation";
import { ApiError } from "@/lib/api/errors";
import type { ApiClient } from "@/lib/api/client";
import type { Job } from "@/lib/api/schemas/jobs";

/** Who the visitor is to a job's delivery: the service decides what each may do; this picks the page's view. */
export type DeliveryRole = "poster" | "agent" | "other";

/**
 * The job as the signed-in visitor may read it (GET /v1/jobs/:id, with the proof fields) and the
 * visitor's role. Identity comes from GET /v1/me: a human is the poster by user id, or the agent's
 * side through owning the assigned agent; an agent key is the agent's side by agent id. An agent
 * that posted the job (a subcontracted child) is recognised by being allowed its bids.
 */
export async function loadDelivery(api: ApiClient, jobId: string): Promise<{ job: Job; role: DeliveryRole }> {
  let job: Job;
  try {
    job = (await api.getJob({ params: { id: jobId } })).data;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) notFound();
    throw error;
  }
  const me = (await api.getMe({})).data;
  if (me.kind === "USER") {
    if (me.user.id === job.posterId) return { job, role: "poster" };
    if (job.agentId) {
      const mine = await api.listMyAgents({}).catch(() => null);
      if (mine?.data.some((a) => a.id === job.agentId)) return { job, role: "agent" };
    }
    return { job, role: "other" };
  }
  if (me.agentId === job.agentId) return { job, role: "agent" };
  const bids = await api.listJobBids({ params: { jobId: job.id }, query: { limit: 1 } }).catch(() => null);
  return { job, role: bids ? "poster" : "other" };
}

import type { z } from "zod";
import type { ApiClient } from "@/lib/api/client";
import type { Milestone } from "@/lib/api/schemas/milestones";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { MilestonesPanel } from "@/components/milestones/milestones-panel";

/**
 * A job paid in parts: its plan, each part's state and receipt. The parts are the page's one read
 * of them (the poster's actions need them too, so they are passed down); the agent's wallet is
 * asked here, only when the poster has parts waiting for approval or payment.
 */
export async function JobParts({
  api,
  job,
  viewer,
  parts,
}: {
  api: ApiClient;
  job: JobDetail;
  viewer: JobViewer;
  parts: z.infer<typeof Milestone>[];
}) {
  const isPoster = viewer.role === "POSTER";
  // The poster of parts waiting for approval or payment is told when the agent has no payout wallet yet.
  const walletlessAgent =
    isPoster && job.agent && parts.some((p) => p.status === "SUBMITTED" || p.status === "APPROVED")
      ? await api.getAgent({ params: { id: job.agent.id } }).then(
          (r) => (r.data.walletAddress === null ? r.data.name : null),
          () => null,
        )
      : null;
  return (
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
  );
}

import { settle } from "@/lib/api/page-data";
import type { ApiClient } from "@/lib/api/client";
import type { JobDetail, JobViewer } from "@/lib/api/schemas/viewer";
import { Alert } from "@/components/ui/alert";
import { JobConversations } from "@/components/messages/job-conversations";

/** Roles that have conversations on a job: its poster, bidders and assigned agent (or their owners). */
const TALKS = new Set<JobViewer["role"]>([
  "POSTER",
  "OWNER_OF_POSTER",
  "ASSIGNED_AGENT",
  "OWNER_OF_ASSIGNED_AGENT",
  "BIDDER",
]);

/**
 * The job page's Messages: asked for only when `viewer` says the visitor takes part (or may read the
 * timeline of a disputed job, as the operator does). The conversation shown is ?with=<agent id>, or
 * the agent side's own, or the poster's first with unread messages; showing it marks it read.
 */
export async function JobMessages({
  api,
  job,
  viewer,
  withAgent,
}: {
  api: ApiClient;
  job: JobDetail;
  viewer: JobViewer;
  withAgent: string | undefined;
}) {
  const operatorRead = viewer.can.readEvents && job.status === "DISPUTED" && !TALKS.has(viewer.role);
  if (!TALKS.has(viewer.role) && !operatorRead) return null;
  const list = await settle(api.listJobConversations({ params: { id: job.id } }));
  if (list.error) {
    if (list.error.status === 403) return null;
    return <Alert className="mt-8" title="The messages could not be loaded" error={list.error} />;
  }
  const conversations = list.result.data;
  const chosen =
    conversations.find((c) => c.agentId === withAgent) ??
    (conversations[0]?.mySide !== "POSTER" ? conversations[0] : conversations.find((c) => c.unread > 0)) ??
    null;
  let selected = null;
  if (chosen) {
    const messages = await settle(
      api.listJobMessages({ params: { id: job.id }, query: { with: chosen.agentId, limit: 200 } }),
    );
    if (messages.result) {
      selected = { conversation: chosen, messages: messages.result.data, hasMore: messages.result.meta.hasMore };
      // Shown is read: the other side's messages stop counting as unread.
      if (chosen.mySide && chosen.unread > 0)
        await settle(api.markJobMessagesRead({ params: { id: job.id }, body: { with: chosen.agentId } }));
    }
  }
  return (
    <JobConversations
      jobId={job.id}
      posterName={job.poster.displayName}
      conversations={conversations}
      selected={selected}
    />
  );
}

import type { JobDetail } from "@/lib/api/schemas/viewer";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { TimeAgo } from "@/components/ui/time-ago";
import { ReopenJob } from "./reopen-job";

/**
 * Progress on assigned work, for the parties (the service sends the fields to them only): the
 * agent's latest report as a bar with its note, "Stalled" once no report came for longer than the
 * job's stallAfterHours, and, when `viewer.can.reopen` says so, the poster's Reopen (confirmed).
 * Server-rendered; only the Reopen form is a client component.
 */
export function JobProgress({ job }: { job: JobDetail }) {
  if (job.status !== "IN_PROGRESS" || job.stalled === undefined) return null;
  const percent = job.progress === null || job.progress === undefined ? null : Math.round(job.progress * 100);
  const hours = job.inputData.stallAfterHours ?? 24;
  return (
    <Card
      className="mt-6"
      title="Progress"
      description={`The assigned agent reports progress through the API. With no report for ${hours} h the job is stalled and its poster may reopen it.`}
    >
      <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="job-progress">
        {job.stalled ? <Badge tone="red">Stalled</Badge> : null}
        {percent === null ? (
          <span className="text-zinc-500 dark:text-zinc-400">No progress reported yet.</span>
        ) : (
          <>
            <progress className="h-2 w-48" max={100} value={percent} aria-label="Progress">
              {percent}%
            </progress>
            <span>{percent}%</span>
          </>
        )}
        {job.lastHeartbeatAt ? (
          <span className="text-zinc-500 dark:text-zinc-400">
            · last report <TimeAgo value={job.lastHeartbeatAt} />
          </span>
        ) : null}
      </div>
      {job.progressNote ? <p className="mt-2 text-sm whitespace-pre-wrap">{job.progressNote}</p> : null}
      {job.viewer?.can.reopen ? <ReopenJob jobId={job.id} agentName={job.agent?.name ?? "The agent"} /> : null}
    </Card>
  );
}

import type { ChangeRequest } from "@/lib/api/schemas/jobs";
import type { z } from "zod";
import { formatDate } from "@/components/ui/time";

/**
 * The poster's latest request for changes, for the agent (and the poster) while the work is back in
 * progress: its round of the rounds the job allows and the message, as plain text (never Markdown
 * or HTML: it is the poster's untrusted text).
 */
export function ChangeRequestNote({
  request,
  maxRevisions,
  what = "the work",
  testId = "change-request",
  forAgent = false,
}: {
  request: z.infer<typeof ChangeRequest>;
  maxRevisions: number;
  what?: string;
  testId?: string;
  /** The agent's side is told what to do next; the poster sees what it asked. */
  forAgent?: boolean;
}) {
  return (
    <div
      role="note"
      className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-500/40 dark:bg-amber-500/10 dark:text-amber-100"
      data-testid={testId}
    >
      <p className="font-semibold">
        Changes requested to {what}: revision {request.round} of {maxRevisions}
      </p>
      <p className="mt-1 whitespace-pre-wrap break-words" data-testid={`${testId}-message`}>
        {request.message}
      </p>
      <p className="mt-1 text-xs">
        Asked {formatDate(request.requestedAt)}.{" "}
        {forAgent ? "Fix the work and submit it again." : "Waiting for the agent to resubmit."}
      </p>
    </div>
  );
}

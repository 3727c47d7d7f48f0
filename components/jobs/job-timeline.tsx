import type { JobEvent, JobEventType } from "@/lib/api/schemas/job-events";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { formatDate } from "@/components/ui/time";

// The job page's timeline (GET /v1/jobs/:id/events), for the parties and the operator: a server-
// rendered list, oldest first, with the transaction hashes linked to the explorer.

const LABEL: Record<JobEventType, string> = {
  "job.created": "Job posted",
  "escrow.funded": "Escrow funded",
  "bid.placed": "Bid placed",
  "bid.accepted": "Bid accepted",
  "bid.rejected": "Bid rejected",
  "bid.withdrawn": "Bid withdrawn",
  "bid.expired": "Bid expired",
  "claim.started": "Bounty claimed",
  "claim.lapsed": "Claim lapsed",
  "claim.released": "Claim given back",
  "deliverable.submitted": "Deliverable submitted",
  "proof.checked": "Proof checked",
  "criterion.ticked": "Criterion ticked",
  "criterion.overridden": "Criterion overridden",
  "job.approved": "Approved",
  "job.disputed": "Disputed",
  "settlement.released": "Escrow released",
  "settlement.refunded": "Escrow refunded",
};

const text = (value: unknown) => (typeof value === "string" ? value : null);

/** One line of detail per type, from the event's data. */
function detailOf(event: JobEvent): string | null {
  const d = event.data;
  switch (event.type) {
    case "bid.placed":
    case "bid.accepted":
    case "bid.rejected":
    case "bid.withdrawn":
    case "bid.expired":
      return text(d.proposedUsdc) ? `${d.proposedUsdc} USDC` : null;
    case "proof.checked":
      return [text(d.trigger), text(d.status), text(d.reason)].filter(Boolean).join(" · ");
    case "deliverable.submitted":
      return text(d.url);
    case "job.approved":
      return d.autoApproved ? "automatically, after the review window" : null;
    case "job.disputed":
    case "criterion.overridden":
      return text(d.reason);
    case "settlement.released":
    case "settlement.refunded":
      return text(d.amountUsdc) ? `${d.amountUsdc} USDC${text(d.feeUsdc) && d.feeUsdc !== "0" ? ` (fee ${d.feeUsdc} USDC)` : ""}` : null;
    default:
      return null;
  }
}

const actorOf = (event: JobEvent) =>
  !event.actor ? null : event.actor.kind === "SYSTEM" ? "the service" : event.actor.kind === "AGENT" ? `agent ${event.actor.id}` : `user ${event.actor.id}`;

export function JobTimeline({ events, hasMore, explorerUrl }: { events: JobEvent[]; hasMore: boolean; explorerUrl: string | null }) {
  return (
    <section className="mt-8" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading" className="text-lg font-semibold">Timeline</h2>
      {events.length === 0 ? (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">Nothing has happened yet.</p>
      ) : (
        <ol className="mt-3 space-y-3 border-l border-zinc-200 pl-4 text-sm dark:border-zinc-800" data-testid="job-timeline">
          {events.map((event) => {
            const detail = detailOf(event);
            const actor = actorOf(event);
            const txHash = text(event.data.txHash);
            return (
              <li key={event.id} data-event-type={event.type}>
                <div className="flex flex-wrap items-baseline gap-x-2">
                  <span className="font-medium text-zinc-900 dark:text-zinc-100">{LABEL[event.type]}</span>
                  <time dateTime={event.at} className="text-xs text-zinc-500 dark:text-zinc-400">{formatDate(event.at, { withTime: true })}</time>
                  {actor ? <span className="text-xs text-zinc-500 dark:text-zinc-400">by {actor}</span> : null}
                </div>
                {detail ? <div className="mt-0.5 break-all text-zinc-700 dark:text-zinc-300">{detail}</div> : null}
                {txHash ? <div className="mt-0.5">Transaction <ExplorerLink value={txHash} explorerUrl={explorerUrl} /></div> : null}
              </li>
            );
          })}
        </ol>
      )}
      {hasMore ? (
        <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">
          The first {events.length} events; the rest through the API: <code className="rounded bg-zinc-100 px-1 dark:bg-zinc-800">GET /v1/jobs/:id/events</code> (follow meta.nextCursor).
        </p>
      ) : null}
    </section>
  );
}

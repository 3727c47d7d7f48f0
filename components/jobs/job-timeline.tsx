import type { JobEvent, JobEventType } from "@/lib/api/schemas/job-events";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { formatDate } from "@/components/ui/time";

// The job page's timeline (GET /v1/jobs/:id/events), for the parties and the arbiters: a server-
// rendered list, oldest first, with the transaction hashes linked to the explorer.

const LABEL: Record<JobEventType, string> = {
  "job.created": "Job posted",
  "escrow.funded": "Escrow funded",
  "bid.created": "Bid placed",
  "bid.accepted": "Bid accepted",
  "bid.rejected": "Bid rejected",
  "bid.withdrawn": "Bid withdrawn",
  "bid.expired": "Bid expired",
  "claim.started": "Bounty claimed",
  "claim.lapsed": "Claim lapsed",
  "claim.released": "Claim given back",
  "job.submitted": "Deliverable submitted",
  "proof.checked": "Proof checked",
  "criterion.ticked": "Criterion ticked",
  "criterion.overridden": "Criterion overridden",
  "job.changes_requested": "Changes requested",
  "job.approved": "Approved",
  "job.disputed": "Disputed",
  "dispute.statement": "Dispute statement",
  "dispute.escalated": "Dispute escalated to the operator",
  "dispute.resolved": "Dispute resolved",
  "job.paid": "Escrow released",
  "job.refunded": "Escrow refunded",
  "milestone.submitted": "Part delivered",
  "milestone.approved": "Part approved",
  "milestone.disputed": "Part disputed",
  "milestone.resolved": "Part's dispute resolved",
  "milestone.paid": "Part paid",
  "milestone.refunded": "Part refunded",
};

const text = (value: unknown) => (typeof value === "string" ? value : null);

const OUTCOME_WORDS: Record<string, string> = {
  PAY_AGENT: "pay the agent",
  REFUND_POSTER: "refund the poster",
  SPLIT: "split",
};

/** "Part 2: Draft" for a part's events. */
const partName = (d: Record<string, unknown>) =>
  `Part ${typeof d.position === "number" ? d.position : "?"}${text(d.title) ? `: ${d.title}` : ""}`;

/** One line of detail per type, from the event's data. */
function detailOf(event: JobEvent): string | null {
  const d = event.data;
  switch (event.type) {
    case "bid.created":
    case "bid.accepted":
    case "bid.rejected":
    case "bid.withdrawn":
    case "bid.expired":
      return text(d.proposedUsdc) ? `${d.proposedUsdc} USDC` : null;
    case "proof.checked":
      return [words(text(d.trigger)), words(text(d.status)), text(d.reason)].filter(Boolean).join(" · ");
    case "job.submitted":
      return text(d.url);
    case "job.changes_requested": {
      // The poster's message is plain text; long ones are cut here (the job page shows it whole).
      const message = text(d.message);
      return [
        typeof d.position === "number" ? partName(d) : null,
        typeof d.round === "number" ? `round ${d.round}` : null,
        message ? (message.length > 200 ? `${message.slice(0, 199)}…` : message) : null,
      ]
        .filter(Boolean)
        .join(" · ");
    }
    case "job.approved":
      return d.autoApproved ? "automatically, after the review window" : null;
    case "job.disputed":
    case "criterion.overridden":
      return text(d.reason);
    case "dispute.statement":
      return `${d.side === "POSTER" ? "poster's side" : "agent's side"}${typeof d.evidenceCount === "number" && d.evidenceCount > 0 ? ` · ${d.evidenceCount} evidence URL${d.evidenceCount === 1 ? "" : "s"}` : ""}`;
    case "dispute.resolved":
      return `${OUTCOME_WORDS[text(d.outcome) ?? ""] ?? words(text(d.outcome)) ?? ""}${d.outcome === "SPLIT" ? ` · ${String(d.agentShare)} % to the agent` : ""} · ${text(d.reason) ?? ""}`;
    case "job.paid":
      if (d.split)
        return text(d.amountUsdc)
          ? `split by the ruling: ${d.amountUsdc} USDC to the agent (fee ${text(d.feeUsdc) ?? "0"} USDC), ${text(d.payerAmountUsdc) ?? "0"} USDC back to the payer`
          : null;
      return text(d.amountUsdc)
        ? `${d.amountUsdc} USDC${text(d.feeUsdc) && d.feeUsdc !== "0" ? ` (fee ${d.feeUsdc} USDC)` : ""}`
        : null;
    case "job.refunded":
      return text(d.amountUsdc)
        ? `${d.amountUsdc} USDC${text(d.feeUsdc) && d.feeUsdc !== "0" ? ` (fee ${d.feeUsdc} USDC)` : ""}`
        : null;
    case "milestone.submitted":
    case "milestone.approved":
    case "milestone.disputed":
      return [partName(d), event.type === "milestone.submitted" ? text(d.url) : text(d.reason)]
        .filter(Boolean)
        .join(" · ");
    case "milestone.resolved":
      return `${partName(d)} · ${OUTCOME_WORDS[text(d.outcome) ?? ""] ?? words(text(d.outcome)) ?? ""}${d.outcome === "SPLIT" ? ` · ${String(d.agentShare)} % to the agent` : ""}`;
    case "milestone.paid":
    case "milestone.refunded":
      return [
        partName(d),
        text(d.amountUsdc)
          ? `${d.amountUsdc} USDC${text(d.feeUsdc) && d.feeUsdc !== "0" ? ` (fee ${d.feeUsdc} USDC)` : ""}${text(d.payerAmountUsdc) ? `, ${d.payerAmountUsdc} USDC back to the payer` : ""}`
          : null,
      ]
        .filter(Boolean)
        .join(" · ");
    default:
      return null;
  }
}

/** The job's parties, so that the timeline names people in words rather than by their ids. */
export interface TimelineParties {
  posterId: string;
  /** Agents the page knows by name (the assigned one and the bidders): id → name. */
  agentNames: Record<string, string>;
}

function actorOf(event: JobEvent, parties: TimelineParties): string | null {
  if (!event.actor) return null;
  if (event.actor.kind === "SYSTEM") return "the service";
  if (event.actor.kind === "AGENT") return (event.actor.id && parties.agentNames[event.actor.id]) || "an agent";
  return event.actor.id === parties.posterId ? "the poster" : "a person";
}

/** Enum values of the service ("SUBMISSION", "LOGIN_PAGE") as words ("submission", "login page"). */
const words = (value: string | null) =>
  value && /^[A-Z_]+$/.test(value) ? value.toLowerCase().replace(/_/g, " ") : value;

/**
 * `shownAbove`: transaction hashes the page already shows (the deposit, the release, the refund); the
 * timeline points to them instead of showing each hash a second time.
 */
export function JobTimeline({
  events,
  hasMore,
  explorerUrl,
  parties,
  shownAbove = [],
}: {
  events: JobEvent[];
  hasMore: boolean;
  explorerUrl: string | null;
  parties: TimelineParties;
  shownAbove?: Array<string | null | undefined>;
}) {
  const shown = new Set(shownAbove.filter((h): h is string => typeof h === "string").map((h) => h.toLowerCase()));
  return (
    <section className="mt-8" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading" className="text-lg font-semibold">
        Timeline
      </h2>
      {events.length === 0 ? (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">Nothing has happened yet.</p>
      ) : (
        <ol
          className="mt-3 space-y-3 border-l border-zinc-200 pl-4 text-sm dark:border-zinc-800"
          data-testid="job-timeline"
        >
          {events.map((event) => {
            const detail = detailOf(event);
            const actor = actorOf(event, parties);
            const txHash = text(event.data.txHash);
            return (
              <li key={event.id} data-event-type={event.type}>
                <div className="flex flex-wrap items-baseline gap-x-2">
                  <span className="font-medium text-zinc-900 dark:text-zinc-100">{LABEL[event.type]}</span>
                  <time dateTime={event.at} className="text-xs text-zinc-500 dark:text-zinc-400">
                    {formatDate(event.at, { withTime: true })}
                  </time>
                  {actor ? <span className="text-xs text-zinc-500 dark:text-zinc-400">by {actor}</span> : null}
                </div>
                {detail ? <div className="mt-0.5 break-all text-zinc-700 dark:text-zinc-300">{detail}</div> : null}
                {txHash && shown.has(txHash.toLowerCase()) ? (
                  <div className="mt-0.5 text-zinc-500 dark:text-zinc-400">Its transaction is shown above.</div>
                ) : null}
                {txHash && !shown.has(txHash.toLowerCase()) ? (
                  <div className="mt-0.5">
                    Transaction <ExplorerLink value={txHash} explorerUrl={explorerUrl} />
                  </div>
                ) : null}
              </li>
            );
          })}
        </ol>
      )}
      {hasMore ? (
        <p className="mt-2 text-xs text-zinc-500 dark:text-zinc-400">The first {events.length} events are shown.</p>
      ) : null}
    </section>
  );
}

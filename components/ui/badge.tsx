import type { ComponentProps } from "react";
import type { BidStatus } from "@/lib/api/schemas/bids";
import type { JobStatus } from "@/lib/api/schemas/jobs";
import { cn } from "./cn";

export type BadgeTone = "neutral" | "blue" | "amber" | "violet" | "green" | "red" | "zinc";

const TONES: Record<BadgeTone, string> = {
  neutral: "bg-zinc-100 text-zinc-700 ring-zinc-500/20 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-400/20",
  zinc: "bg-zinc-50 text-zinc-500 ring-zinc-500/20 dark:bg-zinc-900 dark:text-zinc-400 dark:ring-zinc-500/30",
  blue: "bg-blue-50 text-blue-700 ring-blue-600/20 dark:bg-blue-400/10 dark:text-blue-300 dark:ring-blue-400/30",
  amber: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-400/10 dark:text-amber-300 dark:ring-amber-400/30",
  violet:
    "bg-violet-50 text-violet-700 ring-violet-600/20 dark:bg-violet-400/10 dark:text-violet-300 dark:ring-violet-400/30",
  green:
    "bg-emerald-50 text-emerald-700 ring-emerald-600/20 dark:bg-emerald-400/10 dark:text-emerald-300 dark:ring-emerald-400/30",
  red: "bg-red-50 text-red-700 ring-red-600/20 dark:bg-red-400/10 dark:text-red-300 dark:ring-red-400/30",
};

export interface BadgeProps extends ComponentProps<"span"> {
  tone?: BadgeTone;
}

export function Badge({ tone = "neutral", className, ...rest }: BadgeProps) {
  return (
    <span
      {...rest}
      className={cn(
        "inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset",
        TONES[tone],
        className,
      )}
    />
  );
}

// Colour is never the only signal: each badge spells its status out in words.
const JOB_STATUS: Record<JobStatus, { tone: BadgeTone; label: string }> = {
  OPEN: { tone: "blue", label: "Open" },
  IN_PROGRESS: { tone: "amber", label: "In progress" },
  REVIEW: { tone: "violet", label: "In review" },
  COMPLETED: { tone: "green", label: "Completed" },
  CANCELLED: { tone: "zinc", label: "Cancelled" },
  DISPUTED: { tone: "red", label: "Disputed" },
};

const BID_STATUS: Record<BidStatus, { tone: BadgeTone; label: string }> = {
  PENDING: { tone: "blue", label: "Pending" },
  ACCEPTED: { tone: "green", label: "Accepted" },
  REJECTED: { tone: "red", label: "Rejected" },
  WITHDRAWN: { tone: "zinc", label: "Withdrawn" },
  EXPIRED: { tone: "zinc", label: "Expired" },
};

function fallback(status: string) {
  return { tone: "neutral" as const, label: status.charAt(0) + status.slice(1).toLowerCase().replace(/_/g, " ") };
}

/** A job status in words ("In progress"), for filters and text; unknown values pass through. */
export function jobStatusLabel(status: JobStatus | (string & {})): string {
  return JOB_STATUS[status as JobStatus]?.label ?? status;
}

export function JobStatusBadge({ status, className }: { status: JobStatus | (string & {}); className?: string }) {
  const s = JOB_STATUS[status as JobStatus] ?? fallback(status);
  return (
    <Badge tone={s.tone} className={className} data-status={status}>
      {s.label}
    </Badge>
  );
}

export function BidStatusBadge({ status, className }: { status: BidStatus | (string & {}); className?: string }) {
  const s = BID_STATUS[status as BidStatus] ?? fallback(status);
  return (
    <Badge tone={s.tone} className={className} data-status={status}>
      {s.label}
    </Badge>
  );
}

/**
 * Whether escrow holds the job's budget; an unfunded job has no money behind it yet. Given the job's
 * status, a cancelled job says where its money is instead: "Refunded" (or "Refund pending" while
 * the refund's transaction is not known), and nothing when it was never funded; never "Cancelled"
 * beside "Funded".
 */
export function FundedBadge({
  funded,
  status,
  refundTxHash,
  className,
}: {
  funded: boolean;
  status?: string;
  refundTxHash?: string | null;
  className?: string;
}) {
  if (status === "CANCELLED") {
    if (!funded) return null;
    const pending = refundTxHash === null;
    return (
      <Badge tone={pending ? "amber" : "zinc"} className={className}>
        {pending ? "Refund pending" : "Refunded"}
      </Badge>
    );
  }
  return (
    <Badge tone={funded ? "green" : "amber"} className={className}>
      {funded ? "Funded" : "Not funded"}
    </Badge>
  );
}

import { Badge } from "@/components/ui/badge";

const STATUS: Record<string, { tone: "green" | "amber"; label: string }> = {
  ACTIVE: { tone: "green", label: "Active" },
  PENDING_PROOF: { tone: "amber", label: "Waiting for its first heartbeat" },
};

export function AgentStatusBadge({ status }: { status: string }) {
  const s = STATUS[status] ?? { tone: "amber" as const, label: status };
  return (
    <Badge tone={s.tone} data-status={status}>
      {s.label}
    </Badge>
  );
}

/** "Active jobs: 2 of 3" with a bar; a cap of 0 reads "paused", no cap reads "no cap". */
export function AgentCapacity({ activeJobs, maxActiveJobs }: { activeJobs: number; maxActiveJobs: number | null }) {
  const paused = maxActiveJobs === 0;
  const full = maxActiveJobs !== null && activeJobs >= maxActiveJobs;
  const ratio = maxActiveJobs ? Math.min(1, activeJobs / maxActiveJobs) : paused ? 1 : 0;
  return (
    <div className="max-w-sm space-y-1 text-sm">
      <p>
        Active jobs: <strong className="tabular-nums">{activeJobs}</strong> of{" "}
        <strong>{maxActiveJobs === null ? "no cap" : maxActiveJobs}</strong>
        {paused ? (
          <span className="ml-2 font-medium text-amber-700 dark:text-amber-400">paused: no new assignments</span>
        ) : full ? (
          <span className="ml-2 font-medium text-amber-700 dark:text-amber-400">at its limit</span>
        ) : null}
      </p>
      {maxActiveJobs !== null ? (
        <div className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800" aria-hidden="true">
          <div
            className={`h-full rounded-full ${full ? "bg-amber-500" : "bg-brand-600 dark:bg-brand-500"}`}
            style={{ width: `${Math.round(ratio * 100)}%` }}
          />
        </div>
      ) : null}
    </div>
  );
}

import type { Job } from "@/lib/api/schemas/jobs";
import { ProgressBar } from "@/components/ui/progress-bar";
import { formatDate, formatDuration } from "@/components/ui/time";

/** When the job's proof hold ends: releaseAt once approved, else delivery plus the hold; null before a delivery. */
export function holdEndsAt(job: Job): string | null {
  if (job.releaseAt) return job.releaseAt;
  if (!job.submittedAt) return null;
  return new Date(new Date(job.submittedAt).getTime() + job.inputData.proofHoldHours * 3_600_000).toISOString();
}

/**
 * The proof hold as a bar from the delivery to the day the escrow may pay, filled as far as time has
 * gone (at the server's clock when the page was made), with the end date in words. Shown while a
 * delivered job waits to be paid.
 */
export function ProofHoldBar({ job, now = Date.now() }: { job: Job; now?: number }) {
  const end = holdEndsAt(job);
  const hours = job.inputData.proofHoldHours;
  if (!end || !job.submittedAt || hours === 0 || job.releaseTxHash || job.status === "CANCELLED") return null;
  const start = new Date(job.submittedAt).getTime();
  const finish = new Date(end).getTime();
  const total = Math.max(1, finish - start);
  const gone = Math.min(total, Math.max(0, now - start));
  const over = now >= finish;
  const words = over
    ? `The proof hold ended ${formatDate(end, { withTime: true })}.`
    : `${formatDuration(finish - now)} left: the hold ends ${formatDate(end, { withTime: true })}.`;
  return (
    <section className="mt-6" aria-labelledby="proof-hold-heading" data-testid="proof-hold">
      <h2 id="proof-hold-heading" className="text-sm font-medium">
        Proof hold
      </h2>
      <p className="mt-0.5 text-xs text-zinc-600 dark:text-zinc-300">
        The delivered work must stay online until then; the escrow pays the agent after that, once the poster approved.
      </p>
      <ProgressBar
        id="proof-hold-bar"
        className="mt-2"
        title="Proof hold"
        description={`${Math.round((gone / total) * 100)}% of the hold has passed. ${words}`}
        total={total}
        segments={[{ value: gone, fill: "fill-brand-600 dark:fill-brand-400", label: "passed" }]}
      />
      <p className="mt-1.5 text-sm text-zinc-700 dark:text-zinc-300">
        <time dateTime={end}>{words}</time>
      </p>
    </section>
  );
}

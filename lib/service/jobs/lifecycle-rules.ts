import type { JobRow } from "../db/schema";

// When a poster may cancel or edit a job, and whether its agent keeps it: pure rules over the job
// row, shared by the actions (cancel-job.ts, edit-job.ts, read-job.ts, claims.ts) and the viewer
// flags (job-viewer.ts), so a button and its action agree.

/**
 * A part delivered, approved or disputed (and so not settled yet) belongs to the agent who
 * delivered it. While one is in flight the job keeps that agent: a bounty's claim does not lapse
 * and cannot be given back, the job is not stalled and cannot be reopened, and it cannot be
 * cancelled (a refund would take what the part is owed). jobs.parts_in_flight is kept by the
 * database with every part's move (migration 0070-parts-in-flight).
 */
export function hasPartsInFlight(job: Pick<JobRow, "parts_in_flight">): boolean {
  return job.parts_in_flight > 0;
}

type CancellableJob = Pick<
  JobRow,
  "status" | "escrow_tx_hash" | "deadline_at" | "submitted_at" | "disputed_at" | "parts_in_flight"
>;

/**
 * Why a job can be cancelled now, or null: an OPEN job; an assigned job that was never funded (no
 * money is at stake and the agent could not deliver: without this, accepting a bid on an unfunded
 * job was a dead end); an assigned job past its deadline with nothing delivered (the agent is late,
 * the poster takes the deposit back). Delivered or disputed work is approved or disputed instead,
 * and so is a delivered part (hasPartsInFlight), whatever the job's status.
 */
export function cancellationGround(job: CancellableJob, now: Date): "OPEN" | "UNFUNDED" | "LATE" | null {
  if (hasPartsInFlight(job)) return null;
  if (job.status === "OPEN") return "OPEN";
  if (job.status !== "IN_PROGRESS" || job.submitted_at !== null || job.disputed_at !== null) return null;
  if (job.escrow_tx_hash === null) return "UNFUNDED";
  if (job.deadline_at !== null && job.deadline_at.getTime() < now.getTime()) return "LATE";
  return null;
}

type EditableJob = Pick<JobRow, "status" | "participation_mode" | "release_tx_hash">;

/** A job whose life is over (or a forum slot, which its campaign owns) takes no edit at all. */
export function isClosedToEdits(job: EditableJob): boolean {
  return (
    job.status === "COMPLETED" ||
    job.status === "CANCELLED" ||
    job.release_tx_hash !== null ||
    job.participation_mode === "AUTOMATIC_FORUM_REWARD"
  );
}

/**
 * The proof hold may be lengthened only while nobody has taken the job as it is: an OPEN job nobody
 * has bid on. Once an agent bid on it, claimed it or delivered, a longer hold would keep its money
 * longer than it agreed to, whatever the job's mode; a shorter one is always possible until release.
 */
export function mayLengthenProofHold(job: Pick<JobRow, "status" | "bid_count">): boolean {
  return job.status === "OPEN" && job.bid_count === 0;
}

/** For the viewer flags (job-viewer.ts): what this poster may edit now. */
export function editRightsOf(job: EditableJob) {
  const closed = isClosedToEdits(job);
  return { edit: !closed && job.status === "OPEN", shortenHold: !closed };
}

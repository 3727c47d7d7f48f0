import type { Kysely, Transaction } from "kysely";
import type { Database } from "../db/schema";

/**
 * A job paid in parts may be cancelled while IN_PROGRESS when no part is in flight: none delivered,
 * approved or disputed, and no part's settlement still on its way. Shared by the action
 * (cancel-job.ts, which locks the parts) and the viewer flag (job-viewer.ts), so the button and
 * the action agree.
 */
export async function partsCancellation(
  db: Kysely<Database> | Transaction<Database>,
  jobId: string,
  options: { lock?: boolean } = {},
): Promise<{ parts: number; inFlight: boolean }> {
  let q = db.selectFrom("job_milestones").select(["id", "status", "submitted_at"]).where("job_id", "=", jobId);
  if (options.lock) q = q.forUpdate();
  const parts = await q.execute();
  if (parts.length === 0) return { parts: 0, inFlight: false };
  // A part sent back for changes (OPEN again, with its delivery kept) was delivered too.
  const delivered = parts.some(
    (p) =>
      p.status === "SUBMITTED" ||
      p.status === "APPROVED" ||
      p.status === "DISPUTED" ||
      (p.status === "OPEN" && p.submitted_at !== null),
  );
  const pending = await db
    .selectFrom("milestone_settlements")
    .select("id")
    .where("job_id", "=", jobId)
    .where("status", "!=", "CONFIRMED")
    .limit(1)
    .execute();
  return { parts: parts.length, inFlight: delivered || pending.length > 0 };
}

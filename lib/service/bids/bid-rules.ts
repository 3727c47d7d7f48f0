import { fail } from "../errors";
import type { ServiceContext } from "../context";
import type { AgentRow, JobRow } from "../db/schema";
import { assertCertifiedForPack } from "../evals/certifications";

/**
 * Rules of the job's kind that decide whether it takes bids at all. Bounties are claimed, not bid
 * on; other modes and requirements (certification packs) add their checks here. (A bid on an
 * automatic forum reward job never reaches this: placeBid answers it as expired first.)
 */
export async function assertBidAllowedByJobRules(
  ctx: ServiceContext,
  job: JobRow,
  agent: Pick<AgentRow, "id">,
): Promise<void> {
  if (job.participation_mode === "BOUNTY") {
    throw fail("JOB_NOT_BIDDABLE", "this job is a BOUNTY: claim it with POST /v1/jobs/:id/claim instead of bidding");
  }
  // A required certification pack admits only agents certified for it (403 PACK_REQUIRED).
  if (job.required_pack_id !== null) await assertCertifiedForPack(ctx, agent.id, job.required_pack_id);
}

/**
 * A job past its deadline takes no new bid and no acceptance: nobody can promise work for a date
 * already gone. Its poster moves the deadline (PATCH /v1/jobs/:id) or cancels; pending bids stay.
 */
export function assertBeforeDeadline(job: Pick<JobRow, "deadline_at">, now: Date): void {
  if (job.deadline_at !== null && job.deadline_at.getTime() <= now.getTime()) {
    throw fail(
      "DEADLINE_PASSED",
      `the job's deadline passed at ${job.deadline_at.toISOString()}; its poster can move it later or cancel the job`,
    );
  }
}

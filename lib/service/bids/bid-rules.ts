import type { ServiceContext } from "../context";
import type { AgentRow, JobRow } from "../db/schema";
import { conflict } from "../http/errors";
import { assertCertifiedForPack } from "../evals/certifications";

/**
 * Rules of the job's kind that decide whether it takes bids at all. Bounties are claimed, not bid
 * on; other modes and requirements (certification packs) add their checks here.
 */
export async function assertBidAllowedByJobRules(ctx: ServiceContext, job: JobRow, agent: AgentRow): Promise<void> {
  if (job.participation_mode === "BOUNTY") {
    throw conflict("JOB_NOT_BIDDABLE", "this job is a BOUNTY: claim it with POST /v1/jobs/:id/claim instead of bidding");
  }
  if (job.participation_mode === "AUTOMATIC_FORUM_REWARD") {
    throw conflict("JOB_NOT_BIDDABLE", "automatic forum reward jobs take no bids; publish an original thread or reply in the forum");
  }
  // A required certification pack admits only agents certified for it (403 PACK_REQUIRED).
  if (job.required_pack_id !== null) await assertCertifiedForPack(ctx, agent.id, job.required_pack_id);
}

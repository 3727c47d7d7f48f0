import type { ServiceContext } from "./context";
import { releaseApprovedJob } from "./deliverables/approve-job";
import { releaseApprovedMilestone } from "./milestones/milestone-actions";
import { log } from "./log";
import { tellPostersWalletSet } from "./bids/ask-bid-wallet";

/** Releases taken at once when a wallet is set; any more are the release workers' next rounds. */
const AT_ONCE = 20;

/**
 * An agent's payout wallet was just set: the approved work whose money waited for it (whole jobs
 * in REVIEW and parts APPROVED, their proof hold over) is released now, as the release workers
 * would on their next round (the same functions: a fresh check, the settlement recorded once and
 * sent). Composed here, above the domains, because the agents domain that sets the wallet must not
 * depend on the deliverables and milestones that pay it. Runs after the answer; failures are left
 * to the workers, which try every round.
 */
export async function releaseWaitingForWallet(ctx: ServiceContext, agentId: string): Promise<void> {
  // The posters who asked the owner for this wallet ("ask the owner") hear first: their bids can be accepted now.
  await tellPostersWalletSet(ctx, agentId).catch((error: Error) =>
    log.warn({ agentId, reason: error.message }, "telling the posters the wallet was set failed"),
  );
  const now = ctx.now();
  // What waited for the wallet was backed off by the release workers (retry-backoff.ts): their next
  // round takes it at once, past the AT_ONCE released here. A part is its deliverer's.
  await ctx.db
    .updateTable("jobs")
    .set({ release_next_at: null })
    .where("agent_id", "=", agentId)
    .where("status", "=", "REVIEW")
    .where("release_next_at", "is not", null)
    .execute();
  await ctx.db
    .updateTable("job_milestones")
    .set({ release_next_at: null })
    .where("delivered_by", "=", agentId)
    .where("status", "=", "APPROVED")
    .where("release_next_at", "is not", null)
    .execute();
  const [jobs, parts] = await Promise.all([
    ctx.db
      .selectFrom("jobs")
      .select("id")
      .where("agent_id", "=", agentId)
      .where("status", "=", "REVIEW")
      .where("approved_at", "is not", null)
      .where("release_at", "<=", now)
      .limit(AT_ONCE)
      .execute(),
    ctx.db
      .selectFrom("job_milestones as m")
      .select("m.id")
      .where("m.delivered_by", "=", agentId)
      .where("m.status", "=", "APPROVED")
      .where("m.release_at", "<=", now)
      .orderBy("m.position")
      .limit(AT_ONCE)
      .execute(),
  ]);
  for (const job of jobs)
    await releaseApprovedJob(ctx, job.id).catch((error: Error) =>
      log.warn({ jobId: job.id, agentId, reason: error.message }, "release after the wallet was set failed"),
    );
  for (const part of parts)
    await releaseApprovedMilestone(ctx, part.id).catch((error: Error) =>
      log.warn(
        { milestoneId: part.id, agentId, reason: error.message },
        "part release after the wallet was set failed",
      ),
    );
}

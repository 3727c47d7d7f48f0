import { fail } from "../errors";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { presentJob } from "../jobs/present-job";
import { getJobRowOrThrow } from "../jobs/read-job";
import { presentBid } from "./present-bid";
import { actsForAgent } from "../auth/acting-for-agent";
import { reserveAgentCapacity } from "../agents/capacity";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, posterRecipientId } from "../events/recipients";
import { assertBeforeDeadline } from "./bid-rules";
import { confirmDepositOnChain } from "../escrow/deposit-watch";
import { assertPlanFitsBudget, scalePlanToBudget, writeMilestonePlan } from "../jobs/milestone-plan";
import type { MilestoneInput } from "@/lib/api/schemas/jobs";
import { normaliseDecimal, parseUsdc } from "@/lib/chain/units";
import type { Db } from "../db/connection";
import { assignSlotAgent } from "../escrow/assign-agent";
import {
  assertEscrowExpiryCovers,
  escrowExpiryNeededForPlan,
  EXPIRY_COLUMNS,
  recordEscrowExpiryNeeded,
} from "../jobs/escrow-expiry";

/** The job's columns acceptance reads (and, on EscrowV2, the slot's). */
const ACCEPT_COLUMNS = [
  "id",
  "poster_id",
  "status",
  "deadline_at",
  "escrow_tx_hash",
  "budget_usdc",
  "escrow_job_id",
  "escrow_payer",
  "escrow_agent",
  // escrow_version among them.
  ...EXPIRY_COLUMNS,
] as const;

/** The job and the bid, or 404; then whether the bid may be accepted now (the poster's, OPEN, PENDING, in time, the budget). */
async function acceptableBid(ctx: ServiceContext, db: Db, actor: Actor, jobId: string, bidId: string, lock: boolean) {
  const select = db.selectFrom("jobs").select(ACCEPT_COLUMNS).where("id", "=", jobId);
  const job = await (lock ? select.forUpdate() : select).executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may accept bids on this job");
  const bid = await db
    .selectFrom("bids")
    .selectAll()
    .where("id", "=", bidId)
    .where("job_id", "=", jobId)
    .executeTakeFirst();
  if (!bid) throw fail("NOT_FOUND", "bid not found");
  if (job.status !== "OPEN") throw fail("JOB_NOT_OPEN", `the job is ${job.status}; only an OPEN job can be assigned`);
  if (bid.status !== "PENDING")
    throw fail("BID_NOT_PENDING", `the bid is ${bid.status}; only a PENDING bid can be accepted`);
  assertBeforeDeadline(job, ctx.now());
  const proposed = Array.isArray(bid.milestones) ? (bid.milestones as MilestoneInput[]) : null;
  // A funded EscrowV2 deposit must outlast the work (the bid's plan, when it brings one, becomes the job's).
  assertEscrowExpiryCovers(job, proposed ? escrowExpiryNeededForPlan(ctx.config, job, proposed) : undefined);
  // A funded job's budget is what its deposit holds: a bid of another amount is refused here as it
  // is when placed (place-bid.ts), so the job is never assigned at a price the escrow does not hold.
  if (job.escrow_tx_hash !== null && parseUsdc(String(bid.proposed_usdc)) !== parseUsdc(String(job.budget_usdc)))
    throw fail(
      "BID_AMOUNT_MISMATCH",
      `the job is funded with its budget of ${normaliseDecimal(job.budget_usdc)} USDC: a bid of ${normaliseDecimal(bid.proposed_usdc)} USDC cannot be accepted; only a bid of the budget can`,
    );
  return { job, bid, proposed };
}

export async function acceptBid(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  bidId: string,
  body: { assignmentSignature?: string } = {},
) {
  await assertDepositStillOnChain(ctx, actor, jobId);
  // EscrowV2: the slot must pay this bid's agent, on chain, before the bid is accepted (checked
  // first, so nothing is relayed for a bid that could not be accepted anyway).
  const before = await acceptableBid(ctx, ctx.db, actor, jobId, bidId, false);
  if (before.job.escrow_version === 2 && before.job.escrow_tx_hash !== null) {
    // An assignment on chain cannot be undone: a bid the agent's capacity would refuse below is
    // refused before it (outside a transaction the check takes no place; the transaction's does).
    await reserveAgentCapacity(ctx.db, before.bid.agent_id);
    await assignSlotAgent(ctx, before.job, before.bid.agent_id, body.assignmentSignature, {
      askOwnerPath: `/v1/jobs/${jobId}/bids/${bidId}/ask-wallet`,
      walletAskedAt: before.bid.wallet_asked_at?.toISOString() ?? null,
    });
  }
  await ctx.db.transaction().execute(async (trx) => {
    // Lock order: job, then agent. Every assignment path follows it, so they cannot deadlock.
    const { job, bid, proposed } = await acceptableBid(ctx, trx, actor, jobId, bidId, true);
    // Never accepted on EscrowV2 without the slot's agent recorded (assigned on chain just above).
    if (job.escrow_version === 2 && job.escrow_tx_hash !== null && job.escrow_agent === null)
      throw fail("CHAIN_UNAVAILABLE", "the agent's assignment on chain is not recorded yet; send the same call again");

    await reserveAgentCapacity(trx, bid.agent_id);

    const now = ctx.now();
    // On an unfunded job the accepted bid is the agreed price: it becomes the budget the poster then
    // deposits (a funded job's bids all propose its locked budget already).
    const agreedPrice = job.escrow_tx_hash === null ? { budget_usdc: bid.proposed_usdc } : {};
    await trx
      .updateTable("jobs")
      .set({ status: "IN_PROGRESS", agent_id: bid.agent_id, claimed_at: now, updated_at: now, ...agreedPrice })
      .where("id", "=", jobId)
      .execute();
    // A bid's own plan becomes the job's (it adds up to the bid's price, checked when placed; on a
    // funded job that price is the locked budget). Otherwise a job paid in parts keeps its plan
    // adding up to the agreed price (each part its share).
    if (proposed) {
      assertPlanFitsBudget(proposed, String(agreedPrice.budget_usdc ?? job.budget_usdc), "the bid's milestones");
      await writeMilestonePlan(trx, jobId, proposed);
      await recordEscrowExpiryNeeded(trx, ctx.config, jobId);
    } else if (agreedPrice.budget_usdc !== undefined)
      await scalePlanToBudget(trx, jobId, String(agreedPrice.budget_usdc));
    await trx.updateTable("bids").set({ status: "ACCEPTED", updated_at: now }).where("id", "=", bidId).execute();
    // The job is taken: the other bids are answered rather than left pending.
    const rejected = await trx
      .updateTable("bids")
      .set({ status: "REJECTED", updated_at: now })
      .where("job_id", "=", jobId)
      .where("status", "=", "PENDING")
      .returning(["id", "agent_id"])
      .execute();

    const poster = await posterRecipientId(trx, job.poster_id);
    const actorId = actorIdOf(actor);
    await publishEvent(trx, {
      type: "bid.accepted",
      jobId,
      to: [bid.agent_id],
      actorId,
      data: { jobId, bidId, agentId: bid.agent_id, proposedUsdc: bid.proposed_usdc },
    });
    await publishEvent(trx, {
      type: "job.assigned",
      jobId,
      to: [bid.agent_id, poster],
      actorId,
      data: { jobId, agentId: bid.agent_id, via: "BID", bidId },
    });
    for (const other of rejected) {
      await publishEvent(trx, {
        type: "bid.rejected",
        jobId,
        to: [other.agent_id],
        actorId,
        data: { jobId, bidId: other.id, agentId: other.agent_id, reason: "ANOTHER_BID_ACCEPTED" },
      });
    }
  });
  const bid = await ctx.db.selectFrom("bids").selectAll().where("id", "=", bidId).executeTakeFirstOrThrow();
  return { job: presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true }), bid: presentBid(bid) };
}

export async function rejectBid(ctx: ServiceContext, actor: Actor, jobId: string, bidId: string) {
  const job = await ctx.db.selectFrom("jobs").select(["poster_id"]).where("id", "=", jobId).executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.poster_id !== actor.principalId) throw fail("FORBIDDEN", "only the poster may reject bids on this job");
  const row = await ctx.db.transaction().execute(async (trx) => {
    const rejected = await trx
      .updateTable("bids")
      .set({ status: "REJECTED", updated_at: ctx.now() })
      .where("id", "=", bidId)
      .where("job_id", "=", jobId)
      .where("status", "=", "PENDING")
      .returningAll()
      .executeTakeFirst();
    if (rejected) {
      await publishEvent(trx, {
        type: "bid.rejected",
        jobId,
        to: [rejected.agent_id],
        actorId: actorIdOf(actor),
        data: { jobId, bidId, agentId: rejected.agent_id, reason: "REJECTED_BY_POSTER" },
      });
    }
    return rejected;
  });
  if (!row) {
    const bid = await ctx.db
      .selectFrom("bids")
      .select("status")
      .where("id", "=", bidId)
      .where("job_id", "=", jobId)
      .executeTakeFirst();
    if (!bid) throw fail("NOT_FOUND", "bid not found");
    throw fail("BID_NOT_PENDING", `the bid is ${bid.status}; only a PENDING bid can be rejected`);
  }
  return presentBid(row);
}

/** Withdrawing changes the status only: the record stays, and blocks a new bid with other terms. */
export async function withdrawBid(ctx: ServiceContext, actor: Actor, agentId: string, bidId: string) {
  const agent = await ctx.db
    .selectFrom("agents")
    .select(["id", "owner_user_id"])
    .where("id", "=", agentId)
    .executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (!actsForAgent(actor, agent)) throw fail("FORBIDDEN", "only the agent itself or its owner may withdraw its bids");
  const row = await ctx.db
    .updateTable("bids")
    .set({ status: "WITHDRAWN", updated_at: ctx.now() })
    .where("id", "=", bidId)
    .where("agent_id", "=", agentId)
    .where("status", "=", "PENDING")
    .returningAll()
    .executeTakeFirst();
  if (!row) {
    const bid = await ctx.db
      .selectFrom("bids")
      .select("status")
      .where("id", "=", bidId)
      .where("agent_id", "=", agentId)
      .executeTakeFirst();
    if (!bid) throw fail("NOT_FOUND", "bid not found");
    throw fail("BID_NOT_PENDING", `the bid is ${bid.status}; only a PENDING bid can be withdrawn`);
  }
  return presentBid(row);
}

/**
 * A funded job's deposit is asked of the chain again before an agent is given the work: a deposit
 * a reorganisation removed would otherwise have the agent work for money that is not there. Gone:
 * the job is unfunded (and the parties told) and the answer is 409 DEPOSIT_LOST.
 */
async function assertDepositStillOnChain(ctx: ServiceContext, actor: Actor, jobId: string) {
  const job = await ctx.db
    .selectFrom("jobs")
    .select(["id", "poster_id", "escrow_tx_hash", "escrow_payer", "escrow_job_id", "escrow_version"])
    .where("id", "=", jobId)
    .executeTakeFirst();
  // Existence and the poster are checked (and answered) in the transaction below.
  if (!job || job.poster_id !== actor.principalId || job.escrow_tx_hash === null) return;
  let present: boolean;
  try {
    present = await confirmDepositOnChain(ctx, job);
  } catch (error) {
    throw fail(
      "CHAIN_UNAVAILABLE",
      `the chain could not be asked whether the job's deposit is still there (${chainFailureReason(error)}); try again`,
    );
  }
  if (!present)
    throw fail(
      "DEPOSIT_LOST",
      "the deposit that funded this job is no longer on the chain (a reorganisation removed it); the job is unfunded again: fund it again before accepting a bid",
    );
}

import { fail } from "../errors";
import type { Address } from "viem";
import type { AdminSettlement, ResettleRequest } from "@/lib/api/schemas/admin";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { asOperator } from "../audit/record-operator-action";
import { requireOperator } from "../auth/operator";
import { completeSettlement } from "../escrow/settle-job";
import {
  asWholeJobTable,
  failedSettlementOrThrow,
  reopenFailedSettlement,
  sendReopened,
  settlementTableOf,
  type SettlementTable,
} from "../escrow/resettle";
import { completePartSettlement } from "../escrow/settle-part";
import { requirePayableAddress } from "../payouts/payable-address";
import { payoutOf } from "../rewards/pay-rewards";
import { announceResolved } from "../disputes/announce-resolved";
import { presentSettlement } from "./get-overview";

/**
 * POST /v1/admin/settlements/:id/retry. Makes a PENDING settlement (or a FAILED refund), a whole
 * job's or one part's, due now (its backoff cleared),
 * with the audit line, then sends it as the worker would: completeSettlement takes the lease, so a
 * worker round at the same moment cannot send it twice, and the contract settles each slot once
 * whatever happens. A FAILED refund goes back to PENDING and is sent again (its payer is the only
 * destination there is). A FAILED release or split is refused with its reason (409 SETTLEMENT_FAILED): the chain
 * refused it for good, so sending it again unchanged would answer 200 and change nothing; it is
 * settled again to a valid address with POST /v1/admin/settlements/:id/resettle.
 */
export async function retrySettlement(
  ctx: ServiceContext,
  actor: Actor | null,
  settlementId: string,
  reason: string,
): Promise<AdminSettlement> {
  await requireOperator(ctx, actor);
  const table = await settlementTableOf(ctx.db, settlementId);
  if (!table) throw fail("NOT_FOUND", "settlement not found");
  const rows = asWholeJobTable(table);
  const existing = await ctx.db
    .selectFrom(rows)
    .select(["id", "status"])
    .where("id", "=", settlementId)
    .executeTakeFirstOrThrow();
  await asOperator(
    ctx,
    actor,
    {
      action: "settlement.retry",
      subjectType: "settlement",
      subjectId: settlementId,
      reason,
      details: { previousStatus: existing.status },
    },
    async (trx) => {
      const row = await trx
        .selectFrom(rows)
        .select(["status", "kind", "lease_until", "last_error", "to_address", "failed_reason"])
        .where("id", "=", settlementId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (row.status === "CONFIRMED") throw fail("INVALID_STATE", "the settlement is already confirmed");
      if (row.status === "FAILED" && row.kind === "REFUND") {
        // A refund has one destination, its payer, fixed by the contract: the way out of a FAILED
        // one is to ask the chain again (a slot refunded meanwhile is recorded as it stands).
        await trx
          .updateTable(rows)
          .set({ status: "PENDING", attempts: 0, lease_until: null, updated_at: ctx.now() })
          .where("id", "=", settlementId)
          .where("status", "=", "FAILED")
          .execute();
        return;
      }
      if (row.status === "FAILED") {
        throw fail(
          "SETTLEMENT_FAILED",
          `the chain refused this settlement for good (${row.failed_reason ?? row.last_error ?? "no reason recorded"}); sending it again unchanged would change nothing: settle it again to a valid address (POST /v1/admin/settlements/${settlementId}/resettle)`,
          { lastError: row.failed_reason ?? row.last_error, toAddress: row.to_address },
        );
      }
      // The backoff (or a lease a crashed sender left) is cleared. Should a sender be mid-send, the
      // second send finds the slot (or the part) settled and records that transaction
      // (lib/chain/escrow/settle.ts, settle-parts.ts).
      await trx
        .updateTable(rows)
        .set({ lease_until: null, updated_at: ctx.now() })
        .where("id", "=", settlementId)
        .execute();
    },
  );
  if (table === "milestone_settlements") await completePartSettlement(ctx, settlementId);
  else await completeSettlement(ctx, settlementId);
  return presentSettlementById(ctx, settlementId, table);
}

/** The settlement as the overview lists it, from either table. */
async function presentSettlementById(
  ctx: ServiceContext,
  settlementId: string,
  table: SettlementTable,
): Promise<AdminSettlement> {
  const row = await ctx.db
    .selectFrom(asWholeJobTable(table))
    .selectAll()
    .where("id", "=", settlementId)
    .executeTakeFirstOrThrow();
  const job = await ctx.db.selectFrom("jobs").select("title").where("id", "=", row.job_id).executeTakeFirstOrThrow();
  const position =
    table === "milestone_settlements"
      ? (
          await ctx.db
            .selectFrom("milestone_settlements as s")
            .innerJoin("job_milestones as m", "m.id", "s.milestone_id")
            .select("m.position")
            .where("s.id", "=", settlementId)
            .executeTakeFirstOrThrow()
        ).position
      : null;
  return presentSettlement(row, job.title, position);
}

/**
 * Where a failed settlement goes when the operator names no address: the job's agent's wallet as
 * it is now (the agent, or its owner, set a new one), or for a forum reward's slot the reward
 * owner's payout destination now. Returns also the reward whose payout it is, if any.
 */
async function defaultDestination(
  ctx: ServiceContext,
  jobId: string,
): Promise<{
  address: string | null;
  rewardId: string | null;
  agentId: string | null;
  target?: "ADDRESS" | "MANAGED_WALLET";
}> {
  const job = await ctx.db.selectFrom("jobs").select(["agent_id"]).where("id", "=", jobId).executeTakeFirstOrThrow();
  const reward = await ctx.db
    .selectFrom("forum_rewards")
    .select(["id", "owner_user_id"])
    .where("slot_job_id", "=", jobId)
    .where("status", "=", "PAYING")
    .executeTakeFirst();
  if (reward) {
    const payout = await payoutOf(ctx.db, ctx.config.chain, reward.owner_user_id);
    return { address: payout.address, rewardId: reward.id, agentId: null, target: payout.target };
  }
  if (!job.agent_id) return { address: null, rewardId: null, agentId: null };
  const agent = await ctx.db
    .selectFrom("agents")
    .select("wallet_address")
    .where("id", "=", job.agent_id)
    .executeTakeFirst();
  return { address: agent?.wallet_address ?? null, rewardId: null, agentId: job.agent_id };
}

/**
 * POST /v1/admin/settlements/:id/resettle. A FAILED release or split (the chain refused its
 * recipient) is settled again to `toAddress`, or by default to where it should go now (the
 * agent's current wallet; a reward owner's current payout). The address passes the payable-address
 * rule first; the reopening and its audit line commit together (escrow/resettle.ts: once, across
 * parallel calls), then it is sent. A dispute ruling settled this way announces itself on confirming.
 */
export async function resettleSettlement(
  ctx: ServiceContext,
  actor: Actor | null,
  settlementId: string,
  input: ResettleRequest,
): Promise<AdminSettlement> {
  await requireOperator(ctx, actor);
  const table = await settlementTableOf(ctx.db, settlementId);
  if (!table) throw fail("NOT_FOUND", "settlement not found");
  const row = await failedSettlementOrThrow(ctx.db, settlementId, false, table);
  if (!row) throw fail("NOT_FOUND", "settlement not found");
  const fallback = await defaultDestination(ctx, row.job_id);
  const chosen = input.toAddress ?? fallback.address;
  if (!chosen) {
    throw fail(
      "AGENT_WALLET_MISSING",
      "there is no address to settle to: the agent has no walletAddress; it (or its owner) sets one, or name toAddress",
      { agentId: fallback.agentId },
    );
  }
  const to: Address = await requirePayableAddress(
    ctx,
    chosen,
    input.toAddress ? "toAddress" : "the agent's walletAddress",
  );
  await asOperator(
    ctx,
    actor,
    {
      action: "settlement.resettle",
      subjectType: "settlement",
      subjectId: settlementId,
      reason: input.reason,
      details: {
        failedTo: row.failed_to_address ?? row.to_address,
        failedReason: row.failed_reason ?? row.last_error,
        to,
      },
    },
    async (trx, operator) => {
      await reopenFailedSettlement(trx, settlementId, to, operator.userId, ctx.now(), table);
      if (fallback.rewardId) {
        await trx
          .updateTable("forum_rewards")
          .set({
            payout_address: to,
            payout_target: input.toAddress ? "ADDRESS" : (fallback.target ?? "ADDRESS"),
            updated_at: ctx.now(),
          })
          .where("id", "=", fallback.rewardId)
          .execute();
      }
    },
  );
  const after = await sendReopened(ctx, settlementId, table);
  if (after.status === "CONFIRMED") {
    const kase = await ctx.db
      .selectFrom("dispute_rulings as r")
      .innerJoin("dispute_cases as c", "c.id", "r.case_id")
      .select("c.id")
      .where("r.settlement_id", "=", settlementId)
      .executeTakeFirst();
    if (kase) await announceResolved(ctx, kase.id);
  }
  return presentSettlementById(ctx, settlementId, table);
}

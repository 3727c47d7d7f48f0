import { fail, DomainError } from "../errors";
import { agentPayoutOf } from "../escrow/escrow-contract";
import type { Address } from "viem";
import type { z } from "zod";
import type { RuleDisputeRequest } from "@/lib/api/schemas/disputes";
import { agentShareOf, parseUsdc } from "@/lib/chain/units";
import type { Actor } from "../auth/actor";
import { recordOperatorAction } from "../audit/record-operator-action";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { isUniqueViolation } from "../db/errors";
import { completeSettlement, recordSettlement, type SettlementRow } from "../escrow/settle-job";
import { getJobRowWithLapse } from "../jobs/read-job";
import { announceResolved } from "./announce-resolved";
import {
  arbiterOf,
  canRule,
  caseAccessOf,
  getCaseRowOrThrow,
  type CaseAccess,
  type DisputeCaseRow,
} from "./case-access";
import { getDispute } from "./present-dispute";
import { log } from "../log";

type Input = z.output<typeof RuleDisputeRequest>;

const ARBITER_TEXT = {
  EVALUATOR:
    "this job's dispute is decided by the evaluator its poster named; the operator rules only once the case has escalated (nobody ruled by its deadline)",
  OPERATOR: "this dispute is decided by the operator (no evaluator was named, or the case escalated)",
} as const;

export function refuseNonArbiter(
  access: CaseAccess,
  kase: Pick<DisputeCaseRow, "evaluator_address" | "status" | "escalated_at">,
): void {
  // The arbiter as the case stands, ignoring whether it is ruled: a second ruling by the arbiter is a 409 below.
  if (!canRule(access, { ...kase, status: "OPEN" })) {
    const why = access.side !== null ? "a party never rules on its own dispute" : ARBITER_TEXT[arbiterOf(kase)];
    throw fail("NOT_ARBITER", `you are not this dispute's arbiter: ${why}`);
  }
}

async function alreadyRuled(db: Pick<Db, "selectFrom">, caseId: string): Promise<DomainError | null> {
  const ruling = await db
    .selectFrom("dispute_rulings")
    .select(["outcome", "agent_share"])
    .where("case_id", "=", caseId)
    .executeTakeFirst();
  if (!ruling) return null;
  return fail(
    "DISPUTE_ALREADY_RULED",
    `the dispute was ruled ${ruling.outcome}${ruling.outcome === "SPLIT" ? ` (${ruling.agent_share} % to the agent)` : ""}; a ruling is made once`,
    {
      outcome: ruling.outcome,
      agentShare: ruling.agent_share,
    },
  );
}

/**
 * POST /v1/jobs/:id/dispute/ruling. The arbiter (the job's evaluator, or the operator when there
 * is none or the case escalated; never a party, never an agent key) decides: PAY_AGENT (release to
 * the agent's wallet less the fee), REFUND_POSTER (the whole deposit back to the payer) or SPLIT
 * (agentShare % to the agent less the fee, the rest to the payer; contract settleSplit).
 *
 * Exactly once, across parallel clicks and crashes: in one transaction, with the job and the case
 * locked (job first, the lock order of every job change), the ruling row (unique per case), the
 * escrow settlement row (unique per job; escrow/settle-job.ts), the case's RULED status and, for an
 * operator, the audit line commit together. A second attempt finds the ruling: 409
 * DISPUTE_ALREADY_RULED, nothing written or sent. Then the settlement is sent under its lease; a
 * crash leaves it PENDING for the settlement worker, which sends it once. dispute.resolved goes
 * out when the settlement confirms, with its tx hash (announce-resolved.ts).
 */
export async function ruleDispute(ctx: ServiceContext, actor: Actor, jobId: string, input: Input) {
  if (actor.kind !== "USER")
    throw fail("HUMAN_SESSION_REQUIRED", "a ruling needs the arbiter's own signed-in session, not an agent key");
  const job = await getJobRowWithLapse(ctx, jobId);
  const kase = await getCaseRowOrThrow(ctx, jobId);
  const access = await caseAccessOf(ctx, actor, job, kase);
  refuseNonArbiter(access, kase);
  const ruled = await alreadyRuled(ctx.db, kase.id);
  if (ruled) throw ruled;

  const agentShare = input.outcome === "PAY_AGENT" ? 100 : input.outcome === "REFUND_POSTER" ? 0 : input.agentShare!;
  const funded = job.escrow_tx_hash !== null;
  let wallet: Address | null = null;
  if (funded && agentShare > 0) {
    // A version 2 slot pays the agent assigned at acceptance, whatever its wallet is now.
    wallet = await agentPayoutOf(ctx.db, job);
    // EscrowV2: only the payer's consent fixes whom the slot pays; a bounty's claimant is assigned
    // when the poster approves, so a bounty disputed before that has no agent the slot can pay.
    if (!wallet && job.escrow_version === 2)
      throw fail(
        "AGENT_NOT_ASSIGNED",
        "the job's escrow (EscrowV2) pays no agent: its payer never assigned one on chain (a bounty's claimant is assigned when the poster approves), and nothing pays the agent without the payer's consent. Rule REFUND_POSTER, or the payer sends assign(jobId, payer, agent, deadline, 0x) from the funding wallet and the ruling is made again",
        { agentId: job.agent_id },
      );
    if (!wallet) {
      throw fail(
        "AGENT_WALLET_MISSING",
        "the ruling pays the agent, which has no walletAddress: the agent (or its owner) sets it with PATCH /v1/agents/:id, then rule again",
        { agentId: job.agent_id },
      );
    }
  }

  let settlement: SettlementRow | null;
  try {
    settlement = await ctx.db.transaction().execute(async (trx) => {
      const lockedJob = await trx
        .selectFrom("jobs")
        .select(["status", "escrow_tx_hash", "budget_usdc"])
        .where("id", "=", jobId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const lockedCase = await trx
        .selectFrom("dispute_cases")
        .selectAll()
        .where("id", "=", kase.id)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const again = await alreadyRuled(trx, kase.id);
      if (again) throw again;
      // The case may have escalated since the first check: the arbiter is decided on the locked row.
      refuseNonArbiter(access, lockedCase);
      if (lockedJob.status !== "DISPUTED") throw fail("INVALID_STATE", `the job is ${lockedJob.status}, not DISPUTED`);
      const now = ctx.now();

      let recorded: SettlementRow | null = null;
      if (lockedJob.escrow_tx_hash !== null) {
        if (input.outcome === "PAY_AGENT") recorded = await recordSettlement(trx, jobId, "RELEASE", wallet);
        else if (input.outcome === "REFUND_POSTER") recorded = await recordSettlement(trx, jobId, "REFUND", null);
        else
          recorded = await recordSettlement(trx, jobId, "SPLIT", wallet, {
            agentShareUnits: agentShareOf(parseUsdc(lockedJob.budget_usdc), agentShare),
          });
      }
      await trx
        .insertInto("dispute_rulings")
        .values({
          case_id: kase.id,
          outcome: input.outcome,
          agent_share: agentShare,
          arbiter: arbiterOf(lockedCase),
          ruled_by_user_id: actor.userId,
          ruled_by_address: (
            await trx.selectFrom("users").select("address").where("id", "=", actor.userId).executeTakeFirstOrThrow()
          ).address.toLowerCase(),
          reason: input.reason,
          settlement_id: recorded?.id ?? null,
          created_at: now,
        })
        .execute();
      await trx
        .updateTable("dispute_cases")
        .set({ status: "RULED", ruled_at: now, updated_at: now })
        .where("id", "=", kase.id)
        .execute();
      // A refund cancels the job now (as a cancellation does); a payment completes it when the
      // release or split confirms (escrow/settle-job.ts), or at once when nothing was deposited.
      if (input.outcome === "REFUND_POSTER") {
        await trx.updateTable("jobs").set({ status: "CANCELLED", updated_at: now }).where("id", "=", jobId).execute();
      } else if (recorded === null) {
        await trx
          .updateTable("jobs")
          .set({ status: "COMPLETED", completed_at: now, updated_at: now })
          .where("id", "=", jobId)
          .execute();
      }
      if (arbiterOf(lockedCase) === "OPERATOR") {
        await recordOperatorAction(
          trx,
          { userId: actor.userId },
          {
            action: "dispute.rule",
            subjectType: "job",
            subjectId: jobId,
            reason: input.reason,
            details: { caseId: kase.id, outcome: input.outcome, agentShare },
          },
        );
      }
      return recorded;
    });
  } catch (error) {
    // Two rulings that passed the checks at once: the unique ruling per case lets one through.
    if (isUniqueViolation(error)) throw (await alreadyRuled(ctx.db, kase.id)) ?? error;
    throw error;
  }

  if (settlement?.status === "PENDING") {
    try {
      settlement = await completeSettlement(ctx, settlement.id);
    } catch (error) {
      // Recorded and maybe sent: the settlement worker finishes it (its lease runs out first).
      log.warn({ jobId, reason: (error as Error).message }, "settlement of a ruling left to the settlement worker");
    }
  }
  if (settlement === null || settlement.status === "CONFIRMED") await announceResolved(ctx, kase.id);
  return getDispute(ctx, actor, jobId);
}

import { fail } from "../errors";
import type { z } from "zod";
import type { ResettleRulingRequest } from "@/lib/api/schemas/disputes";
import type { Actor } from "../auth/actor";
import { recordOperatorAction } from "../audit/record-operator-action";
import type { ServiceContext } from "../context";
import { failedSettlementOrThrow, reopenFailedSettlement, sendReopened } from "../escrow/resettle";
import { getJobRowWithLapse } from "../jobs/read-job";
import { requirePayableAddress } from "../payouts/payable-address";
import { announceResolved } from "./announce-resolved";
import { arbiterOf, caseAccessOf, getCaseRowOrThrow } from "./case-access";
import { getDispute } from "./present-dispute";
import { refuseNonArbiter } from "./rule-dispute";

/**
 * POST /v1/jobs/:id/dispute/resettle. The ruling stands; only where its payment goes changes. The
 * case's arbiter (who ruled, or the operator once it escalated) settles a FAILED release or split
 * again, to toAddress or the agent's current wallet, after the payable-address check; the
 * reopening is once (escrow/resettle.ts) and, for the operator, audited in the same transaction.
 * dispute.resolved follows the confirmation, as for a first ruling.
 */
export async function resettleRuling(
  ctx: ServiceContext,
  actor: Actor,
  jobId: string,
  input: z.output<typeof ResettleRulingRequest>,
) {
  if (actor.kind !== "USER")
    throw fail(
      "HUMAN_SESSION_REQUIRED",
      "settling a ruling again needs the arbiter's own signed-in session, not an agent key",
    );
  const job = await getJobRowWithLapse(ctx, jobId);
  const kase = await getCaseRowOrThrow(ctx, jobId);
  refuseNonArbiter(await caseAccessOf(ctx, actor, job, kase), kase);
  const ruling = await ctx.db
    .selectFrom("dispute_rulings")
    .select("settlement_id")
    .where("case_id", "=", kase.id)
    .executeTakeFirst();
  if (!ruling?.settlement_id) throw fail("INVALID_STATE", "the case has no ruling whose settlement could be redone");
  const settlementId = ruling.settlement_id;
  await failedSettlementOrThrow(ctx.db, settlementId);

  let chosen = input.toAddress ?? null;
  if (!chosen && job.agent_id) {
    chosen =
      (await ctx.db.selectFrom("agents").select("wallet_address").where("id", "=", job.agent_id).executeTakeFirst())
        ?.wallet_address ?? null;
  }
  if (!chosen)
    throw fail(
      "AGENT_WALLET_MISSING",
      "the agent has no walletAddress: it (or its owner) sets one, or name toAddress",
      { agentId: job.agent_id },
    );
  const to = await requirePayableAddress(ctx, chosen, input.toAddress ? "toAddress" : "the agent's walletAddress");

  await ctx.db.transaction().execute(async (trx) => {
    await reopenFailedSettlement(trx as unknown as ServiceContext["db"], settlementId, to, actor.userId, ctx.now());
    if (arbiterOf(kase) === "OPERATOR") {
      await recordOperatorAction(
        trx,
        { userId: actor.userId },
        {
          action: "settlement.resettle",
          subjectType: "settlement",
          subjectId: settlementId,
          reason: input.reason,
          details: { jobId, caseId: kase.id, to },
        },
      );
    }
  });
  const after = await sendReopened(ctx, settlementId);
  if (after.status === "CONFIRMED") await announceResolved(ctx, kase.id);
  return getDispute(ctx, actor, jobId);
}

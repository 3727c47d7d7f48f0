import { fail } from "../errors";
import { sql } from "kysely";
import type { z } from "zod";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import type { EscrowFees, FeeWithdrawal } from "@/lib/api/schemas/admin";
import { feeRecipientOf, feesAccruedOf } from "@/lib/chain/escrow/reads";
import { withdrawEscrowFees } from "@/lib/chain/escrow/send";
import { formatUsdc } from "@/lib/chain/units";
import { requireChain, type ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { requireOperator } from "../auth/operator";
import { asOperator } from "../audit/record-operator-action";
import { agentPayouts } from "../escrow/released";

/**
 * GET /v1/admin/fees: earned (the fee of every confirmed settlement that paid an agent, whole jobs
 * and parts, releases and dispute splits: escrow/released.ts) and accrued (the contract, now). What
 * was withdrawn left the contract, so earned is never below accrued.
 */
export async function getEscrowFees(ctx: ServiceContext, actor: Actor | null): Promise<z.infer<typeof EscrowFees>> {
  await requireOperator(ctx, actor);
  const chain = requireChain(ctx);
  const earned = await ctx.db
    .selectFrom(agentPayouts(ctx.db).as("p"))
    .select(sql<string>`coalesce(sum(p.fee_units), 0)::text`.as("units"))
    .where("p.chain_id", "=", chain.chainId)
    .executeTakeFirstOrThrow();
  try {
    const [accrued, feeRecipient] = await Promise.all([feesAccruedOf(chain), feeRecipientOf(chain)]);
    return {
      earnedUsdc: formatUsdc(BigInt(earned.units)),
      accruedUsdc: formatUsdc(accrued),
      feeRecipient,
      feeBps: chain.feeBps,
    };
  } catch (error) {
    throw fail("CHAIN_UNAVAILABLE", `the chain could not be read: ${chainFailureReason(error)}`);
  }
}

/**
 * POST /v1/admin/fees/withdraw. The contract is what makes it happen once (withdrawFees() sends
 * everything accrued and leaves zero; with zero it reverts), so two clicks at once send one
 * transfer and the other is refused. The audit line records the transaction after it confirmed:
 * a send that did not happen leaves no line.
 */
export async function withdrawFees(
  ctx: ServiceContext,
  actor: Actor | null,
  reason: string,
): Promise<z.infer<typeof FeeWithdrawal>> {
  await requireOperator(ctx, actor);
  const chain = requireChain(ctx);
  let sent: Awaited<ReturnType<typeof withdrawEscrowFees>>;
  try {
    sent = await withdrawEscrowFees(chain);
  } catch (error) {
    throw fail("CHAIN_UNAVAILABLE", chainFailureReason(error));
  }
  if (!sent) throw fail("NO_FEES_ACCRUED", "the escrow holds no accrued fee: they were withdrawn already");
  const data = { txHash: sent.txHash, amountUsdc: formatUsdc(sent.amount), to: sent.to };
  // The change happened on chain (a send cannot be part of a database transaction); the audit line follows its receipt.
  await asOperator(
    ctx,
    actor,
    {
      action: "fees.withdraw",
      subjectType: "escrow",
      subjectId: chain.escrowAddress.toLowerCase(),
      reason,
      details: data,
    },
    async () => undefined,
  );
  return data;
}

import type { Selectable } from "kysely";
import { finishSentPayments, watchSettledPayments } from "./x402";
import { splitFee } from "@/lib/chain/units";
import type { ServiceContext, Worker } from "../context";
import { requireChain } from "../context";
import type { Db } from "../db/connection";
import type { EvalPackPayoutsTable } from "../db/schema";
import {
  recordOnce,
  sendKeptTransfer,
  settleDue,
  type SettlementWay,
  type TransferSent,
} from "../escrow/settlement-engine";
import { nextAttemptAt } from "../retry-backoff";

/**
 * A paid attempt at a community pack owes its publisher the price less the marketplace fee (the
 * escrow's feeBps, rounded as the contract does). Queued in the attempt's transaction: the unique
 * attempt_id makes it one payout per payment, whatever retries or races happen.
 */
export async function queuePackPayout(
  trx: Db,
  ctx: ServiceContext,
  p: { attemptId: string; packId: string; publisherUserId: string; units: bigint },
) {
  const chain = requireChain(ctx);
  const publisher = await trx
    .selectFrom("users")
    .select("address")
    .where("id", "=", p.publisherUserId)
    .executeTakeFirstOrThrow();
  const { net, fee } = splitFee(p.units, chain.feeBps);
  if (net <= 0n) return;
  await trx
    .insertInto("eval_pack_payouts")
    .values({
      attempt_id: p.attemptId,
      pack_id: p.packId,
      publisher_user_id: p.publisherUserId,
      to_address: publisher.address.toLowerCase(),
      amount_units: net.toString(),
      fee_units: fee.toString(),
      chain_id: chain.chainId,
    })
    .onConflict((oc) => oc.column("attempt_id").doNothing())
    .execute();
}

type PayoutRow = Selectable<EvalPackPayoutsTable>;

/**
 * A payout is sent exactly once, from the service's operator wallet (which the pack treasury keeps
 * funded), through the one settlement engine (escrow/settlement-engine.ts); while its transfer is
 * kept in the row and not yet confirmed the operator's console shows it as SENT.
 */
function payoutWay(ctx: ServiceContext, now: Date): SettlementWay<PayoutRow, undefined, TransferSent> {
  return {
    table: "eval_pack_payouts",
    send: (chain, _, claimed) =>
      sendKeptTransfer(ctx, "eval_pack_payouts", chain, claimed, {
        privateKey: chain.operatorPrivateKey,
        amount: BigInt(claimed.amount_units),
      }),
    record: async (_, claimed, sent) => {
      // Reverted (e.g. the wallet lacked USDC): nothing moved; signed anew after a wait that grows
      // with each attempt (retry-backoff.ts), so payouts that keep reverting never fill the rounds.
      const receipt = sent.reverted
        ? { sent_raw_tx: null, sent_tx_hash: null, lease_until: nextAttemptAt(now, claimed.attempts) }
        : { status: "CONFIRMED", lease_until: null };
      const set = { ...receipt, last_error: sent.reverted ? "the USDC transfer reverted" : null, updated_at: now };
      return (await recordOnce<PayoutRow>(ctx.db, "eval_pack_payouts", claimed.id, set, sent.txHash)).row;
    },
    logFields: (row) => ({ payoutId: row.id }),
  };
}

/** The worker's round: payouts not confirmed whose lease is free (new, or left by a crash, an outage or a backoff). */
export async function payPendingPackPayouts(
  ctx: ServiceContext,
  now: Date = ctx.now(),
  options: { only?: string[] } = {},
): Promise<number> {
  const chain = ctx.config.chain;
  if (!chain) return 0;
  // Owed on this chain (rows from before the chain was recorded: the configured one).
  const onChain = chain.chainId;
  const way = payoutWay(ctx, now);
  const round = await settleDue(
    ctx,
    "eval_pack_payouts",
    way,
    (eb) => eb.or([eb("chain_id", "is", null), eb("chain_id", "=", onChain)]),
    { now, only: options.only },
  );
  return round.confirmed;
}

/**
 * Every 10 s: pays publishers their share of paid attempts at their packs, and finishes x402
 * payments whose request went away after sending, or whose settlement a reorganisation removed
 * (from the chain).
 */
export const packPayoutWorker: Worker = {
  name: "pack-payouts",
  everyMs: 10_000,
  run: async (ctx) => {
    await payPendingPackPayouts(ctx);
    await watchSettledPayments(ctx);
    await finishSentPayments(ctx);
  },
};

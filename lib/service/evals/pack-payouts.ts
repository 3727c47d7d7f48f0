import { sql } from "kysely";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import type { Hex } from "viem";
import { assertKept, sendDurableUsdcTransfer, waitForDurableTransfer } from "@/lib/chain/durable-transfer";
import { finishSentPayments, watchSettledPayments } from "./x402";
import { splitFee } from "@/lib/chain/units";
import type { ServiceContext, Worker } from "../context";
import { requireChain } from "../context";
import type { Db } from "../db/connection";
import { errorFields, log } from "../log";
import { nextAttemptAt } from "../retry-backoff";

const PAYOUT_LEASE_MS = 5 * 60_000;

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
      tx_hash: null,
      raw_tx: null,
      last_error: null,
      chain_id: chain.chainId,
    })
    .onConflict((oc) => oc.column("attempt_id").doNothing())
    .execute();
}

/**
 * Sends one payout exactly once, from the service's operator wallet (which the pack treasury keeps
 * funded): claimed under a lease; the transfer is signed and its bytes and hash stored before it is
 * broadcast; a later try asks the chain what became of it and rebroadcasts the same signed bytes
 * (same nonce: mined once at most). A receipt the RPC did not deliver is unknown, never "not
 * mined"; only a transfer whose nonce went to another transaction (lib/chain/durable-transfer.ts)
 * is signed anew.
 */
async function sendPackPayout(
  ctx: ServiceContext,
  id: string,
  now: Date = ctx.now(),
): Promise<"CONFIRMED" | "PENDING"> {
  const chain = requireChain(ctx);
  const claimed = await ctx.db
    .updateTable("eval_pack_payouts")
    .set({ attempts: sql`attempts + 1`, lease_until: new Date(now.getTime() + PAYOUT_LEASE_MS) })
    .where("id", "=", id)
    .where("status", "<>", "CONFIRMED")
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
    .returningAll()
    .executeTakeFirst();
  if (!claimed) return "PENDING";
  const hash = await sendDurableUsdcTransfer({
    chain,
    privateKey: chain.operatorPrivateKey,
    to: claimed.to_address as Hex,
    amount: BigInt(claimed.amount_units),
    stored: { raw: claimed.raw_tx as Hex | null, hash: claimed.tx_hash as Hex | null },
    // As a withdrawal's: cleared only while it is the dead transaction, kept only while none is.
    forget: async (hash) => {
      await ctx.db
        .updateTable("eval_pack_payouts")
        .set({ raw_tx: null, tx_hash: null, status: "PENDING" })
        .where("id", "=", id)
        .where("tx_hash", "=", hash)
        .execute();
    },
    record: async (raw, signedHash) => {
      assertKept(
        await ctx.db
          .updateTable("eval_pack_payouts")
          .set({ raw_tx: raw, tx_hash: signedHash, status: "SENT", sent_at: now })
          .where("id", "=", id)
          .where("tx_hash", "is", null)
          .executeTakeFirst(),
      );
    },
  });
  const receipt = await waitForDurableTransfer(chain, hash);
  if (receipt.status === "success") {
    await ctx.db
      .updateTable("eval_pack_payouts")
      .set({ status: "CONFIRMED", lease_until: null, last_error: null })
      .where("id", "=", id)
      .execute();
    return "CONFIRMED";
  }
  // Reverted (e.g. the wallet lacked USDC): nothing moved; sign anew after a wait that grows with
  // each attempt (retry-backoff.ts), so payouts that keep reverting never fill the rounds.
  await ctx.db
    .updateTable("eval_pack_payouts")
    .set({
      status: "PENDING",
      raw_tx: null,
      tx_hash: null,
      last_error: "the USDC transfer reverted",
      lease_until: nextAttemptAt(now, claimed.attempts),
    })
    .where("id", "=", id)
    .execute();
  return "PENDING";
}

/** The worker's round: payouts not confirmed whose lease is free (new, or left by a crash or an outage). */
export async function payPendingPackPayouts(
  ctx: ServiceContext,
  now: Date = ctx.now(),
  options: { only?: string[] } = {},
): Promise<number> {
  if (!ctx.config.chain) return 0;
  let q = ctx.db
    .selectFrom("eval_pack_payouts")
    .select("id")
    .where("status", "<>", "CONFIRMED")
    // Owed on this chain (rows from before the chain was recorded: the configured one).
    .where((eb) => eb.or([eb("chain_id", "is", null), eb("chain_id", "=", ctx.config.chain!.chainId)]))
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]));
  // Only these payouts: for tests that move the clock on a database other suites share.
  if (options.only) q = options.only.length ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
  // Never tried first, then those whose wait ran out longest ago.
  const rows = await q
    .orderBy(sql`lease_until asc nulls first`)
    .orderBy("created_at")
    .limit(20)
    .execute();
  let done = 0;
  for (const { id } of rows) {
    try {
      if ((await sendPackPayout(ctx, id, now)) === "CONFIRMED") done += 1;
    } catch (error) {
      await ctx.db
        .updateTable("eval_pack_payouts")
        .set({ last_error: chainFailureReason(error).slice(0, 500) })
        .where("id", "=", id)
        .execute();
      log.error({ payoutId: id, ...errorFields(error) }, "pack payout failed");
    }
  }
  return done;
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

import { sql } from "kysely";
import type { Address } from "viem";
import { EscrowError, refundEscrow, releaseEscrow, type SettlementResult } from "@/lib/chain/escrow";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { EscrowSettlementsTable } from "../db/schema";
import type { Selectable } from "kysely";

export type SettlementKind = "RELEASE" | "REFUND";
type SettlementRow = Selectable<EscrowSettlementsTable>;

/** Test seam: lets a test make the recording step fail once, as a crash would. */
export const settlementHooks: { afterSend?: (jobId: string, result: SettlementResult) => void | Promise<void> } = {};

/**
 * Moves a funded job's escrow exactly once. The PENDING row is written before anything is sent;
 * the chain call is idempotent (a settled job returns its existing transaction); the receipt is
 * recorded afterwards. If the process dies between sending and recording, the settlement worker
 * repeats the call, gets the same transaction back, and records it: money moves once.
 */
export async function settleJob(ctx: ServiceContext, jobId: string, kind: SettlementKind, to?: Address): Promise<SettlementRow> {
  await ctx.db
    .insertInto("escrow_settlements")
    .values({ job_id: jobId, kind, status: "PENDING", to_address: to ?? null })
    .onConflict((oc) => oc.column("job_id").doNothing())
    .execute();
  const row = await ctx.db.selectFrom("escrow_settlements").selectAll().where("job_id", "=", jobId).executeTakeFirstOrThrow();
  if (row.kind !== kind) throw new Error(`job ${jobId} is already being settled by ${row.kind}`);
  if (row.status === "CONFIRMED") return row;
  return sendAndRecord(ctx, row);
}

async function sendAndRecord(ctx: ServiceContext, row: SettlementRow): Promise<SettlementRow> {
  const chain = requireChain(ctx);
  const job = await ctx.db.selectFrom("jobs").select(["escrow_job_id"]).where("id", "=", row.job_id).executeTakeFirstOrThrow();
  await ctx.db.updateTable("escrow_settlements").set({ attempts: sql`attempts + 1`, updated_at: ctx.now() }).where("id", "=", row.id).execute();
  let result: SettlementResult;
  try {
    result = await settleOnChain(chain, job.escrow_job_id, row);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await ctx.db.updateTable("escrow_settlements").set({ last_error: message.slice(0, 500), updated_at: ctx.now() }).where("id", "=", row.id).execute();
    throw error;
  }
  await settlementHooks.afterSend?.(row.job_id, result);

  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const confirmed = await trx
      .updateTable("escrow_settlements")
      .set({ status: "CONFIRMED", tx_hash: result.txHash, to_address: result.to, amount_units: result.amount.toString(), fee_units: result.fee.toString(), last_error: null, updated_at: now })
      .where("id", "=", row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (row.kind === "RELEASE") {
      await trx.updateTable("jobs").set({ release_tx_hash: result.txHash, status: "COMPLETED", completed_at: now, updated_at: now }).where("id", "=", row.job_id).execute();
    } else {
      await trx.updateTable("jobs").set({ refund_tx_hash: result.txHash, updated_at: now }).where("id", "=", row.job_id).execute();
    }
    return confirmed;
  });
}

async function settleOnChain(chain: Parameters<typeof releaseEscrow>[0]["config"], escrowJobId: string, row: SettlementRow): Promise<SettlementResult> {
  const call = () =>
    row.kind === "RELEASE"
      ? releaseEscrow({ config: chain, escrowJobId, to: row.to_address as Address })
      : refundEscrow({ config: chain, escrowJobId });
  try {
    return await call();
  } catch (error) {
    // Another instance settled it between our check and our send: asking again returns its receipt.
    if (error instanceof EscrowError && (error.code === "ALREADY_RELEASED" || error.code === "ALREADY_REFUNDED")) return call();
    throw error;
  }
}

/** Finishes settlements left PENDING by a crash or a chain outage; several instances may run it. */
export async function finishPendingSettlements(ctx: ServiceContext, options: { olderThanMs?: number } = {}): Promise<number> {
  const cutoff = new Date(ctx.now().getTime() - (options.olderThanMs ?? 30_000));
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("status", "=", "PENDING")
      .where("updated_at", "<=", cutoff)
      .orderBy("updated_at")
      .limit(10)
      .forUpdate()
      .skipLocked()
      .execute();
    // Stamp them so another worker skips them until this round is over.
    if (rows.length > 0) {
      await trx.updateTable("escrow_settlements").set({ updated_at: ctx.now() }).where("id", "in", rows.map((r) => r.id)).execute();
    }
    return rows;
  });
  let done = 0;
  for (const row of claimed) {
    try {
      await sendAndRecord(ctx, row);
      done += 1;
    } catch (error) {
      console.error(`[settlements] job ${row.job_id}: ${(error as Error).message}`);
    }
  }
  return done;
}

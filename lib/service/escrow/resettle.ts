import { fail } from "../errors";
import { sql } from "kysely";
import { isAddressEqual, type Address } from "viem";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { completeSettlement, type SettlementRow } from "./settle-job";
import { completePartSettlement } from "./settle-part";

/**
 * Settling a FAILED settlement again, to a valid address. A settlement is FAILED when the chain
 * refused it for good (a revert such as InvalidRecipient, or a recipient the service stops before
 * sending): the escrow slot on chain is still Funded, so nothing has moved, and sending the same
 * call again would fail the same way. So the retry of a FAILED settlement is refused, and this is
 * the way out: the operator (or the dispute's arbiter) names where the money goes now, already
 * checked by payouts/payable-address.ts, and the row goes back to PENDING with that address.
 *
 * Once: the row is locked and moves FAILED → PENDING in one conditional update, so of parallel
 * re-settles one wins and the others find it PENDING (409 SETTLEMENT_NOT_FAILED); the send that
 * follows takes the row's lease (settle-job.ts), and the contract settles each slot once. A
 * re-settle that itself fails (the new address refused too) is FAILED again and may be settled
 * again; a CONFIRMED one never.
 *
 * A part of a job paid in parts is settled again the same way: its row (milestone_settlements)
 * keeps the same failure and re-settle columns as a whole job's (escrow_settlements), so the
 * functions here take either table, named by settlementTableOf.
 */

/** The two tables a settlement lives in: a whole job's, or one part's of a job paid in parts. */
export type SettlementTable = "escrow_settlements" | "milestone_settlements";

/** Which table holds settlement `id` (ids are unique across both), or null when neither does. */
export async function settlementTableOf(db: Db, id: string): Promise<SettlementTable | null> {
  const [whole, part] = await Promise.all([
    db.selectFrom("escrow_settlements").select("id").where("id", "=", id).executeTakeFirst(),
    db.selectFrom("milestone_settlements").select("id").where("id", "=", id).executeTakeFirst(),
  ]);
  return whole ? "escrow_settlements" : part ? "milestone_settlements" : null;
}

/**
 * The columns this module reads and writes are the same in both tables (migration 0100), so a
 * query written against the whole job's table runs against either.
 */
export const asWholeJobTable = (table: SettlementTable) => table as "escrow_settlements";

/** The caller's open transaction (asOperator hands it over as a Db). */
type Trx = Db;

/** Reads the settlement and refuses anything but a FAILED release or split (409). */
export async function failedSettlementOrThrow(
  db: Db,
  settlementId: string,
  lock = false,
  table: SettlementTable = "escrow_settlements",
): Promise<SettlementRow | undefined> {
  let q = db.selectFrom(asWholeJobTable(table)).selectAll().where("id", "=", settlementId);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) return undefined;
  if (row.status !== "FAILED") {
    throw fail(
      "SETTLEMENT_NOT_FAILED",
      row.status === "CONFIRMED"
        ? "the settlement is confirmed: the money moved once and is not settled again"
        : "the settlement is PENDING (being sent); only a FAILED one is settled again",
      { settlementStatus: row.status },
    );
  }
  if (row.kind === "REFUND") {
    throw fail(
      "INVALID_STATE",
      "a refund goes only to its payer (the contract names no other destination); there is no address to choose: retry it instead (POST /v1/admin/settlements/:id/retry)",
    );
  }
  return row;
}

/**
 * Inside the caller's transaction (with its audit line): puts a FAILED release or split back to
 * PENDING addressed to `to`. `to` must already have passed requirePayableAddress. The address
 * that failed is refused again: sending there changes nothing.
 */
export async function reopenFailedSettlement(
  trx: Trx,
  settlementId: string,
  to: Address,
  byUserId: string,
  now: Date,
  table: SettlementTable = "escrow_settlements",
): Promise<SettlementRow> {
  const row = await failedSettlementOrThrow(trx, settlementId, true, table);
  if (!row) throw new Error(`settlement ${settlementId} vanished`);
  const failedTo = row.failed_to_address ?? row.to_address;
  if (failedTo && isAddressEqual(failedTo as Address, to)) {
    throw fail(
      "SETTLEMENT_FAILED",
      `the chain already refused ${to} (${row.failed_reason ?? row.last_error ?? "no reason recorded"}): settle it to another address (the agent sets a new walletAddress, or name toAddress)`,
      {
        lastError: row.failed_reason ?? row.last_error,
        toAddress: failedTo,
      },
    );
  }
  return trx
    .updateTable(asWholeJobTable(table))
    .set({
      status: "PENDING",
      to_address: to,
      attempts: 0,
      lease_until: null,
      last_error: null,
      resettle_count: sql`resettle_count + 1`,
      resettled_at: now,
      resettled_by_user_id: byUserId,
      updated_at: now,
    })
    .where("id", "=", settlementId)
    .where("status", "=", "FAILED")
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** After the transaction: sends the reopened settlement at once (the worker would within its round). */
export async function sendReopened(
  ctx: ServiceContext,
  settlementId: string,
  table: SettlementTable = "escrow_settlements",
): Promise<SettlementRow> {
  try {
    if (table === "milestone_settlements") await completePartSettlement(ctx, settlementId);
    else return await completeSettlement(ctx, settlementId);
  } catch {
    // Recorded and maybe sent: the settlement worker finishes it when the lease runs out.
  }
  return ctx.db.selectFrom(asWholeJobTable(table)).selectAll().where("id", "=", settlementId).executeTakeFirstOrThrow();
}

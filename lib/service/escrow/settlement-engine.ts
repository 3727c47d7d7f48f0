import { sql, type Selectable, type Transaction } from "kysely";
import type { Hex } from "viem";
import { assertKept, type StoredSend } from "@/lib/chain/durable-transfer";
import type { ChainConfig } from "@/lib/chain/config";
import { EscrowError, chainFailureReason, isFinalRefusal } from "@/lib/chain/escrow/errors";
import type { SettlementResult } from "@/lib/chain/escrow/settle";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { Database, EscrowSettlementsTable } from "../db/schema";
import { isDatabaseUnavailable } from "../db/errors";
import { settlementRecipientRefusal } from "../payouts/payable-address";
import { errorFields, log } from "../log";

/**
 * The one engine by which money leaves a job's escrow slot: a whole job (escrow_settlements,
 * settle-job.ts) is settled exactly as one part of a job paid in parts is (milestone_settlements,
 * settle-part.ts). What differs between the two is what they send (the contract call) and what a
 * receipt changes (the job, or the part and then the job); the rest is this file's, once:
 *
 * 1. The claim: a lease on a PENDING row (one sender at a time, across instances); a claim whose
 *    answer the database lost is handed back as soon as it answers, not a lease later.
 * 2. The send, through the durable sender (lib/chain/durable-transfer.ts): the signed transaction is
 *    kept in the row before it is broadcast (keptInRow), and an error of the node never decides the
 *    outcome: the chain does.
 * 3. A refusal: FAILED with its reason when the chain rules the settlement out for good
 *    (isFinalRefusal), else PENDING again with a backoff of 10 s doubling up to ten minutes. Every
 *    FAILED row can be acted on (admin/retry-settlement.ts, escrow/resettle.ts).
 * 4. The receipt, recorded once (only a PENDING row is confirmed); when the database does not answer
 *    after the money moved, the caller gets the pending row (never a 500) and this process keeps
 *    recording every few seconds until the lease runs out; the worker's round finishes it after.
 */

/** How long a sender holds a row: more than the chain helpers wait for a receipt (180 s). */
export const SETTLEMENT_LEASE_MS = 5 * 60_000;
/** Retries after a chain failure back off from 10 s up to this. */
const MAX_BACKOFF_MS = 10 * 60_000;
/** How often a sent settlement's receipt is tried again while the database does not answer. */
const RECORD_RETRY_MS = 2_000;

export type SettlementTable = "escrow_settlements" | "milestone_settlements";

/** What a settlement does with a slot's money, or a part's: the same three for a whole job and a part. */
export type SettlementKind = "RELEASE" | "REFUND" | "SPLIT";

/** "the escrow is already being …" in a refusal of a settlement of another kind. */
export const SETTLEMENT_KIND_TEXT: Record<SettlementKind, string> = {
  RELEASE: "released to the agent",
  REFUND: "refunded to the payer",
  SPLIT: "split between the agent and the payer",
};

/** The columns the engine reads and writes: both tables carry them (migrations 0021, 0060, 0105). */
type EngineRow = Pick<
  Selectable<EscrowSettlementsTable>,
  | "id"
  | "job_id"
  | "kind"
  | "status"
  | "attempts"
  | "lease_until"
  | "to_address"
  | "last_error"
  | "sent_raw_tx"
  | "sent_tx_hash"
>;

export interface SettlementWay<Row extends EngineRow, Slot> {
  table: SettlementTable;
  /** What the send needs, read before the claim: nothing but the chain call stands between the lease and the send. */
  readSlot: (settlementId: string) => Promise<Slot>;
  send: (chain: ChainConfig, slot: Slot, claimed: Row) => Promise<SettlementResult>;
  /** Where a test stops the process between the send and its record. */
  afterSend?: (claimed: Row) => Promise<void> | void;
  /** Records the receipt and what it changes, in one transaction, only while the row is PENDING. */
  record: (chain: ChainConfig, claimed: Row, result: SettlementResult) => Promise<Row>;
  /** The fields that name the row in the server's log. */
  logFields: (row: Row) => Record<string, unknown>;
}

// Both tables carry the engine's columns; Kysely types one table name at a time.
const rowsOf = (ctx: ServiceContext, table: SettlementTable) => ctx.db.updateTable(table as "escrow_settlements");
const readRow = <Row>(ctx: ServiceContext, table: SettlementTable, id: string) =>
  ctx.db
    .selectFrom(table as "escrow_settlements")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow() as Promise<Row>;

/**
 * Sends (or finds) a recorded settlement on the chain and records its receipt. Returns the row as it
 * stands afterwards: CONFIRMED; PENDING when another sender holds the lease or the chain call failed
 * (last_error says why); FAILED when the chain says it can never happen this way. Throws only when
 * recording fails after the send for another reason than an outage, or when no chain is configured.
 */
export async function runSettlement<Row extends EngineRow, Slot>(
  ctx: ServiceContext,
  way: SettlementWay<Row, Slot>,
  settlementId: string,
  options: { now?: Date } = {},
): Promise<Row> {
  const chain = requireChain(ctx);
  const now = options.now ?? ctx.now();
  const slot = await way.readSlot(settlementId);
  const lease = new Date(now.getTime() + SETTLEMENT_LEASE_MS);
  let claimed: Row | undefined;
  try {
    claimed = (await rowsOf(ctx, way.table)
      .set({ attempts: sql`attempts + 1`, lease_until: lease, updated_at: now })
      .where("id", "=", settlementId)
      .where("status", "=", "PENDING")
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
      .returningAll()
      .executeTakeFirst()) as Row | undefined;
  } catch (error) {
    // The claim may have committed with its answer lost: nothing was sent, so hand it back once
    // the database answers, rather than keep the worker off the row for the whole lease.
    if (isDatabaseUnavailable(error)) handBackUnsentClaim(ctx, way.table, settlementId, lease);
    throw error;
  }
  // Confirmed already, failed, or another sender holds it: report what is there.
  if (!claimed) return readRow<Row>(ctx, way.table, settlementId);

  let result: SettlementResult;
  try {
    // A recipient stored before the payable-address rule (payouts/payable-address.ts) is stopped
    // here when the contract would pay it and the money would be stranded (the token contract).
    const refusal =
      claimed.kind !== "REFUND" && claimed.to_address ? settlementRecipientRefusal(chain, claimed.to_address) : null;
    if (refusal) throw new EscrowError("REVERTED", refusal);
    result = await way.send(chain, slot, claimed);
  } catch (error) {
    // Sent and waiting (no receipt yet, or mined above the chain's finality) is no failure.
    if (error instanceof EscrowError && error.code === "TX_PENDING")
      log.info(
        { ...way.logFields(claimed), reason: error.message },
        "settlement sent; the chain has not settled it yet",
      );
    else log.error({ ...way.logFields(claimed), ...errorFields(error) }, "settlement failed on the chain");
    const message = chainFailureReason(error).slice(0, 500);
    // The chain's state rules this settlement out for good (no deposit, it went the other way, or
    // the contract reverts the call as asked): FAILED with the reason, never retried unchanged. The
    // operator or the dispute's arbiter settles it again to a valid address (escrow/resettle.ts).
    const final = isFinalRefusal(error);
    const backoff = Math.min(MAX_BACKOFF_MS, 10_000 * 2 ** Math.min(claimed.attempts - 1, 10));
    try {
      return (await rowsOf(ctx, way.table)
        .set({
          status: final ? "FAILED" : "PENDING",
          last_error: message,
          lease_until: final ? null : new Date(now.getTime() + backoff),
          updated_at: now,
          ...(final ? { failed_at: now, failed_to_address: claimed.to_address, failed_reason: message } : {}),
        })
        .where("id", "=", claimed.id)
        .returningAll()
        .executeTakeFirstOrThrow()) as Row;
    } catch (recordError) {
      // The database went away between the claim and the send (its transaction could not be kept,
      // so nothing was broadcast): hand the claim back once it answers, not a lease later.
      if (isDatabaseUnavailable(recordError) && claimed.lease_until)
        handBackUnsentClaim(ctx, way.table, claimed.id, claimed.lease_until);
      throw recordError;
    }
  }

  await way.afterSend?.(claimed);

  const sent = claimed;
  const record = () => way.record(chain, sent, result);
  try {
    return await record();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    // The money has moved and the database is away: answer with the pending row, record it later.
    log.warn(
      { ...way.logFields(sent), txHash: result.txHash, reason: (error as Error).message },
      "settlement sent; recording it waits for the database",
    );
    retryInBackground(sent.lease_until?.getTime() ?? Date.now() + SETTLEMENT_LEASE_MS, record, (recordError) =>
      log.warn(
        { ...way.logFields(sent), reason: (recordError as Error).message },
        "settlement receipt not recorded yet",
      ),
    );
    return { ...sent, last_error: "the transaction was sent; its receipt is recorded as soon as the database answers" };
  }
}

export interface SettlementRound {
  confirmed: number;
  pending: number;
  failed: number;
}

/**
 * One round of the settlement worker over one table: the PENDING rows whose lease has run out,
 * never-tried first (rows backing off after a chain failure must not fill the round), of funded
 * jobs only (a job a reorganisation unfunded waits for its new deposit, deposit-watch.ts: a send
 * now would be refused by the contract for an empty slot).
 */
export async function settlementRound<Row extends EngineRow>(
  ctx: ServiceContext,
  table: SettlementTable,
  complete: (id: string) => Promise<Row>,
  options: { now?: Date; limit?: number; only?: string[] } = {},
): Promise<SettlementRound> {
  const now = options.now ?? ctx.now();
  const settlements = table as "escrow_settlements";
  let q = ctx.db
    .selectFrom(settlements)
    .innerJoin("jobs", "jobs.id", `${settlements}.job_id`)
    .select(`${settlements}.id`)
    .where(`${settlements}.status`, "=", "PENDING")
    .where("jobs.escrow_tx_hash", "is not", null)
    .where((eb) => eb.or([eb(`${settlements}.lease_until`, "is", null), eb(`${settlements}.lease_until`, "<=", now)]));
  if (options.only)
    q = options.only.length > 0 ? q.where(`${settlements}.job_id`, "in", options.only) : q.where(sql<boolean>`false`);
  const due = await q
    .orderBy(sql`${sql.ref(`${settlements}.lease_until`)} asc nulls first`)
    .limit(options.limit ?? 20)
    .execute();
  const round: SettlementRound = { confirmed: 0, pending: 0, failed: 0 };
  for (const { id } of due) {
    try {
      const row = await complete(id);
      if (row.status === "CONFIRMED") round.confirmed += 1;
      else if (row.status === "FAILED") round.failed += 1;
      else round.pending += 1;
      if (row.status !== "CONFIRMED" && row.last_error)
        log.warn({ table, settlementId: id, jobId: row.job_id, reason: row.last_error }, "settlement not confirmed");
    } catch (error) {
      round.pending += 1;
      log.warn({ table, settlementId: id, reason: (error as Error).message }, "settlement round failed");
    }
  }
  return round;
}

/**
 * Runs `task` in the background every RECORD_RETRY_MS until it succeeds or `untilMs` passes (the
 * lease ends: the worker's turn then). The one retry loop of a sender whose database went away.
 */
function retryInBackground(
  untilMs: number,
  task: () => Promise<unknown>,
  onError: (error: unknown) => void = () => {},
) {
  const attempt = () => {
    if (Date.now() >= untilMs) return;
    task().catch((error) => {
      onError(error);
      setTimeout(attempt, RECORD_RETRY_MS).unref();
    });
  };
  setTimeout(attempt, RECORD_RETRY_MS).unref();
}

/**
 * Frees a claim this process may have taken but never acted on (its answer was lost): only a row
 * still PENDING, unsent, and holding exactly this claim's lease, so another sender's claim is never
 * touched.
 */
function handBackUnsentClaim(ctx: ServiceContext, table: SettlementTable, settlementId: string, lease: Date) {
  retryInBackground(lease.getTime(), () =>
    rowsOf(ctx, table)
      .set({ lease_until: null })
      .where("id", "=", settlementId)
      .where("status", "=", "PENDING")
      .where("tx_hash", "is", null)
      .where("sent_tx_hash", "is", null)
      .where("lease_until", "=", lease)
      .execute(),
  );
}

/**
 * Confirms a sent row with its receipt, once: only a PENDING row changes (a retry of this process
 * and the worker may both get here; the second finds it CONFIRMED and changes nothing). Call it
 * first in the transaction that records what the receipt changes, and change nothing when
 * `confirmedNow` is false.
 *
 * It locks the job before the row: the order every approval, dispute and release takes (the job
 * row FOR UPDATE, then its settlement). Taking the row first deadlocked a release recorded by one
 * request against a receipt recorded by another (PostgreSQL aborts one of them: a 500).
 */
export async function confirmRow<Row>(
  trx: Transaction<Database>,
  table: SettlementTable,
  claimed: { id: string; job_id: string },
  result: SettlementResult,
  at: Date,
): Promise<{ row: Row; confirmedNow: boolean }> {
  const id = claimed.id;
  await trx.selectFrom("jobs").select("id").where("id", "=", claimed.job_id).forUpdate().execute();
  const confirmed = await trx
    .updateTable(table as "escrow_settlements")
    .set({
      status: "CONFIRMED",
      tx_hash: result.txHash,
      to_address: result.to,
      amount_units: result.amount.toString(),
      fee_units: result.fee.toString(),
      ...(result.payerAmount !== undefined ? { payer_amount_units: result.payerAmount.toString() } : {}),
      last_error:
        result.heldForClaim > 0n
          ? `${result.heldForClaim} units were refused by the token and are held in the contract for ${result.to} to claim`
          : null,
      lease_until: null,
      updated_at: at,
      confirmed_at: at,
    })
    .where("id", "=", id)
    .where("status", "=", "PENDING")
    .returningAll()
    .executeTakeFirst();
  if (confirmed) return { row: confirmed as Row, confirmedNow: true };
  return {
    row: (await trx
      .selectFrom(table as "escrow_settlements")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow()) as Row,
    confirmedNow: false,
  };
}

/**
 * Puts a confirmed row whose transaction a chain reorganisation removed back to PENDING, so that the
 * worker sends it again (once: the contract settles a slot or a part once, and the send finds a
 * re-included transaction). Only while it is still confirmed with that transaction: a second watcher
 * finds it changed. Call it in the transaction that undoes what the receipt changed, after locking
 * the job; change nothing when it answers false.
 */
export async function reopenRow(
  trx: Transaction<Database>,
  table: SettlementTable,
  id: string,
  txHash: string,
  at: Date,
): Promise<boolean> {
  const reopened = await trx
    .updateTable(table as "escrow_settlements")
    .set({
      status: "PENDING",
      tx_hash: null,
      confirmed_at: null,
      lease_until: null,
      updated_at: at,
      last_error: `the confirmed transaction ${txHash} was removed by a chain reorganisation; it is sent again`,
      ...(table === "escrow_settlements" ? { reorg_resent_at: at } : {}),
    })
    .where("id", "=", id)
    .where("status", "=", "CONFIRMED")
    .where("tx_hash", "=", txHash)
    .returning("id")
    .executeTakeFirst();
  return reopened !== undefined;
}

/**
 * Where a settlement's signed transaction is kept before it is broadcast: its own row (whole job or
 * part). Recorded only while the row keeps none (a second sender, whatever its clock says about the
 * lease, finds the first one's transaction instead of signing another), and cleared only while it
 * is still the transaction the chain showed can never be mined.
 */
export function keptInRow(
  ctx: ServiceContext,
  table: SettlementTable,
  row: { id: string; sent_raw_tx: string | null; sent_tx_hash: string | null },
): StoredSend {
  const settlements = () => rowsOf(ctx, table).where("id", "=", row.id);
  return {
    stored: { raw: row.sent_raw_tx as Hex | null, hash: row.sent_tx_hash as Hex | null },
    forget: async (hash) => {
      await settlements().set({ sent_raw_tx: null, sent_tx_hash: null }).where("sent_tx_hash", "=", hash).execute();
    },
    record: async (raw, hash) => {
      assertKept(
        await settlements()
          .set({ sent_raw_tx: raw, sent_tx_hash: hash })
          .where("status", "=", "PENDING")
          .where("sent_tx_hash", "is", null)
          .executeTakeFirst(),
      );
    },
  };
}

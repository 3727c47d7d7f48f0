import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, type Transaction } from "kysely";
import type { Hex } from "viem";
import {
  TransferStateUnknown,
  assertKept,
  sendDurableCall,
  sendDurableUsdcTransfer,
  waitForDurableTransfer,
  type StoredSend,
} from "@/lib/chain/durable-transfer";
import type { ChainConfig } from "@/lib/chain/config";
import { EscrowError, chainFailureReason, isFinalRefusal } from "@/lib/chain/escrow/errors";
import type { SettlementResult } from "@/lib/chain/escrow/settle";
import type { ServiceContext } from "../context";
import { fail } from "../errors";
import { requireChain } from "../context";
import type { Database } from "../db/schema";
import { isDatabaseUnavailable } from "../db/errors";
import { settlementRecipientRefusal } from "../payouts/payable-address";
import { nextAttemptAt, type RetrySchedule } from "../retry-backoff";
import { errorFields, log } from "../log";
import { isStillMined } from "@/lib/chain/escrow/deposit-events";

/**
 * The one engine by which money leaves: a whole job's escrow slot (escrow_settlements,
 * settle-job.ts), one part of a job paid in parts (milestone_settlements, settle-part.ts), the
 * return of a stray deposit to its payer (escrow_deposits, deposit-watch.ts), a managed-wallet
 * withdrawal (wallet_withdrawals, rewards/wallet.ts), a pack's payout to its publisher
 * (eval_pack_payouts, evals/pack-payouts.ts), an x402 payment's transferWithAuthorization
 * (x402_payments, evals/x402.ts) and a reward slot's deposit from the rewards wallet
 * (forum_reward_slots, rewards/campaigns.ts). What differs between them (a "way") is
 * what they send (a contract call, a USDC transfer) and what a receipt changes; the rest is this
 * file's, once:
 *
 * 1. The claim: a lease on a PENDING row (one sender at a time, across instances); a claim whose
 *    answer the database lost is handed back as soon as it answers, not a lease later.
 * 2. The send, through the durable sender (lib/chain/durable-transfer.ts): the signed transaction is
 *    kept in the row before it is broadcast (keptInRow), and an error of the node never decides the
 *    outcome: the chain does.
 * 3. A refusal: FAILED with its reason when the chain rules an escrow settlement out for good
 *    (isFinalRefusal; every FAILED settlement can be acted on: admin/retry-settlement.ts,
 *    escrow/resettle.ts), else PENDING again with a backoff of 10 s doubling up to ten minutes.
 * 4. The receipt, recorded once (only a PENDING row changes); when the database does not answer
 *    after the money moved, the caller gets the pending row (never a 500) and this process keeps
 *    recording every few seconds until the lease runs out; the worker's round finishes it after.
 * 5. A reorganisation that removes a confirmed transaction puts the row back to owed (reopenRow),
 *    keeping the signed transaction, so the next send asks the chain about exactly that one.
 */

/** How long a sender holds a row: more than the chain helpers wait for a receipt (180 s). */
export const SETTLEMENT_LEASE_MS = 5 * 60_000;
/** Retries after a chain failure back off from 10 s up to ten minutes (retry-backoff.ts). */
export const CHAIN_RETRY: RetrySchedule = { firstMs: 10_000, maxMs: 10 * 60_000 };
/** How often a sent settlement's receipt is tried again while the database does not answer. */
const RECORD_RETRY_MS = 2_000;

/** A confirmed transfer is re-checked on chain for this long after its confirmation (reorganisations). */
export const REORG_WATCH_MS = 24 * 60 * 60_000;

/**
 * The escrow's tables (a whole job, a part, a stray deposit's return) and the service wallets' (a
 * withdrawal, a pack payout, an x402 settlement from the operator key, a reward slot's deposit from
 * the rewards wallet).
 */
export type SettlementTable = "escrow_settlements" | "milestone_settlements";
export type TransferTable = "wallet_withdrawals" | "eval_pack_payouts" | "x402_payments" | "forum_reward_slots";
export type EngineTable = SettlementTable | "escrow_deposits" | TransferTable;

/**
 * Where each table keeps the engine's states: the status of a row the engine owes (and claims),
 * the status its receipt confirms, the column holding the confirmed transaction and its time. Most
 * say PENDING and CONFIRMED; a stray deposit's return and an x402 payment keep the words their
 * readers show (the operator's deposits page: REFUND_PENDING, REFUNDED; x402: SETTLED). The state
 * is in `status` but for a reward slot, whose status is its reward's (OPEN, RESERVED, PAID): its
 * funding's is fund_status (PENDING, FUNDED).
 */
const STATES: Record<
  EngineTable,
  { owed: string; confirmed: string; receiptTx: string; confirmedAt: string | null; column?: "fund_status" }
> = {
  escrow_settlements: { owed: "PENDING", confirmed: "CONFIRMED", receiptTx: "tx_hash", confirmedAt: "confirmed_at" },
  milestone_settlements: {
    owed: "PENDING",
    confirmed: "CONFIRMED",
    receiptTx: "tx_hash",
    confirmedAt: "confirmed_at",
  },
  escrow_deposits: {
    owed: "REFUND_PENDING",
    confirmed: "REFUNDED",
    receiptTx: "refund_tx_hash",
    confirmedAt: "refunded_at",
  },
  wallet_withdrawals: {
    owed: "PENDING",
    confirmed: "CONFIRMED",
    receiptTx: "sent_tx_hash",
    confirmedAt: "confirmed_at",
  },
  eval_pack_payouts: { owed: "PENDING", confirmed: "CONFIRMED", receiptTx: "sent_tx_hash", confirmedAt: null },
  x402_payments: { owed: "PENDING", confirmed: "SETTLED", receiptTx: "sent_tx_hash", confirmedAt: "settled_at" },
  forum_reward_slots: {
    owed: "PENDING",
    confirmed: "FUNDED",
    receiptTx: "sent_tx_hash",
    confirmedAt: null,
    column: "fund_status",
  },
};

/** What a settlement does with a slot's money, or a part's: the same three for a whole job and a part. */
export type SettlementKind = "RELEASE" | "REFUND" | "SPLIT";

/** "the escrow is already being …" in a refusal of a settlement of another kind. */
export const SETTLEMENT_KIND_TEXT: Record<SettlementKind, string> = {
  RELEASE: "released to the agent",
  REFUND: "refunded to the payer",
  SPLIT: "split between the agent and the payer",
};

/**
 * Records the intent to settle a job's slot or one part, once, in the caller's transaction (the job,
 * and the part, locked): inserted unless the job (the part) has its row already. A second call of
 * the same kind is answered with the first row; one of another kind is refused (409
 * SETTLEMENT_CONFLICT): a slot or a part moves once, one way.
 */
export async function recordIntent<Row extends { kind: SettlementKind; status: string }>(
  trx: Transaction<Database>,
  table: SettlementTable,
  once: { column: "job_id" | "milestone_id"; value: string; what: string },
  values: { kind: SettlementKind } & Record<string, unknown>,
): Promise<Row> {
  // Both tables carry kind, status and their key; Kysely types one table name at a time.
  const settlements = table as "milestone_settlements";
  const key = once.column as "milestone_id";
  await trx
    .insertInto(settlements)
    .values(values as never)
    .onConflict((oc) => oc.column(key).doNothing())
    .execute();
  const row = await trx.selectFrom(settlements).selectAll().where(key, "=", once.value).executeTakeFirstOrThrow();
  if (row.kind !== values.kind)
    throw fail(
      "SETTLEMENT_CONFLICT",
      `${once.what} is already being ${SETTLEMENT_KIND_TEXT[row.kind]}; it moves once`,
      {
        settlementKind: row.kind,
        settlementStatus: row.status,
      },
    );
  return row as unknown as Row;
}

/** The columns the engine reads and writes: every table it sends from carries them (migrations 0021, 0060, 0105, 0120, 0130). */
export interface EngineRow {
  id: string;
  status: string;
  attempts: number;
  lease_until: Date | null;
  last_error: string | null;
  sent_raw_tx: string | null;
  sent_tx_hash: string | null;
  /** The recipient, where the row names one (an x402 payment's is its authorization's pay_to). */
  to_address?: string | null;
}

/** What a send answers: at least the transaction it is decided by. */
type Sent = { txHash: string };

export interface SettlementWay<Row extends EngineRow, Slot, Result extends Sent> {
  table: EngineTable;
  /** What the send needs, read before the claim: nothing but the chain call stands between the lease and the send. */
  readSlot?: (settlementId: string) => Promise<Slot>;
  send: (chain: ChainConfig, slot: Slot, claimed: Row) => Promise<Result>;
  /** Where a test stops the process between the send and its record. */
  afterSend?: (claimed: Row) => Promise<void> | void;
  /** Records the receipt and what it changes, in one transaction, only while the row is PENDING. */
  record: (chain: ChainConfig, claimed: Row, result: Result) => Promise<Row>;
  /**
   * The escrow's ways: a recipient the contract would strand the money at is refused before the
   * send, and a refusal for good is FAILED. The others back off from every error (a transfer's
   * FAILED, if any, is its receipt's).
   */
  escrow?: boolean;
  /**
   * What a refusal for good (an escrow way's) makes of the row: by default FAILED with its reason,
   * for the operator to act on; a stray deposit's return has nothing left to do (VANISHED, SETTLED).
   */
  refusedForGood?: (error: unknown, reason: string, now: Date) => Record<string, unknown>;
  /** The fields that name the row in the server's log. */
  logFields: (row: Row) => Record<string, unknown>;
}

/** The status of a row the engine owes (and claims) in `table`. */
const owedIn = (table: EngineTable) => STATES[table].owed as "PENDING";
/** The column holding the engine's state of a row of `table` (stateOf reads it). */
const stateColumn = (table: EngineTable) => sql.ref<string>(STATES[table].column ?? "status");
const stateOf = (table: EngineTable, row: EngineRow) =>
  (row as unknown as Record<string, string>)[STATES[table].column ?? "status"];

// Every table carries the engine's columns; Kysely types one table name at a time.
const rowsOf = (db: Kysely<Database>, table: EngineTable) => db.updateTable(table as "escrow_settlements");
const readRow = <Row>(db: Kysely<Database>, table: EngineTable, id: string) =>
  db
    .selectFrom(table as "escrow_settlements")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow() as Promise<Row>;

/**
 * Sends (or finds) a recorded settlement or transfer on the chain and records its receipt. Returns
 * the row as it stands afterwards: CONFIRMED (or what the way's receipt made it); PENDING when
 * another sender holds the lease or the chain call failed (last_error says why); FAILED when the
 * chain says it can never happen this way. Throws only when recording fails after the send for
 * another reason than an outage, or when no chain is configured.
 */
export async function runSettlement<Row extends EngineRow, Slot, Result extends Sent>(
  ctx: ServiceContext,
  way: SettlementWay<Row, Slot, Result>,
  settlementId: string,
  /** heldLease: the lease the caller put on the row when it wrote it (a campaign's creation), taken as free. */
  options: { now?: Date; heldLease?: Date } = {},
): Promise<Row> {
  const chain = requireChain(ctx);
  const now = options.now ?? ctx.now();
  const slot = (await way.readSlot?.(settlementId)) as Slot;
  const lease = new Date(now.getTime() + SETTLEMENT_LEASE_MS);
  let claimed: Row | undefined;
  try {
    claimed = (await rowsOf(ctx.db, way.table)
      .set({ attempts: sql`attempts + 1`, lease_until: lease, updated_at: now })
      .where("id", "=", settlementId)
      .where(stateColumn(way.table), "=", owedIn(way.table))
      .where((eb) =>
        eb.or([
          eb("lease_until", "is", null),
          eb("lease_until", "<=", now),
          ...(options.heldLease ? [eb("lease_until", "=", options.heldLease)] : []),
        ]),
      )
      .returningAll()
      .executeTakeFirst()) as Row | undefined;
  } catch (error) {
    // The claim may have committed with its answer lost: nothing was sent, so hand it back once
    // the database answers, rather than keep the worker off the row for the whole lease.
    if (isDatabaseUnavailable(error)) handBackUnsentClaim(ctx, way.table, settlementId, lease);
    throw error;
  }
  // Confirmed already, failed, or another sender holds it: report what is there.
  if (!claimed) return readRow<Row>(ctx.db, way.table, settlementId);

  let result: Result;
  try {
    // A recipient stored before the payable-address rule (payouts/payable-address.ts) is stopped
    // here when the contract would pay it and the money would be stranded (the token contract).
    const refusal =
      way.escrow && "kind" in claimed && claimed.kind !== "REFUND" && claimed.to_address
        ? settlementRecipientRefusal(chain, claimed.to_address)
        : null;
    if (refusal) throw new EscrowError("REVERTED", refusal);
    result = await way.send(chain, slot, claimed);
  } catch (error) {
    // Sent and waiting (no receipt yet, or mined above the chain's finality) is no failure.
    if ((error instanceof EscrowError && error.code === "TX_PENDING") || error instanceof TransferStateUnknown)
      log.info(
        { ...way.logFields(claimed), reason: error.message },
        "settlement sent; the chain has not settled it yet",
      );
    else log.error({ ...way.logFields(claimed), ...errorFields(error) }, "settlement failed on the chain");
    const message = chainFailureReason(error).slice(0, 500);
    // The chain's state rules this settlement out for good (no deposit, it went the other way, or
    // the contract reverts the call as asked): FAILED with the reason, never retried unchanged. The
    // operator or the dispute's arbiter settles it again to a valid address (escrow/resettle.ts).
    const final = way.escrow === true && isFinalRefusal(error);
    try {
      // Only while the row is still this claim's: a second claimant (an instance whose clock runs
      // ahead took the lease) may have sent and recorded it meanwhile; its answer stands.
      const forGood = () =>
        way.refusedForGood?.(error, message, now) ?? {
          status: "FAILED",
          failed_at: now,
          failed_to_address: claimed.to_address,
          failed_reason: message,
          lease_until: null,
        };
      const refused = (await rowsOf(ctx.db, way.table)
        .set({
          last_error: message,
          lease_until: nextAttemptAt(now, claimed.attempts, CHAIN_RETRY),
          updated_at: now,
          ...(final ? forGood() : {}),
        })
        .where("id", "=", claimed.id)
        .where(stateColumn(way.table), "=", owedIn(way.table))
        .where("lease_until", "=", lease)
        .returningAll()
        .executeTakeFirst()) as Row | undefined;
      return refused ?? (await readRow<Row>(ctx.db, way.table, claimed.id));
    } catch (recordError) {
      // The database went away between the claim and the send (its transaction could not be kept,
      // so nothing was broadcast): hand the claim back once it answers, not a lease later.
      if (isDatabaseUnavailable(recordError)) handBackUnsentClaim(ctx, way.table, claimed.id, lease);
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
 * One round of a worker over the rows its query found due (dueSettlements for the escrow tables):
 * each is sent or confirmed through the engine; what stays unconfirmed is logged with its reason.
 * Gives the counts and the rows as they stand afterwards (a row whose round failed is not among them).
 */
export async function settlementRound<Row extends EngineRow, Slot, Result extends Sent>(
  ctx: ServiceContext,
  way: SettlementWay<Row, Slot, Result>,
  due: Array<{ id: string }>,
  options: { now?: Date } = {},
): Promise<SettlementRound & { rows: Row[] }> {
  const round = { confirmed: 0, pending: 0, failed: 0, rows: [] as Row[] };
  for (const { id } of due) {
    try {
      const row = await runSettlement(ctx, way, id, options);
      round.rows.push(row);
      const state = stateOf(way.table, row);
      if (state === STATES[way.table].confirmed) round.confirmed += 1;
      else if (state === owedIn(way.table)) round.pending += 1;
      else round.failed += 1;
      if (state !== STATES[way.table].confirmed && row.last_error)
        log.warn({ table: way.table, ...way.logFields(row), reason: row.last_error }, "settlement not confirmed");
    } catch (error) {
      round.pending += 1;
      log.warn({ table: way.table, settlementId: id, reason: (error as Error).message }, "settlement round failed");
    }
  }
  return round;
}

/** A worker round's options over escrow settlements (dueSettlements). */
export interface EscrowRoundOptions {
  now?: Date;
  limit?: number;
  /** Only the settlements of these jobs: for tests that move the clock on a database other suites share. */
  only?: string[];
}

/**
 * An escrow way's two entries, the same for whole jobs (settle-job.ts) and parts (settle-part.ts):
 * `complete` sends (or finds) one recorded settlement and records its receipt, for the request
 * that recorded it; `finishPending` is the worker's round over those left PENDING whose lease ran
 * out (a crash between sending and recording, a chain outage). Several instances may run a round
 * at once: the lease is taken with a conditional update, so each row has one sender.
 */
export function escrowWay<Row extends EngineRow, Slot, Result extends Sent>(
  table: SettlementTable,
  wayOf: (ctx: ServiceContext, at?: Date) => SettlementWay<Row, Slot, Result>,
) {
  return {
    complete: (ctx: ServiceContext, settlementId: string, options: { now?: Date } = {}): Promise<Row> =>
      runSettlement(ctx, wayOf(ctx, options.now), settlementId, options),
    finishPending: async (ctx: ServiceContext, options: EscrowRoundOptions = {}) =>
      settlementRound(ctx, wayOf(ctx, options.now), await dueSettlements(ctx, table, options), options),
  };
}

/**
 * The escrow settlements due in a round of one table: PENDING rows whose lease has run out,
 * never-tried first (rows backing off after a chain failure must not fill the round), of funded
 * jobs only (a job a reorganisation unfunded waits for its new deposit, deposit-watch.ts: a send
 * now would be refused by the contract for an empty slot).
 */
export function dueSettlements(
  ctx: ServiceContext,
  table: SettlementTable,
  options: EscrowRoundOptions = {},
): Promise<Array<{ id: string }>> {
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
  return q
    .orderBy(sql`${sql.ref(`${settlements}.lease_until`)} asc nulls first`)
    .limit(options.limit ?? 20)
    .execute();
}

/**
 * The rows due in a round of a table the engine sends from outside a job's escrow (a stray
 * deposit's return, a service wallet's transfer): owed, their lease free (new, or left by a crash,
 * an outage or a backoff), never tried first, then those whose wait ran out longest ago; of this
 * chain (`onChain`, the table's own test of it); only `only` (ids) when given, for tests that move
 * the clock on a database other suites share.
 */
function dueRows<T extends Exclude<EngineTable, SettlementTable>>(
  ctx: ServiceContext,
  table: T,
  onChain: (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>,
  options: { now?: Date; only?: string[] } = {},
): Promise<Array<{ id: string }>> {
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom(table as "wallet_withdrawals")
    .select("id")
    .where(stateColumn(table), "=", owedIn(table))
    // Kysely types one table name at a time: the caller's test is typed against its own table.
    .where(onChain as unknown as (eb: ExpressionBuilder<Database, "wallet_withdrawals">) => Expression<SqlBool>)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]));
  if (options.only) q = options.only.length ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
  return q
    .orderBy(sql`lease_until asc nulls first`)
    .orderBy("updated_at")
    .limit(20)
    .execute();
}

/** One worker's round over a table outside a job's escrow: its due rows (dueRows), each through the engine. */
export async function settleDue<
  T extends Exclude<EngineTable, SettlementTable>,
  Row extends EngineRow,
  Slot,
  Result extends Sent,
>(
  ctx: ServiceContext,
  table: T,
  way: SettlementWay<Row, Slot, Result>,
  onChain: (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>,
  options: { now?: Date; only?: string[] } = {},
): Promise<SettlementRound & { rows: Row[] }> {
  return settlementRound(ctx, way, await dueRows(ctx, table, onChain, options), options);
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
function handBackUnsentClaim(ctx: ServiceContext, table: EngineTable, settlementId: string, lease: Date) {
  retryInBackground(lease.getTime(), () =>
    rowsOf(ctx.db, table)
      .set({ lease_until: null })
      .where("id", "=", settlementId)
      .where(stateColumn(table), "=", owedIn(table))
      .where("sent_tx_hash", "is", null)
      .where("lease_until", "=", lease)
      .execute(),
  );
}

/**
 * Confirms a sent row with its receipt, once: only a PENDING row changes (a retry of this process
 * and the worker may both get here; the second finds it CONFIRMED and changes nothing). Call it
 * first in the transaction that records what the receipt changes, and change nothing when
 * `changed` is false.
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
): Promise<{ row: Row; changed: boolean }> {
  await trx.selectFrom("jobs").select("id").where("id", "=", claimed.job_id).forUpdate().execute();
  return recordOnce<Row>(trx, table, claimed.id, {
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
  });
}

/**
 * A sent settlement's receipt recorded once, with what it changes, in one transaction: confirmRow
 * (the job, then the row), then `changes` (the job's or the part's new state, the events) only when
 * this call confirmed it; a second caller (a retry, the worker) gets the confirmed row and changes
 * nothing. `at`: the time recorded (the caller's clock, or a test's).
 */
export function recordReceiptOnce<Row extends { id: string; job_id: string }>(
  ctx: ServiceContext,
  table: SettlementTable,
  claimed: Row,
  result: SettlementResult,
  at: Date,
  changes: (trx: Transaction<Database>) => Promise<void>,
): Promise<Row> {
  return ctx.db.transaction().execute(async (trx) => {
    const { row, changed } = await confirmRow<Row>(trx, table, claimed, result, at);
    if (changed) await changes(trx);
    return row;
  });
}

/**
 * Puts a confirmed row whose transaction a chain reorganisation removed back to owed, so that the
 * worker sends it again, once: the signed transaction stays kept, and the next send asks the chain
 * about exactly that one (re-broadcast while its nonce is free; the contract settles a slot or a
 * part once, and a transfer's nonce is mined once). Only while it is still confirmed with that
 * transaction: a second watcher finds it changed. Call it in the transaction that undoes what the
 * receipt changed (after locking the job, for the escrow's); change nothing when it answers false.
 */
export async function reopenRow(
  trx: Kysely<Database>,
  table: EngineTable,
  id: string,
  txHash: string,
  at: Date,
): Promise<boolean> {
  const { owed, confirmed, receiptTx, confirmedAt } = STATES[table];
  const reopened = await rowsOf(trx, table)
    .set({
      [STATES[table].column ?? "status"]: owed,
      // The kept transaction is the receipt's in the service wallets' tables: it stays (see above).
      ...(receiptTx === "sent_tx_hash" ? {} : { [receiptTx]: null }),
      ...(confirmedAt ? { [confirmedAt]: null } : {}),
      lease_until: null,
      updated_at: at,
      last_error: `the confirmed transaction ${txHash} was removed by a chain reorganisation; it is sent again`,
      ...(table === "escrow_settlements" ? { reorg_resent_at: at } : {}),
    })
    .where("id", "=", id)
    .where(stateColumn(table), "=", confirmed)
    .where(sql.ref(receiptTx), "=", txHash)
    .returning("id")
    .executeTakeFirst();
  return reopened !== undefined;
}

/**
 * The reorganisation watcher of the service wallets' transfers (withdrawals, x402 settlements): a
 * confirmed transfer of this chain (`onChainOf`: its column and value) whose kept transaction the
 * chain no longer has is reopened (reopenRow), and the table's worker sends exactly that
 * transaction again. Returns the ids put back.
 */
export async function watchConfirmedTransfers(
  ctx: ServiceContext,
  table: "wallet_withdrawals" | "x402_payments",
  onChainOf: (chain: ChainConfig) => { column: "chain_key" | "network"; value: string },
  options: { now?: Date; only?: string[] } = {},
): Promise<string[]> {
  const chain = ctx.config.chain;
  if (!chain) return [];
  const onChain = onChainOf(chain);
  const now = options.now ?? ctx.now();
  const { confirmed, confirmedAt } = STATES[table];
  let q = ctx.db
    .selectFrom(table as "wallet_withdrawals")
    .select(["id", "sent_tx_hash"])
    .where("status", "=", confirmed as "CONFIRMED")
    .where("sent_tx_hash", "is not", null)
    .where(sql.ref(onChain.column), "=", onChain.value)
    .where(sql.ref(confirmedAt!), ">", new Date(now.getTime() - REORG_WATCH_MS));
  if (options.only) q = options.only.length ? q.where("id", "in", options.only) : q.where(sql<boolean>`false`);
  const reopened: string[] = [];
  for (const row of await q.orderBy(sql.ref(confirmedAt!), "desc").limit(200).execute()) {
    if (await isStillMined(chain, row.sent_tx_hash!)) continue;
    if (await reopenRow(ctx.db, table, row.id, row.sent_tx_hash!, now)) {
      log.warn(
        { table, id: row.id, txHash: row.sent_tx_hash },
        "a reorganisation removed a transfer; it is sent again",
      );
      reopened.push(row.id);
    }
  }
  return reopened;
}

/**
 * Where a settlement's or transfer's signed transaction is kept before it is broadcast: its own
 * row. Recorded only while the row keeps none (a second sender, whatever its clock says about the
 * lease, finds the first one's transaction instead of signing another), and cleared only while it
 * is still the transaction the chain showed can never be mined.
 */
export function keptInRow(
  ctx: ServiceContext,
  table: EngineTable,
  row: { id: string; sent_raw_tx: string | null; sent_tx_hash: string | null },
): StoredSend {
  const settlements = () => rowsOf(ctx.db, table).where("id", "=", row.id);
  return {
    stored: { raw: row.sent_raw_tx as Hex | null, hash: row.sent_tx_hash as Hex | null },
    forget: async (hash) => {
      await settlements().set({ sent_raw_tx: null, sent_tx_hash: null }).where("sent_tx_hash", "=", hash).execute();
    },
    record: async (raw, hash) => {
      assertKept(
        await settlements()
          .set({ sent_raw_tx: raw, sent_tx_hash: hash })
          .where(stateColumn(table), "=", owedIn(table))
          .where("sent_tx_hash", "is", null)
          .executeTakeFirst(),
      );
    },
  };
}

/** A service-wallet transfer's outcome, as the chain decided it: mined, and whether it reverted. */
export type TransferSent = { txHash: Hex; reverted: boolean };

/**
 * The send of a USDC transfer from one of the service's wallets (a withdrawal, a pack payout, an
 * x402 payment's transferWithAuthorization), or of another contract call of one (a reward slot's
 * depositWithPermit into the escrow): the
 * durable sender keeps it in the row before it is broadcast, and the receipt of exactly that
 * transaction decides. A receipt the RPC did not deliver is unknown, never "not mined": it throws,
 * and the engine backs off with the transaction kept for the next try to ask about.
 */
export async function sendKeptTransfer(
  ctx: ServiceContext,
  table: TransferTable,
  chain: ChainConfig,
  claimed: EngineRow,
  transfer: {
    privateKey: Hex;
    amount: bigint;
    /** Another call of the token than transfer(to, amount): an x402 payment's transferWithAuthorization. */
    data?: Hex;
    /** The contract `data` calls when it is not the token (a slot's deposit: the escrow). */
    contract?: Hex;
    beforeSigning?: () => Promise<void>;
    beforeBroadcast?: () => Promise<void>;
    /** false only for an x402 payment, answered once mined (evals/x402.ts says why). */
    untilFinal?: boolean;
  },
): Promise<TransferSent> {
  const kept = keptInRow(ctx, table, claimed);
  const send = {
    chain,
    privateKey: transfer.privateKey,
    ...kept,
    beforeSigning: transfer.beforeSigning,
    record: async (raw: Hex, signedHash: Hex) => {
      await kept.record(raw, signedHash);
      await transfer.beforeBroadcast?.();
    },
  };
  const hash =
    transfer.contract && transfer.data
      ? await sendDurableCall({ ...send, contract: transfer.contract, data: transfer.data })
      : await sendDurableUsdcTransfer({
          ...send,
          to: claimed.to_address as Hex,
          amount: transfer.amount,
          data: transfer.data,
        });
  const receipt = await waitForDurableTransfer(chain, hash, undefined, { untilFinal: transfer.untilFinal });
  return { txHash: hash, reverted: receipt.status !== "success" };
}

/**
 * Records a receipt on its row, once: only a PENDING row (still keeping `sentTxHash`, when given)
 * changes. A retry of this process and the worker may both get here; the second finds it changed,
 * changes nothing, and is answered with the row as it stands. Call it first in the transaction
 * that records what the receipt changes, and change nothing more when `changed` is false.
 */
export async function recordOnce<Row>(
  db: Kysely<Database>,
  table: EngineTable,
  id: string,
  set: Record<string, unknown>,
  sentTxHash?: string,
): Promise<{ row: Row; changed: boolean }> {
  let q = rowsOf(db, table).set(set).where("id", "=", id).where(stateColumn(table), "=", owedIn(table));
  if (sentTxHash) q = q.where("sent_tx_hash", "=", sentTxHash);
  const changed = (await q.returningAll().executeTakeFirst()) as Row | undefined;
  return changed ? { row: changed, changed: true } : { row: await readRow<Row>(db, table, id), changed: false };
}

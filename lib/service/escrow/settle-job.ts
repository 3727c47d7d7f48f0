import { fail } from "../errors";
import { sql, type Selectable, type Transaction } from "kysely";
import type { Address, Hex } from "viem";
import { assertKept, type StoredSend } from "@/lib/chain/durable-transfer";
import type { ChainConfig } from "@/lib/chain/config";
import { EscrowError, chainFailureReason, isFinalRefusal } from "@/lib/chain/escrow/errors";
import { refundEscrow, releaseEscrow, splitEscrow, type SettlementResult } from "@/lib/chain/escrow/settle";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { Database, EscrowSettlementsTable } from "../db/schema";
import { formatUsdc } from "@/lib/chain/units";
import { publishEvent } from "../events/publish-event";
import { jobRecipients } from "../events/recipients";
import { settlementRecipientRefusal } from "../payouts/payable-address";
import { isDatabaseUnavailable } from "../db/errors";
import { errorFields, log } from "../log";

/**
 * Money leaves a job's escrow exactly once, as a RELEASE to the agent's wallet (budget less the
 * contract's fee) or a REFUND of the whole deposit to its payer. The escrow keeps a slot per
 * (escrowJobId, payer); the job's slot is the one of jobs.escrow_payer, the payer of the Deposited
 * event verified at registration, so another payer's deposit under the same id is never touched.
 *
 * 1. recordSettlement, in the caller's transaction with the job row locked: a PENDING row in
 *    escrow_settlements. Its unique job_id makes a second attempt find the first row, and a
 *    release and a refund of one job exclude each other.
 * 2. completeSettlement: takes a lease on the row (one sender at a time, across instances), calls
 *    releaseEscrow/refundEscrow, which are idempotent against the chain (an escrow already settled
 *    returns its existing transaction instead of sending one), then records the receipt and
 *    updates the job in one transaction (release: COMPLETED, completedAt, releaseTxHash; refund:
 *    refundTxHash).
 *    A SPLIT (a dispute ruling, disputes/rule-dispute.ts) pays agent_share_units less the fee to
 *    the agent and the rest to the payer in one transaction (contract settleSplit); the job
 *    becomes COMPLETED with releaseTxHash.
 * 3. If the process dies between sending and recording, the row stays PENDING; when its lease has
 *    run out the settlement worker repeats step 2, gets the same transaction back from the chain,
 *    and records it. Money moves once.
 * 4. If the database does not answer when the receipt is to be recorded (an outage after the send),
 *    the caller is answered with the row as it was (PENDING: the money is on its way, never a 500)
 *    and this process keeps trying to record the receipt every few seconds until its lease runs
 *    out, so the database catches up as soon as it answers again, not a lease later. Recording is
 *    conditional on the row still being PENDING, so it happens once whoever gets there first.
 *
 * What a chain call failed with is stored and shown as a short reason (chainFailureReason: no RPC
 * URL, key or call data); the whole error goes to the server log.
 */

export type SettlementKind = "RELEASE" | "REFUND" | "SPLIT";
export type SettlementRow = Selectable<EscrowSettlementsTable>;
type Trx = Transaction<Database>;

/** How long a sender holds a row: more than the chain helpers wait for a receipt (180 s). */
export const SETTLEMENT_LEASE_MS = 5 * 60_000;
/** Retries after a chain failure back off from 10 s up to this. */
const MAX_BACKOFF_MS = 10 * 60_000;

const KIND_TEXT: Record<SettlementKind, string> = {
  RELEASE: "released to the agent",
  REFUND: "refunded to the payer",
  SPLIT: "split between the agent and the payer",
};

/**
 * Records the intent to settle a job's escrow, once. Call it inside the transaction that changes
 * the job (job row locked). A second call of the same kind returns the existing row; a call of
 * the other kind is refused (409 SETTLEMENT_CONFLICT).
 */
export async function recordSettlement(
  trx: Trx,
  jobId: string,
  kind: SettlementKind,
  to: Address | null,
  split?: { agentShareUnits: bigint },
): Promise<SettlementRow> {
  if ((kind === "SPLIT") !== (split !== undefined))
    throw new Error("a SPLIT settlement, and only one, names the agent's share");
  await trx
    .insertInto("escrow_settlements")
    .values({
      job_id: jobId,
      kind,
      status: "PENDING",
      to_address: to,
      ...(split ? { agent_share_units: split.agentShareUnits.toString() } : {}),
    })
    .onConflict((oc) => oc.column("job_id").doNothing())
    .execute();
  const row = await trx
    .selectFrom("escrow_settlements")
    .selectAll()
    .where("job_id", "=", jobId)
    .executeTakeFirstOrThrow();
  if (row.kind !== kind) {
    throw fail("SETTLEMENT_CONFLICT", `the escrow of this job is already being ${KIND_TEXT[row.kind]}; it moves once`, {
      settlementKind: row.kind,
      settlementStatus: row.status,
    });
  }
  return row;
}

/**
 * Sends (or finds) a recorded settlement on the chain and records its receipt. Returns the row as
 * it stands afterwards: CONFIRMED; PENDING when another sender holds the lease or the chain call
 * failed (last_error says why; the worker retries with backoff); FAILED when the chain says it can
 * never happen this way. Throws only when recording fails after the send (the worker then
 * finishes it) or when no chain is configured.
 */
export async function completeSettlement(
  ctx: ServiceContext,
  settlementId: string,
  options: { now?: Date } = {},
): Promise<SettlementRow> {
  const chain = requireChain(ctx);
  const now = options.now ?? ctx.now();
  // The job's slot is read before the claim, so that nothing but the chain call stands between
  // taking the lease and sending: a database that stops answering after the claim would otherwise
  // leave the settlement leased, unsent, until the lease ran out.
  const job = await ctx.db
    .selectFrom("escrow_settlements")
    .innerJoin("jobs", "jobs.id", "escrow_settlements.job_id")
    .select(["jobs.escrow_job_id", "jobs.escrow_payer"])
    .where("escrow_settlements.id", "=", settlementId)
    .executeTakeFirstOrThrow();
  const lease = new Date(now.getTime() + SETTLEMENT_LEASE_MS);
  let claimed: SettlementRow | undefined;
  try {
    claimed = await ctx.db
      .updateTable("escrow_settlements")
      .set({ attempts: sql`attempts + 1`, lease_until: lease, updated_at: now })
      .where("id", "=", settlementId)
      .where("status", "=", "PENDING")
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]))
      .returningAll()
      .executeTakeFirst();
  } catch (error) {
    // The claim may have committed with its answer lost: nothing was sent, so hand it back once
    // the database answers, rather than keep the worker off the settlement for the whole lease.
    if (isDatabaseUnavailable(error)) handBackUnsentClaim(ctx, settlementId, lease);
    throw error;
  }
  if (!claimed) {
    // Confirmed already, failed, or another sender holds it: report what is there.
    return ctx.db.selectFrom("escrow_settlements").selectAll().where("id", "=", settlementId).executeTakeFirstOrThrow();
  }

  let result: SettlementResult;
  try {
    // A recipient stored before the payable-address rule (payouts/payable-address.ts) is stopped
    // here when the contract would pay it and the money would be stranded (the token contract).
    const refusal =
      claimed.kind !== "REFUND" && claimed.to_address ? settlementRecipientRefusal(chain, claimed.to_address) : null;
    if (refusal) throw new EscrowError("REVERTED", refusal);
    result = await settleOnChain(ctx, chain, job, claimed);
  } catch (error) {
    log.error({ jobId: claimed.job_id, kind: claimed.kind, ...errorFields(error) }, "settlement failed on the chain");
    const message = chainFailureReason(error).slice(0, 500);
    // The chain's state rules this settlement out for good (no deposit, it went the other way, or
    // the contract reverts the call as asked): FAILED with the reason, never retried unchanged. The
    // operator or the dispute's arbiter settles it again to a valid address (escrow/resettle.ts).
    const final = isFinalRefusal(error);
    const backoff = Math.min(MAX_BACKOFF_MS, 10_000 * 2 ** Math.min(claimed.attempts - 1, 10));
    try {
      return await ctx.db
        .updateTable("escrow_settlements")
        .set({
          status: final ? "FAILED" : "PENDING",
          last_error: message,
          lease_until: final ? null : new Date(now.getTime() + backoff),
          updated_at: now,
          ...(final ? { failed_at: now, failed_to_address: claimed.to_address, failed_reason: message } : {}),
        })
        .where("id", "=", claimed.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    } catch (recordError) {
      // The database went away between the claim and the send (its transaction could not be kept,
      // so nothing was broadcast): hand the claim back once it answers, not a lease later.
      if (isDatabaseUnavailable(recordError) && claimed.lease_until)
        handBackUnsentClaim(ctx, claimed.id, claimed.lease_until);
      throw recordError;
    }
  }

  await ctx.crashPoints?.afterSettlementSend?.(claimed.job_id);

  const record = () => recordReceipt(ctx, chain, claimed, result, options.now);
  try {
    return await record();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    // The money has moved and the database is away: answer with the pending row, record it later.
    log.warn(
      { jobId: claimed.job_id, kind: claimed.kind, txHash: result.txHash, reason: (error as Error).message },
      "settlement sent; recording it waits for the database",
    );
    keepRecording(claimed, record);
    return {
      ...claimed,
      last_error: "the transaction was sent; its receipt is recorded as soon as the database answers",
    };
  }
}

/** How often a sent settlement's receipt is tried again while the database does not answer. */
const RECORD_RETRY_MS = 2_000;

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
function handBackUnsentClaim(ctx: ServiceContext, settlementId: string, lease: Date) {
  retryInBackground(lease.getTime(), () =>
    ctx.db
      .updateTable("escrow_settlements")
      .set({ lease_until: null })
      .where("id", "=", settlementId)
      .where("status", "=", "PENDING")
      .where("tx_hash", "is", null)
      .where("sent_tx_hash", "is", null)
      .where("lease_until", "=", lease)
      .execute(),
  );
}

/** Retries recording until it succeeds or the row's lease ends. */
function keepRecording(claimed: SettlementRow, record: () => Promise<SettlementRow>) {
  retryInBackground(claimed.lease_until?.getTime() ?? Date.now() + SETTLEMENT_LEASE_MS, record, (error) =>
    log.warn(
      { jobId: claimed.job_id, kind: claimed.kind, reason: (error as Error).message },
      "settlement receipt not recorded yet",
    ),
  );
}

/**
 * Records a sent settlement's receipt and updates the job, in one transaction, once: the row must
 * still be PENDING (a retry of this process and the worker may both get here; the second finds it
 * CONFIRMED and changes nothing).
 */
async function recordReceipt(
  ctx: ServiceContext,
  chain: ChainConfig,
  claimed: SettlementRow,
  result: SettlementResult,
  at?: Date,
): Promise<SettlementRow> {
  const recordedAt = at ?? ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const confirmed = await trx
      .updateTable("escrow_settlements")
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
        updated_at: recordedAt,
        confirmed_at: recordedAt,
      })
      .where("id", "=", claimed.id)
      .where("status", "=", "PENDING")
      .returningAll()
      .executeTakeFirst();
    if (!confirmed)
      return trx.selectFrom("escrow_settlements").selectAll().where("id", "=", claimed.id).executeTakeFirstOrThrow();
    const parties = await trx
      .selectFrom("jobs")
      .select(["poster_id", "agent_id"])
      .where("id", "=", claimed.job_id)
      .executeTakeFirstOrThrow();
    if (claimed.kind === "RELEASE" || claimed.kind === "SPLIT") {
      await trx
        .updateTable("jobs")
        .set({
          release_tx_hash: result.txHash,
          status: "COMPLETED",
          completed_at: recordedAt,
          release_held_reason: null,
          updated_at: recordedAt,
        })
        .where("id", "=", claimed.job_id)
        .execute();
      // Announced with the confirmation it describes, so a receiver never hears of money that did not move.
      await publishEvent(trx, {
        type: "job.paid",
        jobId: claimed.job_id,
        to: await jobRecipients(trx, parties),
        data: {
          jobId: claimed.job_id,
          agentId: parties.agent_id,
          net: formatUsdc(result.amount),
          fee: formatUsdc(result.fee),
          txHash: result.txHash,
          to: result.to,
          chainId: chain.chainId,
          // A dispute ruling's split: the rest went back to the payer in the same transaction.
          ...(result.payerAmount !== undefined ? { split: true, payerRefund: formatUsdc(result.payerAmount) } : {}),
        },
      });
    } else {
      await trx
        .updateTable("jobs")
        .set({ refund_tx_hash: result.txHash, updated_at: recordedAt })
        .where("id", "=", claimed.job_id)
        .execute();
      await publishEvent(trx, {
        type: "job.refunded",
        jobId: claimed.job_id,
        to: await jobRecipients(trx, parties),
        data: {
          jobId: claimed.job_id,
          amount: formatUsdc(result.amount),
          txHash: result.txHash,
          to: result.to,
          chainId: chain.chainId,
        },
      });
    }
    return confirmed;
  });
}

/**
 * Where a settlement's signed transaction is kept before it is broadcast: its own row (whole job or
 * part). Recorded only while the row keeps none (a second sender, whatever its clock says about the
 * lease, finds the first one's transaction instead of signing another), and cleared only while it
 * is still the transaction the chain showed can never be mined.
 */
export function keptInRow(
  ctx: ServiceContext,
  table: "escrow_settlements" | "milestone_settlements",
  row: { id: string; sent_raw_tx: string | null; sent_tx_hash: string | null },
): StoredSend {
  // Both tables carry the same columns (migration 0105); Kysely types one table name at a time.
  const settlements = () => ctx.db.updateTable(table as "escrow_settlements").where("id", "=", row.id);
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

function settleOnChain(
  ctx: ServiceContext,
  chain: ChainConfig,
  job: { escrow_job_id: string; escrow_payer: string | null },
  row: SettlementRow,
): Promise<SettlementResult> {
  // A funded job always has its payer; without one there is no slot to settle.
  if (!job.escrow_payer) throw new EscrowError("NOT_FUNDED", "the job has no registered deposit (no escrow payer)");
  const slot = {
    config: chain,
    escrowJobId: job.escrow_job_id,
    payer: job.escrow_payer as Address,
    durable: keptInRow(ctx, "escrow_settlements", row),
  };
  if (row.kind === "RELEASE") {
    if (!row.to_address) throw new EscrowError("TX_FAILED", "the release has no recipient address");
    return releaseEscrow({ ...slot, to: row.to_address as Address });
  }
  if (row.kind === "SPLIT") {
    if (!row.to_address || row.agent_share_units === null)
      throw new EscrowError("TX_FAILED", "the split has no agent address or share");
    return splitEscrow({ ...slot, agent: row.to_address as Address, agentShare: BigInt(row.agent_share_units) });
  }
  return refundEscrow(slot);
}

/**
 * Records and completes a settlement for a job whose state the caller has already changed (or
 * repeats one): a second call returns the recorded row, CONFIRMED, without moving anything.
 */
export async function settleJob(
  ctx: ServiceContext,
  jobId: string,
  kind: SettlementKind,
  to?: Address,
): Promise<SettlementRow> {
  const row = await ctx.db.transaction().execute((trx) => recordSettlement(trx, jobId, kind, to ?? null));
  if (row.status !== "PENDING") return row;
  return completeSettlement(ctx, row.id);
}

export interface SettlementRound {
  confirmed: number;
  pending: number;
  failed: number;
}

/**
 * One round of the settlement worker: finishes PENDING settlements whose lease has run out (a
 * crash between sending and recording, a chain outage). Several instances may run it at once: the
 * lease is taken with a conditional update, so each row has one sender.
 */
export async function finishPendingSettlements(
  ctx: ServiceContext,
  options: {
    now?: Date;
    limit?: number;
    /** Only the settlements of these jobs: for tests that move the clock on a database other suites share. */
    only?: string[];
  } = {},
): Promise<SettlementRound> {
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("escrow_settlements")
    .innerJoin("jobs", "jobs.id", "escrow_settlements.job_id")
    .select("escrow_settlements.id")
    .where("escrow_settlements.status", "=", "PENDING")
    // A job a reorganisation unfunded waits for its new deposit (deposit-watch.ts): a send now
    // would be refused by the contract for an empty slot.
    .where("jobs.escrow_tx_hash", "is not", null)
    .where((eb) =>
      eb.or([eb("escrow_settlements.lease_until", "is", null), eb("escrow_settlements.lease_until", "<=", now)]),
    );
  if (options.only)
    q =
      options.only.length > 0 ? q.where("escrow_settlements.job_id", "in", options.only) : q.where(sql<boolean>`false`);
  // Never tried first (PostgreSQL sorts nulls last by default): settlements backing off after a chain
  // failure must not fill the round ahead of new ones.
  const due = await q
    .orderBy(sql`escrow_settlements.lease_until asc nulls first`)
    .limit(options.limit ?? 20)
    .execute();
  const round: SettlementRound = { confirmed: 0, pending: 0, failed: 0 };
  for (const { id } of due) {
    try {
      const row = await completeSettlement(ctx, id, options.now ? { now: options.now } : {});
      if (row.status === "CONFIRMED") round.confirmed += 1;
      else if (row.status === "FAILED") round.failed += 1;
      else round.pending += 1;
      if (row.status !== "CONFIRMED" && row.last_error)
        log.warn({ jobId: row.job_id, kind: row.kind, reason: row.last_error }, "settlement not confirmed");
    } catch (error) {
      round.pending += 1;
      log.warn({ settlementId: id, reason: (error as Error).message }, "settlement round failed");
    }
  }
  return round;
}

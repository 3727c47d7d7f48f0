import type { Selectable, Transaction } from "kysely";
import type { Address } from "viem";
import type { ChainConfig } from "@/lib/chain/config";
import { EscrowError } from "@/lib/chain/escrow/errors";
import {
  refundEscrow,
  releaseEscrow,
  releaseEscrowV2,
  splitEscrow,
  splitEscrowV2,
  type SettlementResult,
} from "@/lib/chain/escrow/settle";
import type { ServiceContext } from "../context";
import type { Database, EscrowSettlementsTable } from "../db/schema";
import { formatUsdc } from "@/lib/chain/units";
import { publishEvent } from "../events/publish-event";
import { jobRecipients } from "../events/recipients";
import { escrowWay, keptInRow, recordIntent, recordReceiptOnce } from "./settlement-engine";
import type { SettlementKind, SettlementWay } from "./settlement-engine";
import { JOB_SLOT_CONTRACT_COLUMNS, escrowVersionOf, recordedAgentOf, type JobSlotContract } from "./escrow-contract";
import { findOutsideSettlement, type OutsideSettlement } from "@/lib/chain/escrow/outside";
import { recordOutsideSettlement } from "./outside-settlements";

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

export type SettlementRow = Selectable<EscrowSettlementsTable>;
type Trx = Transaction<Database>;

export { SETTLEMENT_LEASE_MS, type SettlementKind, type SettlementRound } from "./settlement-engine";

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
  return recordIntent<SettlementRow>(
    trx,
    "escrow_settlements",
    { column: "job_id", value: jobId, what: "the escrow of this job" },
    {
      job_id: jobId,
      kind,
      status: "PENDING",
      to_address: to,
      ...(split ? { agent_share_units: split.agentShareUnits.toString() } : {}),
    },
  );
}

/**
 * A whole job's settlements through the one settlement engine (settlement-engine.ts):
 * completeSettlement sends (or finds) a recorded one on the chain and records its receipt
 * (CONFIRMED; PENDING when another sender holds the lease or the chain call failed, last_error
 * saying why, the worker retrying with backoff; FAILED when the chain says it can never happen this
 * way); finishPendingSettlements is the settlement worker's round.
 */
const wholeJobs = escrowWay("escrow_settlements", wholeJob);
export const completeSettlement = wholeJobs.complete;
export const finishPendingSettlements = wholeJobs.finishPending;

/**
 * What a whole job's send answers: the service's own settlement, or (version 2) the one someone else
 * made of the slot without the service (outside-settlements.ts), which the receipt records instead.
 */
type WholeJobResult = SettlementResult & { outside?: OutsideSettlement };

/** A whole job's way through the engine: its slot's release, split or refund, and the job's receipt. */
function wholeJob(ctx: ServiceContext, at?: Date): SettlementWay<SettlementRow, SlotOfJob, WholeJobResult> {
  return {
    table: "escrow_settlements",
    readSlot: (settlementId) =>
      ctx.db
        .selectFrom("escrow_settlements")
        .innerJoin("jobs", "jobs.id", "escrow_settlements.job_id")
        .select(["jobs.escrow_job_id", "jobs.escrow_payer", ...JOB_SLOT_CONTRACT_COLUMNS])
        .where("escrow_settlements.id", "=", settlementId)
        .executeTakeFirstOrThrow(),
    send: (chain, job, claimed) => settleOrFindOutside(ctx, chain, job, claimed),
    afterSend: (claimed) => ctx.crashPoints?.afterSettlementSend?.(claimed.job_id),
    record: (chain, claimed, result) =>
      result.outside
        ? recordOutsideSettlement(ctx, chain, claimed.job_id, result.outside, at ?? ctx.now())
        : recordReceipt(ctx, chain, claimed, result, at),
    escrow: true,
    logFields: (row) => ({ settlementId: row.id, jobId: row.job_id, kind: row.kind }),
  };
}

type SlotOfJob = { escrow_job_id: string; escrow_payer: string | null } & JobSlotContract;

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
  return recordReceiptOnce(ctx, "escrow_settlements", claimed, result, recordedAt, async (trx) => {
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
  });
}

/** The chain's answers that the slot went another way than the service's settlement asked. */
const SETTLED_ANOTHER_WAY = new Set(["ALREADY_RELEASED", "ALREADY_REFUNDED", "ALREADY_SETTLED"]);

/**
 * The service's settlement of a version 2 slot meets the parties' own on chain (the payer's
 * release, its Approve relayed, the agent's refund, a claim after the expiry): the one made outside
 * is returned for the receipt to record (an owed release or refund ends CONFIRMED with that
 * transaction, whichever way it went), asked before sending and again when the chain answers that
 * the slot is settled already, so a race between the two is recorded once, with one transfer.
 */
async function settleOrFindOutside(
  ctx: ServiceContext,
  chain: ChainConfig,
  job: SlotOfJob,
  row: SettlementRow,
): Promise<WholeJobResult> {
  if (escrowVersionOf(job) !== 2 || !job.escrow_payer) return settleOnChain(ctx, chain, job, row);
  const slot = { escrowJobId: job.escrow_job_id, payer: job.escrow_payer as Address };
  const before = await findOutsideSettlement(chain, slot);
  if (before) return { ...asResult(before), outside: before };
  try {
    const result = await settleOnChain(ctx, chain, job, row);
    if (!result.alreadySettled) return result;
    const outside = await findOutsideSettlement(chain, slot);
    return outside ? { ...asResult(outside), outside } : result;
  } catch (error) {
    if (error instanceof EscrowError && SETTLED_ANOTHER_WAY.has(error.code)) {
      const outside = await findOutsideSettlement(chain, slot);
      if (outside) return { ...asResult(outside), outside };
    }
    throw error;
  }
}

const asResult = (found: OutsideSettlement): SettlementResult => ({
  txHash: found.txHash,
  blockNumber: found.blockNumber,
  to: found.to,
  amount: found.amount,
  fee: found.fee,
  heldForClaim: found.heldForClaim,
  alreadySettled: true,
});

function settleOnChain(
  ctx: ServiceContext,
  chain: ChainConfig,
  job: SlotOfJob,
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
  // Version 2 pays the agent its payer assigned at acceptance: the row's address is not sent.
  if (escrowVersionOf(job) === 2) {
    if (row.kind === "REFUND") return refundEscrow({ ...slot, version: 2 });
    const agent = recordedAgentOf(job);
    if (row.kind === "RELEASE") return releaseEscrowV2({ ...slot, agent });
    if (row.agent_share_units === null) throw new EscrowError("TX_FAILED", "the split has no agent share");
    return splitEscrowV2({ ...slot, agent, agentShare: BigInt(row.agent_share_units) });
  }
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

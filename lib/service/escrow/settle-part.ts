import type { Selectable, Transaction } from "kysely";
import type { Address } from "viem";
import { EscrowError } from "@/lib/chain/escrow/errors";
import { settleEscrowPart } from "@/lib/chain/escrow/settle-parts";
import type { SettlementResult } from "@/lib/chain/escrow/settle";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Database, MilestoneSettlementsTable } from "../db/schema";
import { publishEvent } from "../events/publish-event";
import { jobRecipients } from "../events/recipients";
import {
  confirmRow,
  dueSettlements,
  keptInRow,
  recordIntent,
  runSettlement,
  settlementRound,
} from "./settlement-engine";
import type { SettlementKind, SettlementWay } from "./settlement-engine";
import { releasedJobs } from "./released";
import { JOB_SLOT_CONTRACT_COLUMNS, escrowVersionOf, recordedAgentOf, type JobSlotContract } from "./escrow-contract";

/**
 * One part (a milestone) of a job's escrow leaves it exactly once, the way a whole job's does
 * (settle-job.ts): recordPartSettlement writes a PENDING row (unique per milestone) in the caller's
 * transaction with the job and the milestone locked; completePartSettlement takes a lease on it,
 * calls the contract's releasePart/refundPart/settlePartSplit through settleEscrowPart, which
 * returns the part's existing transaction when the part is already settled (the contract records
 * the block each part settled in), and records the receipt with the milestone's new state in one
 * transaction. A crash between sending and recording leaves the row PENDING; the settlement
 * worker (finishPendingPartSettlements) repeats the call when the lease runs out, gets the same
 * transaction back, and records it. The last part settled completes the job.
 */
export type PartSettlementRow = Selectable<MilestoneSettlementsTable>;
type Trx = Transaction<Database>;

/** Records the intent to settle a milestone, once; a second call of the same kind returns the row, another kind is 409 SETTLEMENT_CONFLICT. */
export async function recordPartSettlement(
  trx: Trx,
  milestone: { id: string; job_id: string; amount_usdc: string },
  kind: SettlementKind,
  to: Address | null,
  split?: { agentShareUnits: bigint },
): Promise<PartSettlementRow> {
  return recordIntent<PartSettlementRow>(
    trx,
    "milestone_settlements",
    { column: "milestone_id", value: milestone.id, what: "this part" },
    {
      milestone_id: milestone.id,
      job_id: milestone.job_id,
      kind,
      status: "PENDING",
      part_units: parseUsdc(String(milestone.amount_usdc)).toString(),
      to_address: to,
      agent_share_units: split ? split.agentShareUnits.toString() : null,
      amount_units: null,
      fee_units: null,
      payer_amount_units: null,
      tx_hash: null,
      last_error: null,
    },
  );
}

/** Sends (or finds) a recorded part settlement and records its receipt, through the one settlement engine. */
export function completePartSettlement(
  ctx: ServiceContext,
  settlementId: string,
  options: { now?: Date } = {},
): Promise<PartSettlementRow> {
  return runSettlement(ctx, onePart(ctx, options.now), settlementId, options);
}

type SlotOfPart = { escrow_job_id: string; escrow_payer: string | null; position: number } & JobSlotContract;

/** A part's way through the engine: the contract's part call, then the part's (and maybe the job's) receipt. */
function onePart(ctx: ServiceContext, at?: Date): SettlementWay<PartSettlementRow, SlotOfPart, SettlementResult> {
  return {
    table: "milestone_settlements",
    readSlot: (settlementId) =>
      ctx.db
        .selectFrom("milestone_settlements")
        .innerJoin("jobs", "jobs.id", "milestone_settlements.job_id")
        .innerJoin("job_milestones", "job_milestones.id", "milestone_settlements.milestone_id")
        .select(["jobs.escrow_job_id", "jobs.escrow_payer", "job_milestones.position", ...JOB_SLOT_CONTRACT_COLUMNS])
        .where("milestone_settlements.id", "=", settlementId)
        .executeTakeFirstOrThrow(),
    send: (chain, slot, claimed) => {
      if (!slot.escrow_payer)
        throw new EscrowError("NOT_FUNDED", "the job has no registered deposit (no escrow payer)");
      const version = escrowVersionOf(slot);
      // Version 2 pays the agent its payer assigned at acceptance, checked against the one recorded.
      const payee =
        claimed.kind === "REFUND"
          ? {}
          : version === 2
            ? { agent: recordedAgentOf(slot) }
            : claimed.to_address
              ? { to: claimed.to_address as Address }
              : null;
      if (!payee) throw new EscrowError("TX_FAILED", "the part's settlement has no recipient address");
      return settleEscrowPart({
        config: chain,
        escrowJobId: slot.escrow_job_id,
        payer: slot.escrow_payer as Address,
        part: slot.position - 1,
        amount: BigInt(claimed.part_units),
        goal: claimed.kind,
        version,
        ...payee,
        ...(claimed.agent_share_units !== null ? { agentShare: BigInt(claimed.agent_share_units) } : {}),
        durable: keptInRow(ctx, "milestone_settlements", claimed),
      });
    },
    afterSend: (claimed) => ctx.crashPoints?.afterPartSettlementSend?.(claimed.milestone_id),
    record: (chain, claimed, result) => recordPartReceipt(ctx, claimed, result, chain.chainId, at),
    escrow: true,
    logFields: (row) => ({ settlementId: row.id, jobId: row.job_id, milestoneId: row.milestone_id, kind: row.kind }),
  };
}

const STATUS_OF: Record<SettlementKind, "RELEASED" | "REFUNDED" | "SPLIT"> = {
  RELEASE: "RELEASED",
  REFUND: "REFUNDED",
  SPLIT: "SPLIT",
};

/** Records a sent part's receipt, the milestone's new state and (after the last part) the job's completion, once. */
async function recordPartReceipt(
  ctx: ServiceContext,
  claimed: PartSettlementRow,
  result: SettlementResult,
  chainId: number,
  at?: Date,
): Promise<PartSettlementRow> {
  const recordedAt = at ?? ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    // confirmRow locks the job, then the part's row: the order approvals and disputes lock them in
    // (milestone-actions.ts, lockJobAndPart), so two of them never wait on each other.
    const { row: confirmed, changed } = await confirmRow<PartSettlementRow>(
      trx,
      "milestone_settlements",
      claimed,
      result,
      recordedAt,
    );
    if (!changed) return confirmed;
    const milestone = await trx
      .updateTable("job_milestones")
      .set({
        status: STATUS_OF[claimed.kind],
        settled_at: recordedAt,
        release_held_reason: null,
        updated_at: recordedAt,
      })
      .where("id", "=", claimed.milestone_id)
      .returning(["id", "position", "delivered_by"])
      .executeTakeFirstOrThrow();
    const parts = await trx
      .selectFrom("job_milestones")
      .select("status")
      .where("job_id", "=", claimed.job_id)
      .execute();
    const settled = parts.filter(
      (p) => p.status === "RELEASED" || p.status === "SPLIT" || p.status === "REFUNDED",
    ).length;
    const job = await trx
      .selectFrom("jobs")
      .select(["poster_id", "agent_id", "status"])
      .where("id", "=", claimed.job_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    // The part's agent is the one that delivered it (milestone-actions.ts), whoever holds the job now.
    const partAgentId = milestone.delivered_by ?? job.agent_id;
    const to = await jobRecipients(trx, { poster_id: job.poster_id, agent_id: partAgentId });
    const base = { jobId: claimed.job_id, milestoneId: milestone.id, position: milestone.position };
    if (claimed.kind === "REFUND") {
      await publishEvent(trx, {
        type: "milestone.refunded",
        jobId: claimed.job_id,
        to,
        data: { ...base, amount: formatUsdc(result.amount), txHash: result.txHash, to: result.to, chainId },
      });
    } else {
      await publishEvent(trx, {
        type: "milestone.paid",
        jobId: claimed.job_id,
        to,
        data: {
          ...base,
          agentId: partAgentId,
          net: formatUsdc(result.amount),
          fee: formatUsdc(result.fee),
          txHash: result.txHash,
          to: result.to,
          chainId,
          ...(result.payerAmount !== undefined ? { split: true, payerRefund: formatUsdc(result.payerAmount) } : {}),
          partsSettled: settled,
          partsTotal: parts.length,
        },
      });
    }
    // The last part settled: the job is done (COMPLETED, with the last part's transaction).
    if (settled === parts.length && job.status === "IN_PROGRESS") {
      await trx
        .updateTable("jobs")
        .set({ status: "COMPLETED", completed_at: recordedAt, release_tx_hash: result.txHash, updated_at: recordedAt })
        .where("id", "=", claimed.job_id)
        .execute();
      // The job's money reached its agent (released.ts): announced as a whole job's payment is, with
      // every part's net and fee, so a receiver waiting for job.paid hears of a job paid in parts too.
      const paid = await trx
        .selectFrom(releasedJobs(trx).as("r"))
        .select(["r.net_units", "r.fee_units"])
        .where("r.job_id", "=", claimed.job_id)
        .executeTakeFirst();
      if (paid) {
        await publishEvent(trx, {
          type: "job.paid",
          jobId: claimed.job_id,
          to,
          data: {
            jobId: claimed.job_id,
            agentId: job.agent_id,
            net: formatUsdc(BigInt(paid.net_units)),
            fee: formatUsdc(BigInt(paid.fee_units)),
            txHash: result.txHash,
            chainId,
            partsTotal: parts.length,
          },
        });
      }
    }
    return confirmed;
  });
}

/** One round of the settlement worker for parts: finishes PENDING part settlements whose lease has run out. */
export async function finishPendingPartSettlements(
  ctx: ServiceContext,
  options: {
    now?: Date;
    limit?: number;
    /** Only the parts of these jobs: for tests that move the clock on a database other suites share. */
    only?: string[];
  } = {},
): Promise<number> {
  const due = await dueSettlements(ctx, "milestone_settlements", options);
  return (await settlementRound(ctx, onePart(ctx, options.now), due, options)).confirmed;
}

import { sql, type Transaction } from "kysely";
import type { Address } from "viem";
import type { ChainConfig } from "@/lib/chain/config";
import { EscrowError, chainFailureReason } from "@/lib/chain/escrow/errors";
import { findOutsideSettlement, type OutsideSettlement } from "@/lib/chain/escrow/outside";
import { formatUsdc } from "@/lib/chain/units";
import { SETTLED_MILESTONE_STATUSES } from "@/lib/api/schemas/milestones";
import type { ServiceContext } from "../context";
import type { Database } from "../db/schema";
import { publishEvent } from "../events/publish-event";
import { jobRecipients } from "../events/recipients";
import { log } from "../log";
import type { SettlementRow } from "./settle-job";

/**
 * Money that left a job's EscrowV2 slot without the service (docs/escrow-v2.md, step 6), recorded
 * into the books as the service's own settlement would be. The contract lets the payer `release`
 * itself, anyone relay the payer's `Approve` (`releaseWithApproval`), the agent `refund`, and anyone
 * `claimRefund` from the expiry on; none needs the service, so the service follows the chain:
 *
 * - followOutsideSettlements (the deposit watcher's round, escrow/worker.ts) reads the slots of
 *   funded version 2 jobs that the books do not show settled, the longest unread first, and
 *   records each one settled by someone else once its block is final (findOutsideSettlement).
 * - The settlement engine's whole-job way (settle-job.ts) asks the same before it sends and when
 *   the chain answers that the slot is settled already: a release or refund of the service that
 *   meets a slot settled outside ends CONFIRMED with that transaction, never FAILED nor retried.
 *
 * Either records through recordOutsideSettlement, once: under the job's lock (the order every
 * settlement takes), the job's escrow_settlements row, whether the service had one owed (PENDING or
 * FAILED, of either kind) or none, becomes CONFIRMED with the chain's transaction, amounts and
 * `settled_outside` (who did it); a second caller finds it CONFIRMED and changes nothing. A release
 * completes the job (COMPLETED, completedAt, releaseTxHash: the agent's records, reviews and fees
 * follow the same receipts as a release the service sent, escrow/released.ts); a refund or a claim
 * after the expiry cancels it (CANCELLED, refundTxHash; the interface has no EXPIRED state for a
 * job: settledOutside says which it was). The parties hear it as job.paid / job.refunded with
 * `settledOutside`.
 */

type Trx = Transaction<Database>;

/** How many slots one round reads: the rest are read in later rounds (the longest unread first). */
const SLOTS_PER_ROUND = 50;

/**
 * Records a slot settled outside the service into the books, once (see above). Returns the job's
 * settlement row as it stands afterwards.
 */
export async function recordOutsideSettlement(
  ctx: ServiceContext,
  chain: ChainConfig,
  jobId: string,
  found: OutsideSettlement,
  at: Date = ctx.now(),
): Promise<SettlementRow> {
  return ctx.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom("jobs")
      .select(["id", "poster_id", "agent_id", "status"])
      .where("id", "=", jobId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const row = await trx
      .selectFrom("escrow_settlements")
      .selectAll()
      .where("job_id", "=", jobId)
      .forUpdate()
      .executeTakeFirst();
    if (row?.status === "CONFIRMED") {
      // Recorded already (by the watcher or the engine, whichever came first); only the marker may be missing.
      if (row.tx_hash?.toLowerCase() === found.txHash.toLowerCase() && row.settled_outside === null)
        return trx
          .updateTable("escrow_settlements")
          .set({ settled_outside: found.way, updated_at: at })
          .where("id", "=", row.id)
          .returningAll()
          .executeTakeFirstOrThrow();
      return row;
    }
    const confirmed = {
      kind: found.kind,
      status: "CONFIRMED" as const,
      tx_hash: found.txHash,
      to_address: found.to,
      amount_units: found.amount.toString(),
      fee_units: found.fee.toString(),
      payer_amount_units: null,
      settled_outside: found.way,
      last_error:
        found.heldForClaim > 0n
          ? `${found.heldForClaim} units were refused by the token and are held in the contract for ${found.to} to claim`
          : null,
      lease_until: null,
      confirmed_at: at,
      updated_at: at,
    };
    const settled = row
      ? await trx
          .updateTable("escrow_settlements")
          .set(confirmed)
          .where("id", "=", row.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto("escrow_settlements")
          .values({ job_id: jobId, ...confirmed })
          .returningAll()
          .executeTakeFirstOrThrow();
    await recordOnJob(trx, chain, job, found, at);
    log.info(
      { jobId, txHash: found.txHash, way: found.way, owed: row?.kind ?? null },
      "escrow settled outside the service",
    );
    return settled;
  });
}

async function recordOnJob(
  trx: Trx,
  chain: ChainConfig,
  job: { id: string; poster_id: string; agent_id: string | null; status: string },
  found: OutsideSettlement,
  at: Date,
): Promise<void> {
  const to = await jobRecipients(trx, job);
  const common = {
    jobId: job.id,
    txHash: found.txHash,
    to: found.to,
    chainId: chain.chainId,
    settledOutside: found.way,
    sentBy: found.sender,
  };
  if (found.kind === "RELEASE") {
    await trx
      .updateTable("jobs")
      .set({
        status: "COMPLETED",
        completed_at: at,
        release_tx_hash: found.txHash,
        release_held_reason: null,
        escrow_settled_outside: found.way,
        updated_at: at,
      })
      .where("id", "=", job.id)
      .execute();
    await settleOwedParts(trx, job.id, "RELEASED", at);
    await publishEvent(trx, {
      type: "job.paid",
      jobId: job.id,
      to,
      data: { ...common, agentId: job.agent_id, net: formatUsdc(found.amount), fee: formatUsdc(found.fee) },
    });
    return;
  }
  await trx
    .updateTable("jobs")
    .set({
      status: "CANCELLED",
      refund_tx_hash: found.txHash,
      release_held_reason: null,
      escrow_settled_outside: found.way,
      updated_at: at,
    })
    .where("id", "=", job.id)
    .execute();
  // The money is back with the payer: no bid can be accepted any more, and no open part can be paid.
  const expired = await trx
    .updateTable("bids")
    .set({ status: "EXPIRED", updated_at: at })
    .where("job_id", "=", job.id)
    .where("status", "=", "PENDING")
    .returning("agent_id")
    .execute();
  await settleOwedParts(trx, job.id, "REFUNDED", at);
  await publishEvent(trx, {
    type: "job.refunded",
    jobId: job.id,
    to: [...to, ...expired.map((b) => b.agent_id)],
    data: { ...common, amount: formatUsdc(found.amount) },
  });
}

/**
 * The slot is empty, so every part not settled yet (open, delivered, approved or disputed) was paid
 * by the same transaction: to the agent by a release (the contract's release pays what the parts
 * left), to the payer by a refund or a claim. Parts settled earlier keep their own settlement.
 */
async function settleOwedParts(trx: Trx, jobId: string, status: "RELEASED" | "REFUNDED", at: Date): Promise<void> {
  await trx
    .updateTable("job_milestones")
    .set({ status, settled_at: at, updated_at: at })
    .where("job_id", "=", jobId)
    .where("status", "not in", [...SETTLED_MILESTONE_STATUSES])
    .execute();
}

/**
 * The watcher's round: funded version 2 jobs of this chain whose books show no settlement confirmed
 * (SLOTS_PER_ROUND of them, the longest unread first), each slot read and, when someone other than
 * the service settled it in a final block, recorded. Returns the jobs it recorded.
 */
export async function followOutsideSettlements(
  ctx: ServiceContext,
  options: { now?: Date; onlyJobIds?: string[] } = {},
): Promise<string[]> {
  const chain = ctx.config.chain;
  if (!chain?.escrowV2Address) return [];
  const now = options.now ?? ctx.now();
  let q = ctx.db
    .selectFrom("jobs as j")
    .select(["j.id", "j.escrow_job_id", "j.escrow_payer"])
    .where("j.escrow_version", "=", 2)
    .where("j.escrow_tx_hash", "is not", null)
    .where("j.escrow_payer", "is not", null)
    .where("j.chain_id", "=", chain.chainId)
    .where("j.release_tx_hash", "is", null)
    .where("j.refund_tx_hash", "is", null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("escrow_settlements as s")
            .select("s.id")
            .whereRef("s.job_id", "=", "j.id")
            .where("s.status", "=", "CONFIRMED"),
        ),
      ),
    );
  if (options.onlyJobIds)
    q = options.onlyJobIds.length > 0 ? q.where("j.id", "in", options.onlyJobIds) : q.where(sql<boolean>`false`);
  const jobs = await q
    .orderBy(sql`j.escrow_outside_checked_at asc nulls first`)
    .limit(SLOTS_PER_ROUND)
    .execute();
  if (jobs.length === 0) return [];
  await ctx.db
    .updateTable("jobs")
    .set({ escrow_outside_checked_at: now })
    .where(
      "id",
      "in",
      jobs.map((j) => j.id),
    )
    .execute();
  const recorded: string[] = [];
  for (const job of jobs) {
    try {
      const found = await findOutsideSettlement(chain, {
        escrowJobId: job.escrow_job_id,
        payer: job.escrow_payer as Address,
      });
      if (!found) continue;
      await recordOutsideSettlement(ctx, chain, job.id, found, now);
      recorded.push(job.id);
    } catch (error) {
      // Not final yet, or the node did not answer: read again in a later round.
      if (error instanceof EscrowError && error.code === "TX_PENDING") continue;
      log.warn(
        { jobId: job.id, reason: chainFailureReason(error) },
        "a slot could not be read for outside settlements",
      );
    }
  }
  return recorded;
}

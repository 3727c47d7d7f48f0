import { fail } from "../errors";
import { matchSavedSearches } from "./saved-searches";
import { chainFailureReason } from "@/lib/chain/escrow/errors";
import { verifyDeposit, type DepositCheck } from "@/lib/chain/escrow/verify-deposit";
import { parseUsdc } from "@/lib/chain/units";
import type { ErrorExtra } from "@/lib/api/schemas/errors";
import type { ServiceContext } from "../context";
import type { JobRow } from "../db/schema";
import { requireChain } from "../context";
import type { Actor } from "../auth/actor";
import { isUniqueViolation } from "../db/errors";
import { presentJob } from "./present-job";
import { getJobRowOrThrow } from "./read-job";
import { confirmDepositOnChain } from "../escrow/deposit-watch";
import { depositAmountRefusal, isFundable } from "../escrow/deposit-rules";
import { escrowContractOfDeposit, recordSlotExpiry } from "../escrow/escrow-contract";
import { getEscrow } from "@/lib/chain/escrow/reads";
import type { Address } from "viem";

const TX_ALREADY_USED = "this transaction already funds another job; each deposit funds one job";

/**
 * PATCH /v1/jobs/:id/escrow {txHash}. The poster registers the on-chain deposit that funds an OPEN,
 * unfunded job. It counts only if the chain says so (verifyDeposit): a successful receipt on the
 * configured chain, a Deposited event of either configured escrow contract (the first escrow or
 * EscrowV2) for this job's escrowJobId with exactly the job's gross budget in 6-decimal units, the
 * configured confirmations, an escrow still funded; and no other job registered the same hash (the
 * unique constraint on jobs.escrow_tx_hash decides). The job records the contract holding its slot
 * and, for EscrowV2, the slot's expiry (escrow/escrow-contract.ts).
 * The escrow keeps one slot per (escrowJobId, payer): the event's payer is stored as escrow_payer,
 * and settlement moves that slot only. So a stranger who deposits under the public escrowJobId
 * first neither blocks the poster's deposit nor becomes the job's money; the stranger's stray slot
 * stays in the contract until the operator refunds it, which can only pay it back to the stranger.
 * A refusal is 422 DEPOSIT_<CODE> with the chain's reason and leaves the job unfunded. Registering
 * the hash that already funds this job again checks the chain again and answers the job (a retried
 * request is harmless) unless a reorganisation removed the deposit: then 422 DEPOSIT_VANISHED and
 * the job is unfunded (escrow/deposit-watch.ts markDepositLost).
 * A deposit the deposit watcher has decided to return to its payer (REFUND_PENDING or REFUNDED in
 * escrow_deposits) is refused with 409 DEPOSIT_REFUNDING: the decision and this registration both
 * lock the job row, so exactly one of them wins.
 */
export async function registerEscrow(ctx: ServiceContext, actor: Actor, jobId: string, rawTxHash: string) {
  requireChain(ctx);
  const txHash = rawTxHash.toLowerCase();
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.poster_id !== actor.principalId)
    throw fail("FORBIDDEN", "only the poster may register the funding of this job");
  if (job.escrow_tx_hash !== null) {
    if (job.escrow_tx_hash === txHash) return reregister(ctx, actor, job, txHash);
    throw fail("ALREADY_FUNDED", "this job is already funded by another transaction", {
      escrowTxHash: job.escrow_tx_hash,
    });
  }
  await fundJobWithDeposit(ctx, job, txHash);
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

/**
 * The job funded by the deposit of `txHash`, once the chain confirms it (the checks above): the
 * poster's registration, and the service's own for a deposit of the poster it saw on chain whose
 * registration never arrived (attach-deposits.ts). Throws the refusals registerEscrow answers.
 */
export async function fundJobWithDeposit(
  ctx: ServiceContext,
  job: Pick<JobRow, "id" | "status" | "escrow_tx_hash" | "deposit_lost_at" | "escrow_job_id" | "budget_usdc">,
  txHash: string,
): Promise<void> {
  const chain = requireChain(ctx);
  const jobId = job.id;
  if (!isFundable(job))
    throw fail(
      "INVALID_STATE",
      `a ${job.status} job cannot be funded; only an OPEN job, an assigned one not yet funded (at the accepted price), or one whose deposit a chain reorganisation removed`,
    );

  // A cheap early answer; the unique constraint below is what decides.
  const used = await ctx.db.selectFrom("jobs").select("id").where("escrow_tx_hash", "=", txHash).executeTakeFirst();
  if (used) throw fail("TX_ALREADY_USED", TX_ALREADY_USED);

  let check: DepositCheck;
  try {
    check = await verifyDeposit({
      config: chain,
      txHash,
      escrowJobId: job.escrow_job_id,
      expectedAmount: parseUsdc(job.budget_usdc),
    });
  } catch (error) {
    throw fail(
      "CHAIN_UNAVAILABLE",
      `the chain could not be asked about the deposit (${chainFailureReason(error)}); try again`,
    );
  }
  if (!check.ok) {
    const extra: ErrorExtra<"DEPOSIT_TX_NOT_FOUND"> = {
      reason: check.reason,
      retryable: check.code === "NOT_CONFIRMED",
    };
    if (check.confirmations !== undefined)
      Object.assign(extra, { confirmations: check.confirmations, requiredConfirmations: chain.confirmations });
    throw fail(`DEPOSIT_${check.code}`, `the deposit was not accepted (${check.code}): ${check.reason}`, extra);
  }

  try {
    const now = ctx.now();
    // Funding and the saved searches that now match (a search for funded jobs) commit together.
    await ctx.db.transaction().execute(async (trx) => {
      const locked = await trx
        .selectFrom("jobs")
        .select(["status", "escrow_tx_hash", "deposit_lost_at", "chain_id", "escrow_job_id", "budget_usdc"])
        .where("id", "=", jobId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (!isFundable(locked))
        throw fail("ALREADY_FUNDED", "the job changed while the deposit was being checked; reload it", {
          escrowTxHash: locked.escrow_tx_hash,
        });
      // The chain was asked about the budget read before this lock; an edit or an accepted bid may
      // have changed it since. The deposit funds the job only at the budget of the row locked here.
      const wrongAmount = depositAmountRefusal(check.amount, locked);
      if (wrongAmount)
        throw fail(
          "DEPOSIT_WRONG_AMOUNT",
          `the deposit was not accepted (WRONG_AMOUNT): ${wrongAmount}; the budget changed while the deposit was being checked`,
          { reason: wrongAmount, retryable: false },
        );
      const slot = {
        chain_id: locked.chain_id,
        escrow_job_id: locked.escrow_job_id.toLowerCase(),
        payer: check.payer.toLowerCase(),
        // The same (escrow job id, payer) may hold a slot in each contract.
        escrow_version: check.escrow.version,
      };
      const seen = await trx
        .selectFrom("escrow_deposits")
        .select(["status", "reason", "refund_tx_hash"])
        .where("chain_id", "=", slot.chain_id)
        .where("escrow_job_id", "=", slot.escrow_job_id)
        .where("payer", "=", slot.payer)
        .where("escrow_version", "=", slot.escrow_version)
        .forUpdate()
        .executeTakeFirst();
      if (seen && (seen.status === "REFUND_PENDING" || seen.status === "REFUNDED")) {
        throw fail(
          "DEPOSIT_REFUNDING",
          `this deposit is ${seen.status === "REFUNDED" ? "already returned" : "being returned"} to its payer${seen.reason ? ` (${seen.reason})` : ""}; it cannot fund the job`,
          {
            reason: seen.reason,
            refundTxHash: seen.refund_tx_hash,
          },
        );
      }
      await trx
        .updateTable("jobs")
        .set({
          escrow_tx_hash: txHash,
          escrow_payer: check.payer,
          // verifyDeposit read the Deposited event of the contract the deposit is in.
          ...escrowContractOfDeposit(check),
          funded_at: now,
          updated_at: now,
        })
        .where("id", "=", jobId)
        .execute();
      // The watcher's record of the deposit: it funds this job and is never refunded as a stray.
      await trx
        .insertInto("escrow_deposits")
        .values({
          ...slot,
          amount_units: check.amount.toString(),
          tx_hash: txHash,
          block_number: check.blockNumber.toString(),
          job_id: jobId,
          status: "REGISTERED",
          refund_due_at: now,
        })
        .onConflict((oc) =>
          oc.columns(["chain_id", "escrow_version", "escrow_job_id", "payer"]).doUpdateSet({
            status: "REGISTERED",
            job_id: jobId,
            tx_hash: txHash,
            block_number: check.blockNumber.toString(),
            reason: null,
            updated_at: now,
          }),
        )
        .execute();
      await matchSavedSearches(trx, jobId);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fail("TX_ALREADY_USED", TX_ALREADY_USED);
    throw error;
  }
}

/**
 * The poster registers again the hash that funds the job (a retry, or a page reloaded after a
 * reorganisation): the chain is asked again. Still there (maybe re-included in a later block): the
 * job. Gone: the job is unfunded (markDepositLost) and the answer is 422 DEPOSIT_VANISHED. A job
 * whose escrow is already settled is answered as it stands: its slot is empty for a good reason.
 */
async function reregister(
  ctx: ServiceContext,
  actor: Actor,
  job: {
    id: string;
    escrow_job_id: string;
    escrow_tx_hash: string | null;
    escrow_payer: string | null;
    budget_usdc: string;
    escrow_version: number | null;
  },
  txHash: string,
) {
  const chain = requireChain(ctx);
  const settled = await ctx.db
    .selectFrom("escrow_settlements")
    .select("id")
    .where("job_id", "=", job.id)
    .where("status", "=", "CONFIRMED")
    .executeTakeFirst();
  if (!settled) {
    let check: DepositCheck;
    let lost = false;
    try {
      check = await verifyDeposit({
        config: chain,
        txHash,
        escrowJobId: job.escrow_job_id,
        expectedAmount: parseUsdc(job.budget_usdc),
      });
      // Unfunds the job when its slot is empty.
      if (!check.ok) lost = !(await confirmDepositOnChain(ctx, job));
    } catch (error) {
      throw fail(
        "CHAIN_UNAVAILABLE",
        `the chain could not be asked about the deposit (${chainFailureReason(error)}); try again`,
      );
    }
    if (!check.ok) {
      const extra: ErrorExtra<"DEPOSIT_VANISHED"> = { reason: check.reason, retryable: false };
      if (lost || check.code === "TX_NOT_FOUND") {
        throw fail(
          "DEPOSIT_VANISHED",
          `the transaction that funded this job is no longer on the chain (${check.reason})${lost ? "; the job is unfunded again: deposit and register again" : ""}`,
          extra,
        );
      }
      throw fail(`DEPOSIT_${check.code}`, `the deposit was not accepted (${check.code}): ${check.reason}`, {
        ...extra,
        retryable: check.code === "NOT_CONFIRMED",
      });
    }
  }
  return presentJob(await getJobRowOrThrow(ctx, job.id), actor, { detail: true });
}

/**
 * POST /v1/jobs/:id/escrow/expiry: after the payer's extendExpiry on chain, the service reads the
 * job's slot again and records its expiry (only ever later: the contract never shortens it). The
 * poster asks; the answer is the job (escrowExtensionNeeded false once it covers the job).
 */
export async function refreshEscrowExpiry(ctx: ServiceContext, actor: Actor, jobId: string) {
  const chain = requireChain(ctx);
  const job = await ctx.db
    .selectFrom("jobs")
    .select(["poster_id", "escrow_version", "escrow_payer", "escrow_job_id", "escrow_expires_at"])
    .where("id", "=", jobId)
    .executeTakeFirst();
  if (!job) throw fail("NOT_FOUND", "job not found");
  if (job.poster_id !== actor.principalId)
    throw fail("FORBIDDEN", "only the poster may ask for the escrow's expiry to be read again");
  if (job.escrow_version !== 2 || job.escrow_payer === null)
    throw fail("INVALID_STATE", "the job is not funded in EscrowV2: its escrow has no expiry");
  let slot: Awaited<ReturnType<typeof getEscrow>>;
  try {
    slot = await getEscrow({
      config: chain,
      escrowJobId: job.escrow_job_id,
      payer: job.escrow_payer as Address,
      version: 2,
    });
  } catch (error) {
    throw fail(
      "CHAIN_UNAVAILABLE",
      `the chain could not be asked about the escrow (${chainFailureReason(error)}); try again`,
    );
  }
  if (slot.state === "FUNDED" && slot.expiresAt !== undefined)
    await recordSlotExpiry(ctx.db, jobId, slot.expiresAt, ctx.now());
  return presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true });
}

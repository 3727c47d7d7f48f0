import { matchSavedSearches } from "./saved-searches";
import { verifyDeposit, type DepositCheck } from "@/lib/chain/escrow/verify-deposit";
import { parseUsdc } from "@/lib/chain/units";
import type { ErrorExtra } from "@/lib/api/schemas/errors";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { Actor } from "../auth/actor";
import { HttpError, conflict, forbidden, notFound } from "../http/errors";
import { isUniqueViolation } from "../db/errors";
import { presentJob } from "./present-job";
import { getJobRowOrThrow } from "./read-job";

const TX_ALREADY_USED = "this transaction already funds another job; each deposit funds one job";

/**
 * PATCH /v1/jobs/:id/escrow {txHash}. The poster registers the on-chain deposit that funds an OPEN,
 * unfunded job. It counts only if the chain says so (verifyDeposit): a successful receipt on the
 * configured chain, the escrow contract's Deposited event for this job's escrowJobId with exactly
 * the job's gross budget in 6-decimal units, the configured confirmations, an escrow still funded;
 * and no other job registered the same hash (the unique constraint on jobs.escrow_tx_hash decides).
 * The escrow keeps one slot per (escrowJobId, payer): the event's payer is stored as escrow_payer,
 * and settlement moves that slot only. So a stranger who deposits under the public escrowJobId
 * first neither blocks the poster's deposit nor becomes the job's money; the stranger's stray slot
 * stays in the contract until the operator refunds it, which can only pay it back to the stranger.
 * A refusal is 422 DEPOSIT_<CODE> with the chain's reason and leaves the job unfunded. Registering
 * the hash that already funds this job again answers the job (a retried request is harmless).
 */
export async function registerEscrow(ctx: ServiceContext, actor: Actor, jobId: string, rawTxHash: string) {
  const chain = requireChain(ctx);
  const txHash = rawTxHash.toLowerCase();
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (job.poster_id !== actor.principalId) throw forbidden("only the poster may register the funding of this job");
  if (job.escrow_tx_hash !== null) {
    if (job.escrow_tx_hash === txHash) return { data: presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true }) };
    throw conflict("ALREADY_FUNDED", "this job is already funded by another transaction", { escrowTxHash: job.escrow_tx_hash });
  }
  if (job.status !== "OPEN") throw conflict("INVALID_STATE", `a ${job.status} job cannot be funded; only an OPEN job can`);

  // A cheap early answer; the unique constraint below is what decides.
  const used = await ctx.db.selectFrom("jobs").select("id").where("escrow_tx_hash", "=", txHash).executeTakeFirst();
  if (used) throw conflict("TX_ALREADY_USED", TX_ALREADY_USED);

  let check: DepositCheck;
  try {
    check = await verifyDeposit({ config: chain, txHash, escrowJobId: job.escrow_job_id, expectedAmount: parseUsdc(job.budget_usdc) });
  } catch (error) {
    throw new HttpError(503, `the chain could not be asked about the deposit (${(error as Error).message.split("\n")[0]}); try again`, "CHAIN_UNAVAILABLE");
  }
  if (!check.ok) {
    const extra: ErrorExtra<"DEPOSIT_TX_NOT_FOUND"> = { reason: check.reason, retryable: check.code === "NOT_CONFIRMED" };
    if (check.confirmations !== undefined) Object.assign(extra, { confirmations: check.confirmations, requiredConfirmations: chain.confirmations });
    throw new HttpError(422, `the deposit was not accepted (${check.code}): ${check.reason}`, `DEPOSIT_${check.code}`, extra);
  }

  try {
    const now = ctx.now();
    // Funding and the saved searches that now match (a search for funded jobs) commit together.
    await ctx.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable("jobs")
        .set({ escrow_tx_hash: txHash, escrow_payer: check.payer, funded_at: now, updated_at: now })
        .where("id", "=", jobId)
        .where("escrow_tx_hash", "is", null)
        .where("status", "=", "OPEN")
        .returning("id")
        .executeTakeFirst();
      if (!updated) throw conflict("ALREADY_FUNDED", "the job changed while the deposit was being checked; reload it");
      await matchSavedSearches(trx, jobId);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict("TX_ALREADY_USED", TX_ALREADY_USED);
    throw error;
  }
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), actor, { detail: true }) };
}

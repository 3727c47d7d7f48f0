import { verifyDeposit } from "@/lib/chain/escrow";
import { parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { requireChain } from "../context";
import type { Actor } from "../auth/actor";
import { HttpError, conflict, forbidden, notFound } from "../http/errors";
import { isUniqueViolation } from "../db/errors";
import { getJobRowOrThrow, presentJob } from "../jobs/present-job";

/**
 * The poster registers the on-chain deposit that funds a job. It counts only if the chain says so:
 * a successful receipt on the configured chain, the escrow contract's Deposited event for this
 * job's escrowJobId with exactly the job's gross budget, enough confirmations; and no other job
 * registered the same hash (the unique constraint on jobs.escrow_tx_hash decides). Anything else
 * leaves the job unfunded.
 */
export async function registerEscrow(ctx: ServiceContext, actor: Actor, jobId: string, txHash: string) {
  const chain = requireChain(ctx);
  const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
  if (!job) throw notFound("job");
  if (job.poster_id !== actor.principalId) throw forbidden("only the poster may register the funding of this job");
  if (job.escrow_tx_hash !== null) {
    if (job.escrow_tx_hash.toLowerCase() === txHash.toLowerCase()) return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
    throw conflict("ALREADY_FUNDED", "this job is already funded by another transaction");
  }
  if (job.status !== "OPEN") throw conflict("INVALID_STATE", `a ${job.status} job cannot be funded`);

  const used = await ctx.db.selectFrom("jobs").select("id").where("escrow_tx_hash", "=", txHash.toLowerCase()).executeTakeFirst();
  if (used) throw conflict("TX_ALREADY_USED", "this transaction already funds another job; each deposit funds one job");

  const check = await verifyDeposit({ config: chain, txHash, escrowJobId: job.escrow_job_id, expectedAmount: parseUsdc(job.budget_usdc) });
  if (!check.ok) {
    throw new HttpError(422, `the deposit was not accepted: ${check.reason}`, `DEPOSIT_${check.code}`, {
      ...(check.confirmations !== undefined ? { confirmations: check.confirmations, required: chain.confirmations } : {}),
    });
  }

  try {
    const updated = await ctx.db
      .updateTable("jobs")
      .set({ escrow_tx_hash: txHash.toLowerCase(), escrow_payer: check.payer, funded_at: ctx.now(), updated_at: ctx.now() })
      .where("id", "=", jobId)
      .where("escrow_tx_hash", "is", null)
      .where("status", "=", "OPEN")
      .returning("id")
      .executeTakeFirst();
    if (!updated) throw conflict("ALREADY_FUNDED", "the job changed while the deposit was checked; reload it");
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict("TX_ALREADY_USED", "this transaction already funds another job; each deposit funds one job");
    throw error;
  }
  return { data: presentJob(await getJobRowOrThrow(ctx, jobId), { detail: true }) };
}

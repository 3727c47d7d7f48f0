import { sql } from "kysely";
import type { ServiceContext, Worker } from "../context";
import { DomainError } from "../errors";
import { log } from "../log";
import { fundJobWithDeposit } from "./register-escrow";

/** Deposits attached per round: a poster's closed tabs, not a queue. */
const PER_ROUND = 20;

/**
 * A deposit is never lost by a closed tab. The deposit watcher (escrow/deposit-watch.ts) keeps every
 * final Deposited event it reads as an OBSERVED deposit; when one is into an unfunded job's slot from
 * the poster's own signed-in wallet, or from an address the poster has funded a job from before, the
 * service registers it itself, as the poster's PATCH /v1/jobs/:id/escrow would (fundJobWithDeposit:
 * the same checks on chain, the same row lock, the same refusals), so a registration request the
 * browser never sent (the tab closed, the network dropped) leaves the job funded within a round or
 * two. A deposit from anyone else still waits for its registration and otherwise goes back to its
 * payer (the watcher's window): a stranger's deposit never funds someone's job by itself.
 */
export async function attachPosterDeposits(
  ctx: ServiceContext,
  options: { onlyJobIds?: string[] } = {},
): Promise<number> {
  const chain = ctx.config.chain;
  if (!chain) return 0;
  let q = ctx.db
    .selectFrom("escrow_deposits as d")
    .innerJoin("jobs as j", "j.id", "d.job_id")
    .select(["d.id", "d.tx_hash", "j.id as job_id"])
    .where("d.status", "=", "OBSERVED")
    .where("d.chain_id", "=", chain.chainId)
    .where("j.chain_id", "=", chain.chainId)
    .where("j.escrow_tx_hash", "is", null)
    .where((eb) =>
      eb.or([
        // The poster's own wallet (a human poster's id is their user id).
        eb.exists(
          eb
            .selectFrom("users as u")
            .select("u.id")
            .whereRef("u.id", "=", "j.poster_id")
            .where(sql<boolean>`lower(u.address) = d.payer`),
        ),
        // An address that funded another job of the same poster.
        eb.exists(
          eb
            .selectFrom("jobs as before")
            .select("before.id")
            .whereRef("before.poster_id", "=", "j.poster_id")
            .where(sql<boolean>`lower(before.escrow_payer) = d.payer`),
        ),
      ]),
    );
  if (options.onlyJobIds)
    q = options.onlyJobIds.length > 0 ? q.where("j.id", "in", options.onlyJobIds) : q.where(sql<boolean>`false`);
  const due = await q.orderBy("d.created_at").limit(PER_ROUND).execute();
  let attached = 0;
  for (const deposit of due) {
    const job = await ctx.db.selectFrom("jobs").selectAll().where("id", "=", deposit.job_id).executeTakeFirstOrThrow();
    try {
      await fundJobWithDeposit(ctx, job, deposit.tx_hash);
      attached += 1;
      log.info({ jobId: job.id, txHash: deposit.tx_hash }, "a deposit of the poster's was attached to its job");
    } catch (error) {
      // Refused (not fundable any more, another deposit won, not final yet): the watcher decides it as any other.
      log.warn(
        {
          jobId: job.id,
          txHash: deposit.tx_hash,
          reason: error instanceof DomainError ? `${error.code}: ${error.message}` : (error as Error).message,
        },
        "a deposit of the poster's was not attached",
      );
    }
  }
  return attached;
}

/** Every 15 s, after the deposit watcher's reads: the poster's deposits whose registration never came. */
export const depositAttachWorker: Worker = {
  name: "escrow-deposit-attach",
  everyMs: 15_000,
  run: async (ctx) => {
    if (ctx.config.chain) await attachPosterDeposits(ctx);
  },
};

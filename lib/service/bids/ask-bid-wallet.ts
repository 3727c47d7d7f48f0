import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { fail } from "../errors";
import { sendMail } from "../mail/send-mail";
import { publishEvent } from "../events/publish-event";
import { actorIdOf, posterRecipientId } from "../events/recipients";
import { log } from "../log";
import { presentBid } from "./present-bid";

/**
 * "Ask the owner" (docs/escrow-v2.md, step 3). Accepting a bid on a job funded in EscrowV2 fixes
 * the agent's payout wallet in the slot, the one address it will ever pay, so a bid whose agent
 * has none cannot be accepted (409 AGENT_WALLET_MISSING, which names this route). The poster asks
 * the agent's owner to set it: the event bid.wallet_requested to the agent and its owner, and a
 * mail to the owner's address (an unclaimed agent's owner has no inbox yet). When the wallet is
 * set, tellPostersWalletSet tells each poster who asked, once (bid.wallet_set), and the bid is
 * accepted as any other.
 */

const DAY_MS = 86_400_000;

export async function askBidWallet(ctx: ServiceContext, actor: Actor, jobId: string, bidId: string, siteUrl: string) {
  const now = ctx.now();
  const asked = await ctx.db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom("jobs")
      .select(["id", "poster_id", "title"])
      .where("id", "=", jobId)
      .executeTakeFirst();
    if (!job) throw fail("NOT_FOUND", "job not found");
    if (job.poster_id !== actor.principalId)
      throw fail("FORBIDDEN", "only the job's poster may ask for a payout wallet");
    const bid = await trx
      .selectFrom("bids")
      .selectAll()
      .where("id", "=", bidId)
      .where("job_id", "=", jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!bid) throw fail("NOT_FOUND", "bid not found");
    if (bid.status !== "PENDING")
      throw fail("BID_NOT_PENDING", `the bid is ${bid.status}; only a PENDING bid can be accepted`);
    const agent = await trx
      .selectFrom("agents")
      .select(["id", "name", "vertical", "max_active_jobs", "wallet_address", "owner_email", "owner_user_id"])
      .where("id", "=", bid.agent_id)
      .executeTakeFirstOrThrow();
    if (agent.wallet_address) throw fail("INVALID_STATE", "the agent already has a payout wallet: accept the bid");
    // Once a day per bid, whoever clicks (the bid row is locked).
    if (bid.wallet_asked_at && bid.wallet_asked_at.getTime() > now.getTime() - DAY_MS)
      throw fail("REMINDER_ALREADY_SENT", "the agent's owner was asked for this bid less than a day ago", {
        nextAt: new Date(bid.wallet_asked_at.getTime() + DAY_MS).toISOString(),
      });
    const updated = await trx
      .updateTable("bids")
      .set({ wallet_asked_at: now, wallet_set_at: null })
      .where("id", "=", bid.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await publishEvent(trx, {
      type: "bid.wallet_requested",
      jobId,
      to: [agent.id],
      actorId: actorIdOf(actor),
      data: { jobId, bidId, agentId: agent.id, agentName: agent.name, proposedUsdc: bid.proposed_usdc },
    });
    return { bid: updated, agent, title: job.title };
  });
  // A claimed agent's owner is mailed by the notification of the event (their preferences decide);
  // an unclaimed one has no inbox, only the address given at signup: mailed here, after the commit
  // (a rolled-back ask sends none).
  if (asked.agent.owner_user_id === null)
    await sendMail(ctx, {
      to: asked.agent.owner_email,
      subject: `Set a payout wallet for ${asked.agent.name} to be hired`,
      text: [
        `The poster of "${asked.title}" wants to accept your agent ${asked.agent.name}'s bid, but the agent has no payout wallet.`,
        "",
        "The job is paid from an escrow that pays only the address fixed when the bid is accepted. Sign in and set the wallet on the agent's page; the poster is told when it is set:",
        `${siteUrl.replace(/\/$/, "")}/agents/${asked.agent.id}`,
      ].join("\n"),
    }).catch((error: Error) => log.warn({ bidId, reason: error.message }, "the ask-the-owner mail failed"));
  return presentBid(asked.bid, asked.agent);
}

/**
 * An agent's payout wallet was just set: each poster who asked for it on a bid still PENDING hears
 * once (bid.wallet_set), in one transaction with the stamp that makes it once (wallet_set_at).
 * Composed after the wallet is set (payout-wallet-set.ts).
 */
export async function tellPostersWalletSet(ctx: ServiceContext, agentId: string): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const agent = await trx
      .selectFrom("agents")
      .select(["id", "name", "wallet_address"])
      .where("id", "=", agentId)
      .executeTakeFirst();
    if (!agent?.wallet_address) return 0;
    const told = await trx
      .updateTable("bids")
      .set({ wallet_set_at: ctx.now() })
      .where("agent_id", "=", agentId)
      .where("status", "=", "PENDING")
      .where("wallet_asked_at", "is not", null)
      .where("wallet_set_at", "is", null)
      .returning(["id", "job_id"])
      .execute();
    for (const bid of told) {
      const job = await trx
        .selectFrom("jobs")
        .select("poster_id")
        .where("id", "=", bid.job_id)
        .executeTakeFirstOrThrow();
      await publishEvent(trx, {
        type: "bid.wallet_set",
        jobId: bid.job_id,
        to: [await posterRecipientId(trx, job.poster_id)],
        actorId: agentId,
        data: {
          jobId: bid.job_id,
          bidId: bid.id,
          agentId,
          agentName: agent.name,
          walletAddress: agent.wallet_address,
          nextAction: "ACCEPT",
        },
      });
    }
    return told.length;
  });
}

import type { ServiceContext, Worker } from "../context";
import { tellPostersWalletSet } from "./ask-bid-wallet";

const BATCH = 50;

/**
 * "Ask the owner", made sure: setting a payout wallet tells the posters who asked at once
 * (payout-wallet-set.ts, after the answer), and this round tells those that step missed (the
 * process ended between the wallet's change and the event, or the wallet was set another way):
 * pending bids asked for whose agent has a wallet now. tellPostersWalletSet stamps each bid in the
 * event's transaction, so a poster hears once whichever runs first.
 */
export async function tellMissedWalletSets(ctx: ServiceContext): Promise<number> {
  const agents = await ctx.db
    .selectFrom("bids as b")
    .innerJoin("agents as a", "a.id", "b.agent_id")
    .select("b.agent_id")
    .distinct()
    .where("b.status", "=", "PENDING")
    .where("b.wallet_asked_at", "is not", null)
    .where("b.wallet_set_at", "is", null)
    .where("a.wallet_address", "is not", null)
    .limit(BATCH)
    .execute();
  let told = 0;
  for (const { agent_id } of agents) told += await tellPostersWalletSet(ctx, agent_id);
  return told;
}

export const bidWalletAskWorker: Worker = {
  name: "bid-wallet-asks",
  everyMs: 60_000,
  run: async (ctx) => {
    await tellMissedWalletSets(ctx);
  },
};

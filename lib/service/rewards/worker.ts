import type { Worker } from "../context";
import type { ServiceContext } from "../context";
import { fundPendingCampaigns } from "./campaigns";
import { finishPayingRewards, payWaitingRewards } from "./pay-rewards";
import { reviewPublishedContributions } from "./review-contribution";
import { finishPendingWithdrawals, watchConfirmedWithdrawals } from "./wallet";

/**
 * One round of reward work: review the forum posts published (and decline those removed) since the
 * last round, from their events, finish payments a crash left
 * PAYING, pay WAITING_FOR_BUDGET rewards from newly funded slots, retry failed slot deposits, and
 * finish withdrawals (a confirmed one a reorganisation removed included). Every step is claimed in the database, so instances may run it at once.
 */
export async function runRewardsRound(
  ctx: ServiceContext,
  options: { now?: Date; onlyAuthors?: string[]; onlyContributions?: string[]; onlyRewards?: string[] } = {},
) {
  const reviewed = await reviewPublishedContributions(ctx, {
    siteUrl: ctx.config.siteUrl ?? "http://localhost:3000",
    onlyAuthors: options.onlyAuthors,
    onlyContributions: options.onlyContributions,
  });
  const finished = await finishPayingRewards(ctx, { now: options.now, only: options.onlyRewards });
  if (!options.onlyAuthors && !options.onlyContributions) await fundPendingCampaigns(ctx);
  const round = await payWaitingRewards(ctx, { only: options.onlyRewards });
  const onlySome = options.onlyAuthors || options.onlyContributions || options.onlyRewards;
  // A withdrawal a reorganisation removed is PENDING again, and sent again in the same round.
  if (!onlySome) await watchConfirmedWithdrawals(ctx, { now: options.now });
  const withdrawals = onlySome ? 0 : await finishPendingWithdrawals(ctx, { now: options.now });
  return { reviewed, finished, ...round, withdrawals };
}

/** Every 5 s. */
export const rewardsWorker: Worker = {
  name: "forum-rewards",
  everyMs: 5_000,
  run: async (ctx) => {
    await runRewardsRound(ctx);
  },
};

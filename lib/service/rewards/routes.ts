import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import type { ServiceContext } from "../context";
import { requireActor } from "../auth/actor";
import { onContributionPublished, onContributionRemoved, type PublishedContribution, type RemovedContribution } from "../forum/publish-hooks";
import { createRewardCampaign, listRewardCampaigns, presentCampaign } from "./campaigns";
import { rewardGuide } from "./guide";
import { listMyRewards, rewardsOverview } from "./list-rewards";
import { payWaitingRewards } from "./pay-rewards";
import { getPayout, updatePayout } from "./payout";
import { declineRemovedContribution, reviewContribution } from "./review-contribution";
import { createWithdrawal, getWallet, getWithdrawal, listLedger } from "./wallet";
import { listReferredOwners } from "./list-referred";

/**
 * The review runs in the publishing request (database only); the payment is started without
 * waiting for it, so publishing never waits on the chain. The rewards worker repeats both.
 */
async function reviewPublishedContribution(ctx: ServiceContext, c: PublishedContribution) {
  const id = await reviewContribution(ctx, c);
  if (id && ctx.config.chain) void payWaitingRewards(ctx).catch((error) => console.error("[rewards] payment after review:", error));
}

async function declineRemoved(ctx: ServiceContext, c: RemovedContribution) {
  await declineRemovedContribution(ctx, c);
}

export function registerRewardRoutes(router: ServiceRouter) {
  onContributionPublished(reviewPublishedContribution);
  onContributionRemoved(declineRemoved);

  // GET /v1/forum/rewards
  router.implement(routes.getForumRewards, ({ ctx }) => rewardsOverview(ctx));
  // GET /v1/forum/guide
  router.implement(routes.getRewardGuide, async ({ ctx }) => rewardGuide(ctx));
  // GET /v1/forum/me/rewards
  router.implement(routes.listMyRewards, ({ ctx, actor, query }) => listMyRewards(ctx, requireActor(actor), query));
  // GET, PUT /v1/forum/me/payout
  router.implement(routes.getPayout, ({ ctx, actor }) => getPayout(ctx, requireActor(actor)));
  router.implement(routes.updatePayout, ({ ctx, actor, body }) => updatePayout(ctx, requireActor(actor), body));
  // /v1/forum/reward-campaigns
  router.implement(routes.listRewardCampaigns, ({ ctx, query }) => listRewardCampaigns(ctx, query));
  router.implement(routes.getRewardCampaign, async ({ ctx, params }) => ({ data: await presentCampaign(ctx, params.id) }));
  router.implement(routes.createRewardCampaign, ({ ctx, actor, body }) => createRewardCampaign(ctx, requireActor(actor), body));
  // /v1/wallet
  router.implement(routes.getWallet, ({ ctx, actor }) => getWallet(ctx, requireActor(actor)));
  router.implement(routes.listWalletLedger, ({ ctx, actor, query }) => listLedger(ctx, requireActor(actor), query));
  router.implement(routes.createWithdrawal, ({ ctx, actor, body }) => createWithdrawal(ctx, requireActor(actor), body));
  router.implement(routes.getWithdrawal, ({ ctx, actor, params }) => getWithdrawal(ctx, requireActor(actor), params.id));
  // GET /v1/referrals/referred
  router.implement(routes.listReferredOwners, ({ ctx, actor, query }) => listReferredOwners(ctx, requireActor(actor), query));
}

import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { requireActor } from "../auth/actor";
import { createRewardCampaign, listRewardCampaigns, presentCampaign } from "./campaigns";
import { rewardGuide } from "./guide";
import { listMyRewards, rewardsOverview } from "./list-rewards";
import { getPayout, updatePayout } from "./payout";
import { createWithdrawal, getWallet, getWithdrawal, listLedger } from "./wallet";
import { listReferredOwners } from "./list-referred";

export function registerRewardRoutes(router: ServiceRouter) {
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
  router.implement(routes.getRewardCampaign, async ({ ctx, params }) => presentCampaign(ctx, params.id));
  // The campaign keeps its Idempotency-Key: a repeat (even of a creation that crashed) finds it.
  router.implement(
    routes.createRewardCampaign,
    ({ ctx, actor, body, idempotencyKey }) =>
      createRewardCampaign(ctx, requireActor(actor), body, { idempotencyKey: idempotencyKey ?? undefined }),
    { replayable: true },
  );
  // /v1/wallet
  router.implement(routes.getWallet, ({ ctx, actor }) => getWallet(ctx, requireActor(actor)));
  router.implement(routes.listWalletLedger, ({ ctx, actor, query }) => listLedger(ctx, requireActor(actor), query));
  // The withdrawal keeps its Idempotency-Key: a retry of one whose process died after the debit finds it.
  router.implement(
    routes.createWithdrawal,
    ({ ctx, actor, body, idempotencyKey }) =>
      createWithdrawal(ctx, requireActor(actor), body, { idempotencyKey: idempotencyKey ?? undefined }),
    { replayable: true },
  );
  router.implement(routes.getWithdrawal, ({ ctx, actor, params }) =>
    getWithdrawal(ctx, requireActor(actor), params.id),
  );
  // GET /v1/referrals/referred
  router.implement(routes.listReferredOwners, ({ ctx, actor, query }) =>
    listReferredOwners(ctx, requireActor(actor), query),
  );
}

import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { placeBid } from "./place-bid";
import { acceptBid, rejectBid, withdrawBid } from "./decide-bid";
import { listAgentBids, listJobBids } from "./list-bids";
import { askBidWallet } from "./ask-bid-wallet";

export function registerBidRoutes(router: ServiceRouter) {
  // POST /v1/jobs/:id/bids
  router.implement(routes.placeBid, ({ ctx, actor, params, body }) => placeBid(ctx, actor, params.id, body));
  // GET /v1/jobs/:jobId/bids
  router.implement(routes.listJobBids, ({ ctx, actor, params, query }) => listJobBids(ctx, actor, params.jobId, query));
  // POST /v1/jobs/:jobId/bids/:bidId/accept
  router.implement(routes.acceptBid, ({ ctx, actor, params, body }) =>
    acceptBid(ctx, actor, params.jobId, params.bidId, body),
  );
  // POST /v1/jobs/:jobId/bids/:bidId/ask-wallet
  router.implement(routes.askBidWallet, ({ ctx, actor, params, siteUrl }) =>
    askBidWallet(ctx, actor, params.jobId, params.bidId, siteUrl),
  );
  // POST /v1/jobs/:jobId/bids/:bidId/reject
  router.implement(routes.rejectBid, ({ ctx, actor, params }) => rejectBid(ctx, actor, params.jobId, params.bidId));
  // POST /v1/agents/:id/bids/:bidId/withdraw
  router.implement(routes.withdrawBid, ({ ctx, actor, params }) => withdrawBid(ctx, actor, params.id, params.bidId));
  // GET /v1/agents/:id/bids
  router.implement(routes.listAgentBids, ({ ctx, actor, params, query }) =>
    listAgentBids(ctx, actor, params.id, query),
  );
}

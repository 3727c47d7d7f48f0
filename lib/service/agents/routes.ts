import { fail } from "../errors";
import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import type { ServiceContext } from "../context";
import { log } from "../log";
import { signUpAgent } from "./sign-up-agent";
import {
  claimAgent,
  listOwnedAgents,
  previewAgentClaim,
  recordHeartbeat,
  referralCodeOf,
  updateAgent,
} from "./manage-agent";
import { getAgentRowOrThrow, presentAgent } from "./present-agent";
import { agentViewerOf } from "./agent-viewer";
import { createAgentKey, listAgentKeys, revokeAgentKey, rotateAgentKey } from "./manage-agent-keys";
import { lapseExpiredClaims } from "../jobs/read-job";
import { listAgentJobs } from "./list-agent-jobs";

export interface AgentRouteHooks {
  /** After a payout wallet was set: what waited for it is paid (composed in app.ts: payout-wallet-set.ts). */
  afterPayoutWalletSet?: (ctx: ServiceContext, agentId: string) => Promise<void>;
}

export function registerAgentRoutes(router: ServiceRouter, hooks: AgentRouteHooks = {}) {
  // POST /v1/agent-signups
  router.implement(routes.signUpAgent, ({ ctx, body, siteUrl }) => signUpAgent(ctx, body, siteUrl));
  // POST /v1/agents/heartbeat
  router.implement(routes.heartbeat, ({ ctx, actor }) => recordHeartbeat(ctx, actor));
  // GET /v1/agents/me
  router.implement(routes.getMyAgent, async ({ ctx, actor }) => {
    if (actor.kind !== "AGENT")
      throw fail("FORBIDDEN", "GET /v1/agents/me is for agent keys; humans list their agents at /v1/me/agents");
    // A bounty claim whose window ran out is lapsed before the agent's activeJobs is counted (the worker may not have run yet).
    await lapseExpiredClaims(ctx, { agentId: actor.agentId });
    return await presentAgent(ctx, await getAgentRowOrThrow(ctx, actor.agentId), actor);
  });
  // GET /v1/me/agents
  router.implement(routes.listMyAgents, ({ ctx, actor }) => listOwnedAgents(ctx, actor));
  // GET /v1/agents/:id
  router.implement(routes.getAgent, async ({ ctx, actor, params }) => {
    const agent = await getAgentRowOrThrow(ctx, params.id);
    await lapseExpiredClaims(ctx, { agentId: agent.id });
    return { ...(await presentAgent(ctx, agent, actor)), viewer: agentViewerOf(actor, agent) };
  });
  // GET /v1/agents/:id/jobs
  router.implement(routes.listAgentJobs, ({ ctx, actor, params, query }) =>
    listAgentJobs(ctx, actor, params.id, query),
  );
  // PATCH /v1/agents/:id
  router.implement(routes.updateAgent, async ({ ctx, actor, params, body }) => {
    const agent = await updateAgent(ctx, actor, params.id, body);
    // Released after the answer: a release waits for its receipt, which the owner need not watch.
    if (body.walletAddress && hooks.afterPayoutWalletSet)
      void hooks
        .afterPayoutWalletSet(ctx, params.id)
        .catch((error: Error) =>
          log.warn({ agentId: params.id, reason: error.message }, "releases after the wallet was set failed"),
        );
    return agent;
  });
  // GET /v1/agent-claims/:token
  router.implement(routes.previewAgentClaim, ({ ctx, params }) => previewAgentClaim(ctx, params.token));
  // POST /v1/agent-claims/:token
  router.implement(routes.claimAgent, ({ ctx, actor, params }) => claimAgent(ctx, actor, params.token));
  // GET /v1/agents/:id/keys
  router.implement(routes.listAgentKeys, ({ ctx, actor, params }) => listAgentKeys(ctx, actor, params.id));
  // POST /v1/agents/:id/keys
  router.implement(routes.createAgentKey, ({ ctx, actor, params, body }) =>
    createAgentKey(ctx, actor, params.id, body),
  );
  // DELETE /v1/agents/:id/keys/:keyId
  router.implement(routes.revokeAgentKey, ({ ctx, actor, params }) =>
    revokeAgentKey(ctx, actor, params.id, params.keyId),
  );
  // POST /v1/agents/:id/keys/:keyId/rotate
  router.implement(routes.rotateAgentKey, ({ ctx, actor, params, body }) =>
    rotateAgentKey(ctx, actor, params.id, params.keyId, body),
  );
  // GET /v1/referrals/my-code
  router.implement(routes.getReferralCode, ({ ctx, actor, siteUrl }) => referralCodeOf(ctx, actor, siteUrl));
}

import { fail } from "../errors";
import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { createNonce, endSession, verifySiwe } from "./siwe";
import { presentUser } from "./present-user";
import { isOperator } from "./operator";
import { updateMe } from "./update-me";
import { publicChainInfo } from "@/lib/chain/config";

export function registerAuthRoutes(router: ServiceRouter) {
  // POST /v1/auth/siwe/nonce
  router.implement(routes.createSiweNonce, ({ ctx }) => createNonce(ctx));
  // POST /v1/auth/siwe/verify
  router.implement(routes.verifySiwe, ({ ctx, body, siteUrl }) => verifySiwe(ctx, body, siteUrl));
  // DELETE /v1/auth/session
  router.implement(routes.endSession, ({ ctx, actor, request }) => {
    if (actor.kind !== "USER") throw fail("FORBIDDEN", "only a human session can be ended; agent keys stay valid");
    const token = request.headers.get("authorization")!.replace(/^Bearer\s+/i, "");
    return endSession(ctx, token);
  });
  // GET /v1/me
  router.implement(routes.getMe, async ({ ctx, actor }) =>
    actor.kind === "USER"
      ? {
          kind: "USER" as const,
          user: await presentUser(ctx, actor.userId),
          scopes: actor.scopes,
          isOperator: await isOperator(ctx, actor),
        }
      : { kind: "AGENT" as const, agentId: actor.agentId, scopes: actor.scopes, isOperator: false },
  );
  // PATCH /v1/me
  router.implement(routes.updateMe, ({ ctx, actor, body }) => updateMe(ctx, actor, body));
  // GET /v1/chain
  router.implement(routes.getChain, async ({ ctx }) => {
    const chain = ctx.config.chain;
    if (!chain) throw fail("CHAIN_UNAVAILABLE", "no payment chain is configured for this deployment");
    return {
      // No keys; escrowAddress is the contract new deposits go to; a local chain's RPC URL only.
      ...publicChainInfo(chain),
      identityRegistryAddress: chain.identityRegistryAddress ?? null,
      reputationRegistryAddress: chain.reputationRegistryAddress ?? null,
    };
  });
}

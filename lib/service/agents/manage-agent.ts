import { fail } from "../errors";
import type { z } from "zod";
import { sql } from "kysely";
import {
  CLAIMED_AGENT_SCOPES,
  NEW_AGENT_SCOPES,
  PAYOUT_WALLET_SCOPE,
  type UpdateAgentRequest,
} from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { forgetCachedKeys, requireUser } from "../auth/actor";
import { hashSecret } from "../auth/tokens";
import { getAgentRowOrThrow, presentAgent } from "./present-agent";
import { actsForAgent } from "../auth/acting-for-agent";
import { publishEvent } from "../events/publish-event";
import { publishControl } from "../events/stream-hub";
import { requirePayableAddress } from "../payouts/payable-address";

/** The first heartbeat is the agent's proof of life: PENDING_PROOF becomes ACTIVE. */
export async function recordHeartbeat(ctx: ServiceContext, actor: Actor) {
  if (actor.kind !== "AGENT") throw fail("FORBIDDEN", "only an agent key sends heartbeats");
  const now = ctx.now();
  await ctx.db
    .updateTable("agents")
    .set({ status: "ACTIVE", verified_at: now, verification_method: "heartbeat_activation", updated_at: now })
    .where("id", "=", actor.agentId)
    .where("status", "=", "PENDING_PROOF")
    .execute();
  const row = await getAgentRowOrThrow(ctx, actor.agentId);
  return await presentAgent(ctx, row, actor);
}

export async function updateAgent(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  input: z.output<typeof UpdateAgentRequest>,
) {
  const row = await getAgentRowOrThrow(ctx, agentId);
  // The agent itself or its owner, never another agent of the same owner.
  if (!actsForAgent(actor, row)) throw fail("FORBIDDEN", "only the agent itself or its owner may change it");
  const changes: Record<string, unknown> = {};
  if (input.maxActiveJobs !== undefined) changes.max_active_jobs = input.maxActiveJobs;
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.walletAddress !== undefined) {
    // Checked before anything is written: a refused address changes nothing (400 ADDRESS_NOT_PAYABLE).
    const wallet =
      input.walletAddress === null ? null : await requirePayableAddress(ctx, input.walletAddress, "walletAddress");
    await changePayoutWallet(ctx, actor, agentId, wallet, changes);
  } else if (Object.keys(changes).length > 0) {
    await ctx.db
      .updateTable("agents")
      .set({ ...changes, updated_at: ctx.now() })
      .where("id", "=", agentId)
      .execute();
  }
  return await presentAgent(ctx, await getAgentRowOrThrow(ctx, agentId), actor);
}

/**
 * Where a claimed agent is paid belongs to its owner: the owner's session changes it, and an agent
 * key only with wallet:payout, a scope no key gets by default (a leaked or short-lived key with
 * jobs:write must not redirect the next release). One exception, so that an agent following
 * skill.md can be paid without waiting for its owner: while the agent has no wallet at all, its
 * key may set one (nothing is redirected: there is no payout address yet, and the owner is told);
 * a key without the scope never changes or clears a wallet that is set. An unclaimed agent has no
 * owner and keeps setting its own. Decided on the locked row, so a claim or another key's first
 * wallet at the same moment cannot slip between.
 * The change is kept in agent_wallet_changes and told to the owner (inbox and mail) and the agent
 * (agent.wallet_changed) in the same transaction.
 */
async function changePayoutWallet(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  wallet: string | null,
  otherChanges: Record<string, unknown>,
) {
  await ctx.db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom("agents")
      .select(["id", "name", "owner_user_id", "wallet_address"])
      .where("id", "=", agentId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const firstWallet = locked.wallet_address === null && wallet !== null;
    if (locked.owner_user_id && actor.kind === "AGENT" && !actor.scopes.includes(PAYOUT_WALLET_SCOPE) && !firstWallet) {
      throw fail(
        "MISSING_SCOPE",
        "the API key lacks the wallet:payout scope: a claimed agent's key sets its payout wallet only while none is set; changing or clearing it is its owner's (the owner's session, or a key the owner minted with wallet:payout)",
      );
    }
    const now = ctx.now();
    await trx
      .updateTable("agents")
      .set({ ...otherChanges, wallet_address: wallet, updated_at: now })
      .where("id", "=", agentId)
      .execute();
    if ((locked.wallet_address ?? "").toLowerCase() === (wallet ?? "").toLowerCase()) return;
    await trx
      .insertInto("agent_wallet_changes")
      .values({
        agent_id: agentId,
        old_address: locked.wallet_address,
        new_address: wallet,
        changed_by_kind: actor.kind === "USER" ? "OWNER" : "AGENT_KEY",
        changed_by_user_id: actor.kind === "USER" ? actor.userId : null,
        changed_by_key_id: actor.kind === "AGENT" ? actor.keyId : null,
      })
      .execute();
    await publishEvent(trx, {
      type: "agent.wallet_changed",
      to: [agentId, locked.owner_user_id],
      // A key's change names no actor: the notification fan-out skips the actor's person, which for
      // an agent key is its owner, the one who must hear that the payout moved.
      actorId: actor.kind === "USER" ? actor.userId : null,
      data: {
        agentId,
        agentName: locked.name,
        oldAddress: locked.wallet_address,
        newAddress: wallet,
        changedBy: actor.kind === "USER" ? "OWNER" : "AGENT_KEY",
        ...(actor.kind === "AGENT" ? { keyId: actor.keyId } : {}),
      },
    });
  });
}

/**
 * GET /v1/agent-claims/:token: which agent an open link claims, so the claim page names it before
 * the person confirms. The token is the credential; its holder learns the agent's public name, id
 * and signup date, nothing private. A used or expired link names no agent (the same refusals as
 * the claim).
 */
export async function previewAgentClaim(ctx: ServiceContext, token: string) {
  const claim = await ctx.db
    .selectFrom("agent_claims")
    .innerJoin("agents", "agents.id", "agent_claims.agent_id")
    .select(["agent_claims.claimed_at", "agent_claims.expires_at", "agents.id", "agents.name", "agents.created_at"])
    .where("agent_claims.token_hash", "=", hashSecret(token))
    .executeTakeFirst();
  if (!claim) throw fail("NOT_FOUND", "claim link not found");
  if (claim.claimed_at) throw fail("CLAIM_USED", "this claim link was already used");
  if (claim.expires_at.getTime() < ctx.now().getTime()) throw fail("CLAIM_EXPIRED", "this claim link has expired");
  return {
    agent: { id: claim.id, name: claim.name, createdAt: claim.created_at.toISOString() },
    expiresAt: claim.expires_at.toISOString(),
  };
}

/**
 * The owner claim: the signed-in human who opens the mailed link becomes the owner, and the
 * agent's key gains forum:write and wallet:withdraw. The token works once.
 */
export async function claimAgent(ctx: ServiceContext, actor: Actor, token: string) {
  const user = requireUser(actor);
  const agentId = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const claim = await trx
        .selectFrom("agent_claims")
        .selectAll()
        .where("token_hash", "=", hashSecret(token))
        .forUpdate()
        .executeTakeFirst();
      if (!claim) throw fail("NOT_FOUND", "claim link not found");
      if (claim.claimed_at) throw fail("CLAIM_USED", "this claim link was already used");
      if (claim.expires_at.getTime() < ctx.now().getTime()) throw fail("CLAIM_EXPIRED", "this claim link has expired");
      await trx
        .updateTable("agent_claims")
        .set({ claimed_at: ctx.now(), claimed_by_user_id: user.userId })
        .where("token_hash", "=", claim.token_hash)
        .execute();
      await trx
        .updateTable("agents")
        .set({ owner_user_id: user.userId, updated_at: ctx.now() })
        .where("id", "=", claim.agent_id)
        .execute();
      // Keys that hold every scope of an unclaimed agent gain the claimed ones; a key that was
      // narrowed on purpose stays narrow.
      await trx
        .updateTable("api_keys")
        .set({ scopes: CLAIMED_AGENT_SCOPES })
        .where("agent_id", "=", claim.agent_id)
        .where("revoked_at", "is", null)
        .where(sql<boolean>`scopes @> ${sql.val(NEW_AGENT_SCOPES)}::text[]`)
        .execute();
      // Every instance forgets the keys it kept, as they were before the claim (auth/actor.ts).
      await publishControl(ctx, trx, { kind: "agent.keys.changed", agentId: claim.agent_id });
      return claim.agent_id;
    })
    .finally(() => forgetCachedKeys(ctx));
  return await presentAgent(ctx, await getAgentRowOrThrow(ctx, agentId), actor);
}

export async function listOwnedAgents(ctx: ServiceContext, actor: Actor) {
  const user = requireUser(actor);
  const rows = await ctx.db
    .selectFrom("agents")
    .selectAll()
    .where("owner_user_id", "=", user.userId)
    .orderBy("created_at", "desc")
    .execute();
  return await Promise.all(rows.map((row) => presentAgent(ctx, row, actor)));
}

export async function referralCodeOf(ctx: ServiceContext, actor: Actor, siteUrl: string) {
  const base = siteUrl.replace(/\/$/, "");
  if (actor.kind === "AGENT") {
    const row = await getAgentRowOrThrow(ctx, actor.agentId);
    return { code: row.referral_code, shareUrl: shareUrlOf(base, row) };
  }
  // A human's code is that of their first agent; without an agent there is nothing to refer from.
  const row = await ctx.db
    .selectFrom("agents")
    .select(["id", "referral_code"])
    .where("owner_user_id", "=", actor.userId)
    .orderBy("created_at", "asc")
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "referral code (claim an agent first) not found");
  return { code: row.referral_code, shareUrl: shareUrlOf(base, row) };
}

/**
 * The link a referrer shares with people: /join shows the code (agents send it as referralCode at
 * signup) and starts a poster's first thread naming the referring agent (referredByAgentId).
 */
function shareUrlOf(base: string, agent: { id: string; referral_code: string }): string {
  return `${base}/join?${new URLSearchParams({ ref: agent.referral_code, agent: agent.id })}`;
}

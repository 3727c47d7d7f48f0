import type { z } from "zod";
import { sql } from "kysely";
import { CLAIMED_AGENT_SCOPES, NEW_AGENT_SCOPES, type UpdateAgentRequest } from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";
import { requireUser } from "../auth/actor";
import { HttpError, forbidden, notFound } from "../http/errors";
import { hashSecret } from "../auth/tokens";
import { getAgentRowOrThrow, presentAgent } from "./present-agent";
import { actsForAgent } from "../auth/acting-for-agent";

/** The first heartbeat is the agent's proof of life: PENDING_PROOF becomes ACTIVE. */
export async function recordHeartbeat(ctx: ServiceContext, actor: Actor) {
  if (actor.kind !== "AGENT") throw forbidden("only an agent key sends heartbeats");
  const now = ctx.now();
  await ctx.db
    .updateTable("agents")
    .set({ status: "ACTIVE", verified_at: now, verification_method: "heartbeat_activation", updated_at: now })
    .where("id", "=", actor.agentId)
    .where("status", "=", "PENDING_PROOF")
    .execute();
  const row = await getAgentRowOrThrow(ctx, actor.agentId);
  return { data: await presentAgent(ctx, row, actor) };
}

export async function updateAgent(ctx: ServiceContext, actor: Actor, agentId: string, input: z.output<typeof UpdateAgentRequest>) {
  const row = await getAgentRowOrThrow(ctx, agentId);
  // The agent itself or its owner, never another agent of the same owner.
  if (!actsForAgent(actor, row)) throw forbidden("only the agent itself or its owner may change it");
  const changes: Record<string, unknown> = {};
  if (input.maxActiveJobs !== undefined) changes.max_active_jobs = input.maxActiveJobs;
  if (input.walletAddress !== undefined) changes.wallet_address = input.walletAddress;
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (Object.keys(changes).length > 0) {
    await ctx.db.updateTable("agents").set({ ...changes, updated_at: ctx.now() }).where("id", "=", agentId).execute();
  }
  return { data: await presentAgent(ctx, await getAgentRowOrThrow(ctx, agentId), actor) };
}

/**
 * The owner claim: the signed-in human who opens the mailed link becomes the owner, and the
 * agent's key gains forum:write and wallet:withdraw. The token works once.
 */
export async function claimAgent(ctx: ServiceContext, actor: Actor, token: string) {
  const user = requireUser(actor);
  const agentId = await ctx.db.transaction().execute(async (trx) => {
    const claim = await trx
      .selectFrom("agent_claims")
      .selectAll()
      .where("token_hash", "=", hashSecret(token))
      .forUpdate()
      .executeTakeFirst();
    if (!claim) throw notFound("claim link");
    if (claim.claimed_at) throw new HttpError(409, "this claim link was already used", "CLAIM_USED");
    if (claim.expires_at.getTime() < ctx.now().getTime()) throw new HttpError(410, "this claim link has expired", "CLAIM_EXPIRED");
    await trx
      .updateTable("agent_claims")
      .set({ claimed_at: ctx.now(), claimed_by_user_id: user.userId })
      .where("token_hash", "=", claim.token_hash)
      .execute();
    await trx.updateTable("agents").set({ owner_user_id: user.userId, updated_at: ctx.now() }).where("id", "=", claim.agent_id).execute();
    // Keys that hold every scope of an unclaimed agent gain the claimed ones; a key that was
    // narrowed on purpose stays narrow.
    await trx
      .updateTable("api_keys")
      .set({ scopes: CLAIMED_AGENT_SCOPES })
      .where("agent_id", "=", claim.agent_id)
      .where("revoked_at", "is", null)
      .where(sql<boolean>`scopes @> ${sql.val(NEW_AGENT_SCOPES)}::text[]`)
      .execute();
    return claim.agent_id;
  });
  return { data: await presentAgent(ctx, await getAgentRowOrThrow(ctx, agentId), actor) };
}

export async function listOwnedAgents(ctx: ServiceContext, actor: Actor) {
  const user = requireUser(actor);
  const rows = await ctx.db.selectFrom("agents").selectAll().where("owner_user_id", "=", user.userId).orderBy("created_at", "desc").execute();
  return { data: await Promise.all(rows.map((row) => presentAgent(ctx, row, actor))) };
}

export async function referralCodeOf(ctx: ServiceContext, actor: Actor, siteUrl: string) {
  const base = siteUrl.replace(/\/$/, "");
  if (actor.kind === "AGENT") {
    const row = await getAgentRowOrThrow(ctx, actor.agentId);
    return { data: { code: row.referral_code, shareUrl: shareUrlOf(base, row) } };
  }
  // A human's code is that of their first agent; without an agent there is nothing to refer from.
  const row = await ctx.db
    .selectFrom("agents")
    .select(["id", "referral_code"])
    .where("owner_user_id", "=", actor.userId)
    .orderBy("created_at", "asc")
    .executeTakeFirst();
  if (!row) throw notFound("referral code (claim an agent first)");
  return { data: { code: row.referral_code, shareUrl: shareUrlOf(base, row) } };
}

/**
 * The link a referrer shares with people: /join shows the code (agents send it as referralCode at
 * signup) and starts a poster's first thread naming the referring agent (referredByAgentId).
 */
function shareUrlOf(base: string, agent: { id: string; referral_code: string }): string {
  return `${base}/join?${new URLSearchParams({ ref: agent.referral_code, agent: agent.id })}`;
}

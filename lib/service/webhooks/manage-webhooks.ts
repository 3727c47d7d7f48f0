import { fail } from "../errors";
import { sql, type Transaction } from "kysely";
import type { z } from "zod";
import {
  MAX_WEBHOOK_ENDPOINTS,
  type CreateWebhookRequest,
  type UpdateWebhookRequest,
} from "@/lib/api/schemas/webhooks";
import type { ServiceContext } from "../context";
import type { Database } from "../db/schema";
import type { Actor } from "../auth/actor";
import { actsForAgent } from "../auth/acting-for-agent";
import { refuseOwnUrl, serviceFetchPolicy } from "../proofs/fetch-policy";
import { checkUrlShape } from "../proofs/safe-fetch";
import { classifyAddress } from "../proofs/address-policy";
import {
  newWebhookSecret,
  SECRET_ROTATION_OVERLAP_MS,
  sealWebhookSecret,
  webhookSecretPrefix,
} from "./endpoint-secret";
import { presentEndpoint, type EndpointRow } from "./present-webhook";

type DbOrTrx = ServiceContext["db"] | Transaction<Database>;

/** Whose endpoints a route names: an agent's (/v1/agents/:id/webhooks) or the calling person's own (/v1/me/webhooks). */
export type WebhookOwnerRef = { agentId: string } | "me";

/**
 * An agent's endpoints are the agent's business and its owner's (the rule of auth/acting-for-agent.ts);
 * a person's own endpoints (events naming the person: jobs they posted) are theirs alone, from
 * their session. With `lock`, the owner's row is locked, so that concurrent creations count one at a time.
 */
export async function webhookOwnerOrThrow(
  db: DbOrTrx,
  actor: Actor,
  owner: WebhookOwnerRef,
  lock = false,
): Promise<{ ownerId: string; ownerKind: "AGENT" | "USER" }> {
  if (owner === "me") {
    if (actor.kind !== "USER")
      throw fail(
        "FORBIDDEN",
        "/v1/me/webhooks are a person's own endpoints (sign in); an agent's key manages its endpoints at /v1/agents/:id/webhooks",
      );
    if (lock) await db.selectFrom("users").select("id").where("id", "=", actor.userId).forUpdate().executeTakeFirst();
    return { ownerId: actor.userId, ownerKind: "USER" };
  }
  let query = db.selectFrom("agents").select(["id", "owner_user_id"]).where("id", "=", owner.agentId);
  if (lock) query = query.forUpdate();
  const agent = await query.executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (!actsForAgent(actor, agent))
    throw fail("FORBIDDEN", "only the agent itself or its owner may manage its webhooks");
  return { ownerId: agent.id, ownerKind: "AGENT" };
}

export async function endpointOrThrow(
  db: DbOrTrx,
  ownerId: string,
  endpointId: string,
  lock = false,
): Promise<EndpointRow> {
  let query = db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", endpointId)
    .where("owner_id", "=", ownerId);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "webhook not found");
  return row;
}

/**
 * A URL is screened when it is registered, so an obvious mistake or probe is refused at once: this
 * marketplace itself (refuseOwnUrl), and what safeFetch refuses without a lookup (scheme, user
 * info, reserved ports, local-network names, literal private addresses). A name that resolves
 * inside is refused by safeFetch on every attempt.
 */
function screenWebhookUrl(ctx: ServiceContext, url: string): void {
  refuseOwnUrl(ctx.config, url, "WEBHOOK_URL_NOT_ALLOWED", "the webhook URL");
  const shape = checkUrlShape(url);
  if (!shape.ok) throw fail("WEBHOOK_URL_NOT_ALLOWED", [`the webhook URL is not allowed: ${shape.reason}`]);
  if (shape.literal !== null) {
    const verdict = classifyAddress(shape.literal, { allowLoopback: serviceFetchPolicy(ctx.config).allowLoopback });
    if (!verdict.allowed) throw fail("WEBHOOK_URL_NOT_ALLOWED", [`the webhook URL is not allowed: ${verdict.reason}`]);
  }
}

export async function listWebhooks(ctx: ServiceContext, actor: Actor, owner: WebhookOwnerRef) {
  const { ownerId } = await webhookOwnerOrThrow(ctx.db, actor, owner);
  const rows = await ctx.db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("owner_id", "=", ownerId)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
  return rows.map(presentEndpoint);
}

export async function getWebhook(ctx: ServiceContext, actor: Actor, owner: WebhookOwnerRef, endpointId: string) {
  const { ownerId } = await webhookOwnerOrThrow(ctx.db, actor, owner);
  return presentEndpoint(await endpointOrThrow(ctx.db, ownerId, endpointId));
}

export async function createWebhook(
  ctx: ServiceContext,
  actor: Actor,
  owner: WebhookOwnerRef,
  input: z.output<typeof CreateWebhookRequest>,
) {
  screenWebhookUrl(ctx, input.url);
  const secret = newWebhookSecret();
  const row = await ctx.db.transaction().execute(async (trx) => {
    // The agent row is locked so that concurrent creations count the endpoints one at a time.
    const { ownerId, ownerKind } = await webhookOwnerOrThrow(trx, actor, owner, true);
    const { n } = await trx
      .selectFrom("webhook_endpoints")
      .select(sql<number>`count(*)::int`.as("n"))
      .where("owner_id", "=", ownerId)
      .executeTakeFirstOrThrow();
    if (n >= MAX_WEBHOOK_ENDPOINTS)
      throw fail(
        "WEBHOOK_LIMIT_REACHED",
        `${ownerKind === "AGENT" ? "the agent" : "you"} already ha${ownerKind === "AGENT" ? "s" : "ve"} ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`,
      );
    const enabled = input.enabled ?? true;
    return trx
      .insertInto("webhook_endpoints")
      .values({
        owner_kind: ownerKind,
        owner_id: ownerId,
        url: input.url,
        description: input.description ?? "",
        events: input.events ?? [],
        enabled,
        disabled_reason: enabled ? null : "disabled by its owner",
        disabled_at: enabled ? null : ctx.now(),
        secret_sealed: sealWebhookSecret(ctx.config, secret),
        secret_prefix: webhookSecretPrefix(secret),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { endpoint: presentEndpoint(row), secret };
}

export async function updateWebhook(
  ctx: ServiceContext,
  actor: Actor,
  owner: WebhookOwnerRef,
  endpointId: string,
  input: z.output<typeof UpdateWebhookRequest>,
) {
  if (input.url !== undefined) screenWebhookUrl(ctx, input.url);
  const now = ctx.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const { ownerId } = await webhookOwnerOrThrow(trx, actor, owner);
    const current = await endpointOrThrow(trx, ownerId, endpointId, true);
    const enabling = input.enabled === true && !current.enabled;
    const disabling = input.enabled === false && current.enabled;
    return trx
      .updateTable("webhook_endpoints")
      .set({
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        // Turning it back on starts a fresh failure run, or the next failure would disable it again at once.
        ...(enabling ? { enabled: true, disabled_reason: null, disabled_at: null, failing_since: null } : {}),
        ...(disabling ? { enabled: false, disabled_reason: "disabled by its owner", disabled_at: now } : {}),
        updated_at: now,
      })
      .where("id", "=", current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return presentEndpoint(row);
}

export async function deleteWebhook(ctx: ServiceContext, actor: Actor, owner: WebhookOwnerRef, endpointId: string) {
  const { ownerId } = await webhookOwnerOrThrow(ctx.db, actor, owner);
  const endpoint = await endpointOrThrow(ctx.db, ownerId, endpointId);
  // Its deliveries and their log go with it (on delete cascade); a POST in flight just finds no row to record into.
  await ctx.db.deleteFrom("webhook_endpoints").where("id", "=", endpoint.id).execute();
  return { id: endpoint.id, deleted: true as const };
}

export async function rotateWebhookSecret(
  ctx: ServiceContext,
  actor: Actor,
  owner: WebhookOwnerRef,
  endpointId: string,
) {
  const { ownerId } = await webhookOwnerOrThrow(ctx.db, actor, owner);
  const endpoint = await endpointOrThrow(ctx.db, ownerId, endpointId);
  const secret = newWebhookSecret();
  const now = ctx.now();
  // The secret it replaces keeps signing beside it for a day (two signatures per delivery), so the
  // receiver can switch to the new one without refusing a delivery meanwhile.
  const row = await ctx.db
    .updateTable("webhook_endpoints")
    .set((eb) => ({
      secret_sealed: sealWebhookSecret(ctx.config, secret),
      secret_prefix: webhookSecretPrefix(secret),
      previous_secret_sealed: eb.ref("secret_sealed"),
      previous_secret_expires_at: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS),
      updated_at: now,
    }))
    .where("id", "=", endpoint.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { endpoint: presentEndpoint(row), secret };
}

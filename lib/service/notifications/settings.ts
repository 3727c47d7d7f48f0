import { fail } from "../errors";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import {
  NOTIFICATION_KINDS,
  NOTIFICATION_KIND_NAMES,
  type NotificationKind,
  type NotificationSettings,
  type UpdateNotificationSettingsRequest,
} from "@/lib/api/schemas/notifications";
import type { Actor } from "../auth/actor";
import { hashSecret } from "../auth/tokens";
import type { ServiceConfig } from "../config";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { sendMail } from "../mail/send-mail";
import { ownSiteOf } from "../proofs/fetch-policy";

/** The inbox and its mail are a person's; an agent is told through its webhooks. */
export function requireHuman(actor: Actor): string {
  if (actor.kind !== "USER")
    throw fail(
      "HUMAN_SESSION_REQUIRED",
      "notifications are for people signed in with a wallet; an agent is told through its webhooks",
    );
  return actor.userId;
}

type Reader = Pick<Db, "selectFrom">;

/** Mail on or off per kind: the person's choices over the defaults. */
export function emailKindsOf(overrides: Record<string, boolean> | null | undefined): Record<NotificationKind, boolean> {
  const kinds = {} as Record<NotificationKind, boolean>;
  for (const kind of NOTIFICATION_KIND_NAMES)
    kinds[kind] = overrides?.[kind] ?? NOTIFICATION_KINDS[kind].emailByDefault;
  return kinds;
}

/**
 * Where a person's mail goes: the address set in their settings once its link was opened; else the
 * owner email of the agent they most recently claimed (the claim link was mailed there, so opening
 * it verified the address, the same rule the rewards call "a verified email"); else nowhere.
 */
export async function mailAddressesOf(
  db: Reader,
  userIds: string[],
): Promise<Map<string, { email: string; source: "SETTINGS" | "CLAIMED_AGENT" }>> {
  const result = new Map<string, { email: string; source: "SETTINGS" | "CLAIMED_AGENT" }>();
  if (userIds.length === 0) return result;
  const claimed = await db
    .selectFrom("agent_claims")
    .innerJoin("agents", "agents.id", "agent_claims.agent_id")
    .select(["agent_claims.claimed_by_user_id as user_id", "agents.owner_email"])
    .where("agent_claims.claimed_by_user_id", "in", userIds)
    .where("agent_claims.claimed_at", "is not", null)
    .orderBy("agent_claims.claimed_at", "asc")
    .execute();
  for (const row of claimed)
    if (row.user_id) result.set(row.user_id, { email: row.owner_email, source: "CLAIMED_AGENT" });
  const own = await db
    .selectFrom("notification_settings")
    .select(["user_id", "email"])
    .where("user_id", "in", userIds)
    .where("email_verified_at", "is not", null)
    .execute();
  for (const row of own) if (row.email) result.set(row.user_id, { email: row.email, source: "SETTINGS" });
  return result;
}

export async function getNotificationSettings(ctx: ServiceContext, actor: Actor): Promise<NotificationSettings> {
  const userId = requireHuman(actor);
  return await settingsOf(ctx, userId);
}

async function settingsOf(ctx: ServiceContext, userId: string): Promise<NotificationSettings> {
  const row = await ctx.db
    .selectFrom("notification_settings")
    .selectAll()
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const address = (await mailAddressesOf(ctx.db, [userId])).get(userId) ?? null;
  const kinds = emailKindsOf(row?.email_kinds);
  return {
    email: address?.email ?? null,
    emailSource: address?.source ?? null,
    pendingEmail:
      row?.pending_email && row.pending_expires_at && row.pending_expires_at > ctx.now() ? row.pending_email : null,
    kinds: NOTIFICATION_KIND_NAMES.map((kind) => ({ kind, label: NOTIFICATION_KINDS[kind].label, email: kinds[kind] })),
    followOnReply: row?.follow_on_reply ?? true,
  };
}

const VERIFY_HOURS = 48;

/**
 * PATCH /v1/notifications/settings. Kinds switch at once; a new address is only kept pending and a
 * link mailed to it (token stored hashed): mail goes there once the link is opened, so nobody can
 * point someone's notifications at an inbox they do not hold, or ours at a stranger's.
 */
export async function updateNotificationSettings(
  ctx: ServiceContext,
  actor: Actor,
  input: z.output<typeof UpdateNotificationSettingsRequest>,
  siteUrl: string,
) {
  const userId = requireHuman(actor);
  const current = await ctx.db
    .selectFrom("notification_settings")
    .select("email_kinds")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const kinds = { ...(current?.email_kinds ?? {}), ...(input.email_kinds ?? {}) };
  const now = ctx.now();
  const set: Record<string, unknown> = {
    email_kinds: JSON.stringify(kinds),
    updated_at: now,
    ...(input.followOnReply !== undefined ? { follow_on_reply: input.followOnReply } : {}),
  };
  let token: string | null = null;
  if (input.email === null)
    Object.assign(set, {
      email: null,
      email_verified_at: null,
      pending_email: null,
      pending_token_hash: null,
      pending_expires_at: null,
    });
  else if (input.email !== undefined) {
    token = randomBytes(32).toString("base64url");
    Object.assign(set, {
      pending_email: input.email,
      pending_token_hash: hashSecret(token),
      pending_expires_at: new Date(now.getTime() + VERIFY_HOURS * 3_600_000),
    });
  }
  await ctx.db
    .insertInto("notification_settings")
    .values({ user_id: userId, ...set } as never)
    .onConflict((oc) => oc.column("user_id").doUpdateSet(set as never))
    .execute();
  if (token && input.email) {
    const link = `${siteUrl.replace(/\/$/, "")}/settings/notifications/verify?token=${token}`;
    await sendMail(ctx, {
      to: input.email,
      subject: "Confirm your notification email",
      text: `Open this link to receive AgentWork notifications at this address (valid ${VERIFY_HOURS} hours):\n\n${link}\n\nIf you did not ask for this, ignore this mail.`,
    });
  }
  return await settingsOf(ctx, userId);
}

/** POST /v1/notifications/email/verify: the mailed link proves the address; no sign-in needed. */
export async function verifyNotificationEmail(ctx: ServiceContext, token: string) {
  const now = ctx.now();
  const row = await ctx.db
    .updateTable("notification_settings")
    .set((eb) => ({
      email: eb.ref("pending_email"),
      email_verified_at: now,
      pending_email: null,
      pending_token_hash: null,
      pending_expires_at: null,
      updated_at: now,
    }))
    .where("pending_token_hash", "=", hashSecret(token))
    .where("pending_expires_at", ">", now)
    .returning("email")
    .executeTakeFirst();
  if (!row?.email)
    throw fail(
      "EMAIL_TOKEN_INVALID",
      "the verification link is not valid: it was altered, expired, or a newer one was sent",
    );
  return { email: row.email };
}

// ── One-click unsubscribe ──────────────────────────────────────────────────────────────────────

/**
 * The key of unsubscribe links: derived from the service's stable HMAC secret (the same on every
 * instance and across restarts) under its own label, so a link from one purpose never verifies as
 * another.
 */
function unsubscribeKey(config: Pick<ServiceConfig, "originHashSecret">): Buffer {
  return createHmac("sha256", config.originHashSecret).update("awm unsubscribe link v1").digest();
}

function signature(config: Pick<ServiceConfig, "originHashSecret">, payload: string): Buffer {
  return createHmac("sha256", unsubscribeKey(config)).update(payload).digest().subarray(0, 18);
}

/** A link token naming a person and a kind, signed: anyone holding the mail may use it, nobody can make one. */
function unsubscribeToken(
  config: Pick<ServiceConfig, "originHashSecret">,
  userId: string,
  kind: NotificationKind,
): string {
  const payload = Buffer.from(`${userId}:${kind}`).toString("base64url");
  return `${payload}.${signature(config, payload).toString("base64url")}`;
}

function readUnsubscribeToken(
  config: Pick<ServiceConfig, "originHashSecret">,
  token: string,
): { userId: string; kind: NotificationKind } {
  const refuse = () => fail("UNSUBSCRIBE_TOKEN_INVALID", "this unsubscribe link was not made by this service");
  const [payload, sig, ...rest] = token.split(".");
  if (!payload || !sig || rest.length) throw refuse();
  const expected = signature(config, payload);
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse();
  const [userId, kind] = Buffer.from(payload, "base64url").toString("utf8").split(":");
  if (!userId || !(NOTIFICATION_KIND_NAMES as string[]).includes(kind ?? "")) throw refuse();
  return { userId, kind: kind as NotificationKind };
}

export function unsubscribeUrls(
  config: ServiceConfig,
  userId: string,
  kind: NotificationKind,
): { page: string; oneClick: string } | null {
  const site = ownSiteOf(config);
  if (!site) return null;
  const token = unsubscribeToken(config, userId, kind);
  const base = site.replace(/\/$/, "");
  return {
    page: `${base}/unsubscribe?token=${token}`,
    oneClick: `${base}/v1/notifications/unsubscribe?token=${token}`,
  };
}

/** GET: says what the link would turn off, changing nothing (link scanners open every link of a mail). */
export function describeUnsubscribe(ctx: ServiceContext, token: string) {
  const { kind } = readUnsubscribeToken(ctx.config, token);
  return { kind, label: NOTIFICATION_KINDS[kind].label, unsubscribed: false };
}

/** POST (RFC 8058 one-click, or the page's button): turns the kind's mail off for that person. */
export async function unsubscribe(ctx: ServiceContext, token: string) {
  const { userId, kind } = readUnsubscribeToken(ctx.config, token);
  const user = await ctx.db.selectFrom("users").select("id").where("id", "=", userId).executeTakeFirst();
  if (!user) throw fail("UNSUBSCRIBE_TOKEN_INVALID", "this unsubscribe link was not made by this service");
  const current = await ctx.db
    .selectFrom("notification_settings")
    .select("email_kinds")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const kinds = JSON.stringify({ ...(current?.email_kinds ?? {}), [kind]: false });
  await ctx.db
    .insertInto("notification_settings")
    .values({ user_id: userId, email_kinds: kinds })
    .onConflict((oc) => oc.column("user_id").doUpdateSet({ email_kinds: kinds, updated_at: ctx.now() }))
    .execute();
  return { kind, label: NOTIFICATION_KINDS[kind].label, unsubscribed: true };
}

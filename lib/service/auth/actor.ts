import type { Scope } from "@/lib/api/schemas/agents";
import { SCOPES } from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import { forbidden, unauthorized } from "../http/errors";
import { AGENT_KEY_PREFIX, USER_SESSION_PREFIX, hashSecret } from "./tokens";

/** Who is calling, taken from the credential alone; request bodies never name the caller. */
export type Actor =
  | { kind: "AGENT"; agentId: string; /** The api_keys row of the credential. */ keyId: string; keyExpiresAt: Date | null; principalId: string; ownerUserId: string | null; scopes: Scope[]; identityKey: string }
  | { kind: "USER"; userId: string; principalId: string; scopes: Scope[]; identityKey: string };

export async function resolveActor(ctx: ServiceContext, authorization: string | null): Promise<Actor | null> {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match) throw unauthorized("the Authorization header must be 'Bearer <API key or session token>'", "INVALID_CREDENTIALS");
  const secret = match[1]!;
  const hash = hashSecret(secret);

  if (secret.startsWith(AGENT_KEY_PREFIX)) {
    const row = await ctx.db
      .selectFrom("api_keys")
      .innerJoin("agents", "agents.id", "api_keys.agent_id")
      .select([
        "api_keys.id as keyId",
        "api_keys.scopes",
        "api_keys.revoked_at",
        "api_keys.expires_at",
        "api_keys.last_used_at",
        "agents.id as agentId",
        "agents.principal_id",
        "agents.owner_user_id",
      ])
      .where("api_keys.key_hash", "=", hash)
      .executeTakeFirst();
    if (!row) throw unauthorized("the API key is not valid", "INVALID_CREDENTIALS");
    // A known key that was ended says so, so that its holder knows to fetch the new one rather
    // than suspect a typo; it gives nothing away, since only the key's holder can ask.
    if (row.revoked_at) throw unauthorized("the API key was revoked; use another key of the agent or ask its owner for one", "KEY_REVOKED");
    const now = ctx.now();
    if (row.expires_at && row.expires_at.getTime() <= now.getTime()) {
      throw unauthorized("the API key has expired (it was rotated or given an expiry); use its replacement", "KEY_EXPIRED");
    }
    await touchKey(ctx, row.keyId, row.last_used_at, now);
    return {
      kind: "AGENT",
      agentId: row.agentId,
      keyId: row.keyId,
      keyExpiresAt: row.expires_at,
      principalId: row.principal_id,
      ownerUserId: row.owner_user_id,
      scopes: row.scopes as Scope[],
      identityKey: `agent:${row.agentId}`,
    };
  }

  if (secret.startsWith(USER_SESSION_PREFIX)) {
    const row = await ctx.db
      .selectFrom("user_sessions")
      .select(["user_id", "expires_at"])
      .where("token_hash", "=", hash)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    if (!row || row.expires_at.getTime() <= ctx.now().getTime()) {
      throw unauthorized("the session has expired or was ended; sign in again", "INVALID_CREDENTIALS");
    }
    return { kind: "USER", userId: row.user_id, principalId: row.user_id, scopes: [...SCOPES], identityKey: `user:${row.user_id}` };
  }

  throw unauthorized("the credential is not an API key or a session token of this service", "INVALID_CREDENTIALS");
}

/** lastUsedAt is kept to the minute: finer would cost a row write on every request of the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

async function touchKey(ctx: ServiceContext, keyId: string, lastUsedAt: Date | null, now: Date): Promise<void> {
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  // The condition again in SQL: of concurrent first requests in a minute, one writes.
  await ctx.db
    .updateTable("api_keys")
    .set({ last_used_at: now })
    .where("id", "=", keyId)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", new Date(now.getTime() - LAST_USED_RESOLUTION_MS))]))
    .execute();
}

export function requireActor(actor: Actor | null): Actor {
  if (!actor) throw unauthorized();
  return actor;
}

export function requireScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.includes(scope)) {
    const hint = scope === "forum:write" || scope === "wallet:withdraw" ? "; the owner's claim of the agent adds it" : "";
    throw forbidden(`the API key lacks the ${scope} scope${hint}`, "MISSING_SCOPE");
  }
}

export function requireUser(actor: Actor): Extract<Actor, { kind: "USER" }> {
  if (actor.kind !== "USER") throw forbidden("this action needs a signed-in human session, not an agent key");
  return actor;
}

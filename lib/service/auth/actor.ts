import type { Scope } from "@/lib/api/schemas/agents";
import { SCOPES } from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import { forbidden, unauthorized } from "../http/errors";
import { AGENT_KEY_PREFIX, USER_SESSION_PREFIX, hashSecret } from "./tokens";

/** Who is calling, taken from the credential alone; request bodies never name the caller. */
export type Actor =
  | { kind: "AGENT"; agentId: string; principalId: string; ownerUserId: string | null; scopes: Scope[]; identityKey: string }
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
      .select(["api_keys.scopes", "agents.id as agentId", "agents.principal_id", "agents.owner_user_id"])
      .where("api_keys.key_hash", "=", hash)
      .where("api_keys.revoked_at", "is", null)
      .executeTakeFirst();
    if (!row) throw unauthorized("the API key is not valid", "INVALID_CREDENTIALS");
    return {
      kind: "AGENT",
      agentId: row.agentId,
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

import { fail } from "../errors";
import { sql, type Transaction } from "kysely";
import type { z } from "zod";
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  MAX_ACTIVE_KEYS_PER_AGENT,
  SCOPES,
  type ApiKey,
  type CreateApiKeyRequest,
  type RotateApiKeyRequest,
  type Scope,
} from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import type { AgentRow, Database } from "../db/schema";
import { forgetCachedKeys, type Actor } from "../auth/actor";
import { publishControl } from "../events/stream-hub";
import { AGENT_KEY_PREFIX, hashSecret, newSecret } from "../auth/tokens";
import { actsForAgent } from "../auth/acting-for-agent";
import { grantableAgentScopesOf, isDefaultScope } from "./agent-scopes";

/** The key signup returns; keys that predate named keys were given this name too. */
export const FIRST_KEY_NAME = "default";

/** What the key list shows of a secret: the prefix and a few characters, enough to tell keys apart. */
export function keyPrefixOf(secret: string): string {
  return secret.slice(0, AGENT_KEY_PREFIX.length + 5);
}

type KeyRow = {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
};

function statusOf(row: KeyRow, now: Date): ApiKey["status"] {
  if (row.revoked_at) return "REVOKED";
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return "EXPIRED";
  return "ACTIVE";
}

function presentKey(row: KeyRow, actor: Actor, now: Date): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.key_prefix,
    scopes: row.scopes as Scope[],
    status: statusOf(row, now),
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    current: actor.kind === "AGENT" && actor.keyId === row.id,
  };
}

const KEY_COLUMNS = [
  "id",
  "name",
  "key_prefix",
  "scopes",
  "created_at",
  "last_used_at",
  "expires_at",
  "revoked_at",
] as const;

/**
 * Keys are the agent's own business and its owner's: the same rule as changing the agent. The row
 * is locked in a transaction, so that concurrent mints of one agent count its keys one at a time.
 */
async function managedAgent(
  db: ServiceContext["db"] | Transaction<Database>,
  actor: Actor,
  agentId: string,
  lock = false,
): Promise<AgentRow> {
  let query = db.selectFrom("agents").selectAll().where("id", "=", agentId);
  if (lock) query = query.forUpdate();
  const agent = await query.executeTakeFirst();
  if (!agent) throw fail("NOT_FOUND", "agent not found");
  if (!actsForAgent(actor, agent)) throw fail("FORBIDDEN", "only the agent itself or its owner may manage its keys");
  return agent;
}

/**
 * What the caller may put into a key of this agent: the agent's scopes, and for an agent key no
 * more than that key holds itself, so that a narrowed key can never mint its way back up.
 */
function grantableScopes(actor: Actor, agent: AgentRow): Scope[] {
  const agentScopes = grantableAgentScopesOf(agent);
  return actor.kind === "AGENT" ? agentScopes.filter((scope) => actor.scopes.includes(scope)) : agentScopes;
}

function requireGrantable(actor: Actor, agent: AgentRow, scopes: readonly string[], verb: string): void {
  const grantable = grantableScopes(actor, agent);
  const beyond = scopes.filter((scope) => !grantable.includes(scope as Scope));
  if (beyond.length === 0) return;
  const why =
    actor.kind === "AGENT"
      ? "the calling key does not hold"
      : "the agent does not have (the owner claim adds forum:write, wallet:withdraw and the grantable wallet:payout)";
  throw fail("SCOPE_NOT_GRANTABLE", `cannot ${verb} a key with ${beyond.join(", ")}: scopes ${why}`);
}

/**
 * A key never mints a key that outlives it: otherwise a key given an expiry (or one rotated away,
 * in its overlap) could mint itself a permanent successor. The owner's session is not bound.
 */
function notOutliving(actor: Actor, expiresAt: Date | null): Date | null {
  if (actor.kind !== "AGENT" || !actor.keyExpiresAt) return expiresAt;
  return expiresAt && expiresAt.getTime() < actor.keyExpiresAt.getTime() ? expiresAt : actor.keyExpiresAt;
}

async function requireRoomForAnotherKey(trx: Transaction<Database>, agentId: string, now: Date): Promise<void> {
  const { n } = await trx
    .selectFrom("api_keys")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("agent_id", "=", agentId)
    .where("revoked_at", "is", null)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
    .executeTakeFirstOrThrow();
  if (n >= MAX_ACTIVE_KEYS_PER_AGENT) {
    throw fail("KEY_LIMIT_REACHED", `the agent already has ${MAX_ACTIVE_KEYS_PER_AGENT} usable keys; revoke one first`);
  }
}

async function insertKey(
  trx: Transaction<Database>,
  agentId: string,
  name: string,
  scopes: readonly string[],
  expiresAt: Date | null,
) {
  const secret = newSecret(AGENT_KEY_PREFIX);
  // Stored in the order of SCOPES, so that two keys with the same scopes read the same.
  const ordered = SCOPES.filter((scope) => scopes.includes(scope));
  const row = await trx
    .insertInto("api_keys")
    .values({
      agent_id: agentId,
      name,
      key_hash: hashSecret(secret),
      key_prefix: keyPrefixOf(secret),
      scopes: ordered,
      expires_at: expiresAt,
    })
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
  return { row, secret };
}

export async function listAgentKeys(ctx: ServiceContext, actor: Actor, agentId: string) {
  await managedAgent(ctx.db, actor, agentId);
  const rows = await ctx.db
    .selectFrom("api_keys")
    .select(KEY_COLUMNS)
    .where("agent_id", "=", agentId)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .limit(100)
    .execute();
  const now = ctx.now();
  return rows.map((row) => presentKey(row, actor, now));
}

export async function createAgentKey(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  input: z.output<typeof CreateApiKeyRequest>,
) {
  const now = ctx.now();
  const { row, secret } = await ctx.db.transaction().execute(async (trx) => {
    const agent = await managedAgent(trx, actor, agentId, true);
    // Named scopes only for wallet:payout: a key that may redirect the agent's pay is never a default.
    const scopes = input.scopes ?? grantableScopes(actor, agent).filter(isDefaultScope);
    requireGrantable(actor, agent, scopes, "mint");
    await requireRoomForAnotherKey(trx, agentId, now);
    const requested =
      input.expiresInSeconds === undefined ? null : new Date(now.getTime() + input.expiresInSeconds * 1000);
    return insertKey(trx, agentId, input.name, scopes, notOutliving(actor, requested));
  });
  return { key: presentKey(row, actor, now), secret };
}

/** Loads one key of the agent, locked, with the same rule as minting: an agent key touches no key broader than itself. */
async function keyToChange(
  trx: Transaction<Database>,
  actor: Actor,
  agent: AgentRow,
  keyId: string,
  verb: string,
): Promise<KeyRow> {
  const row = await trx
    .selectFrom("api_keys")
    .select(KEY_COLUMNS)
    .where("id", "=", keyId)
    .where("agent_id", "=", agent.id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw fail("NOT_FOUND", "key not found");
  requireGrantable(actor, agent, row.scopes, verb);
  return row;
}

export async function revokeAgentKey(ctx: ServiceContext, actor: Actor, agentId: string, keyId: string) {
  const now = ctx.now();
  const row = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const agent = await managedAgent(trx, actor, agentId, true);
      const key = await keyToChange(trx, actor, agent, keyId, "revoke");
      if (key.revoked_at) return key;
      const revoked = await trx
        .updateTable("api_keys")
        .set({ revoked_at: now })
        .where("id", "=", key.id)
        .returning(KEY_COLUMNS)
        .executeTakeFirstOrThrow();
      // Its open event streams end at once on every instance, when this commits.
      await publishControl(ctx, trx, { kind: "credential.ended", keyId: key.id });
      return revoked;
    })
    // Once committed, this process forgets the keys it kept, so the key's next request here is
    // refused; every other instance forgets them on hearing the control message (auth/actor.ts).
    .finally(() => forgetCachedKeys(ctx));
  return presentKey(row, actor, now);
}

export async function rotateAgentKey(
  ctx: ServiceContext,
  actor: Actor,
  agentId: string,
  keyId: string,
  input: z.output<typeof RotateApiKeyRequest>,
) {
  const now = ctx.now();
  const overlapSeconds = input.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
  const result = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const agent = await managedAgent(trx, actor, agentId, true);
      const old = await keyToChange(trx, actor, agent, keyId, "rotate");
      const status = statusOf(old, now);
      if (status === "REVOKED") throw fail("KEY_REVOKED", "a revoked key cannot be rotated; mint a new key instead");
      if (status === "EXPIRED") throw fail("KEY_EXPIRED", "an expired key cannot be rotated; mint a new key instead");
      // Without an overlap the old key ends now and the count stays the same; with one, both count,
      // so that rotating over and over cannot pile up live keys past the limit.
      if (overlapSeconds > 0) await requireRoomForAnotherKey(trx, agentId, now);
      const overlapEnd = new Date(now.getTime() + overlapSeconds * 1000);
      const expiresAt = old.expires_at && old.expires_at.getTime() < overlapEnd.getTime() ? old.expires_at : overlapEnd;
      const previous = await trx
        .updateTable("api_keys")
        .set({ expires_at: expiresAt })
        .where("id", "=", old.id)
        .returning(KEY_COLUMNS)
        .executeTakeFirstOrThrow();
      // Its open event streams end when it does, on every instance (at once without an overlap).
      await publishControl(ctx, trx, { kind: "credential.ended", keyId: old.id, at: expiresAt.toISOString() });
      const fresh = await insertKey(trx, agentId, old.name, old.scopes, notOutliving(actor, null));
      return { previous, ...fresh };
    })
    .finally(() => forgetCachedKeys(ctx));
  return {
    key: presentKey(result.row, actor, now),
    secret: result.secret,
    previous: presentKey(result.previous, actor, now),
  };
}

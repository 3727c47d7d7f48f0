import type { Scope } from "@/lib/api/schemas/agents";
import { SCOPES } from "@/lib/api/schemas/agents";
import type { ServiceContext } from "../context";
import { forbidden, unauthorized } from "../http/errors";
import { AGENT_KEY_PREFIX, USER_SESSION_PREFIX, hashSecret } from "./tokens";

/** Who is calling, taken from the credential alone; request bodies never name the caller. */
export type Actor =
  | {
      kind: "AGENT";
      agentId: string;
      /** The api_keys row of the credential. */ keyId: string;
      keyExpiresAt: Date | null;
      principalId: string;
      ownerUserId: string | null;
      scopes: Scope[];
      identityKey: string;
    }
  | { kind: "USER"; userId: string; principalId: string; scopes: Scope[]; identityKey: string };

export async function resolveActor(ctx: ServiceContext, authorization: string | null): Promise<Actor | null> {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match)
    throw unauthorized("the Authorization header must be 'Bearer <API key or session token>'", "INVALID_CREDENTIALS");
  const secret = match[1]!;
  const hash = hashSecret(secret);

  if (secret.startsWith(AGENT_KEY_PREFIX)) {
    const row = await lookUpKey(ctx, hash);
    if (!row) throw unauthorized("the API key is not valid", "INVALID_CREDENTIALS");
    // A known key that was ended says so, so that its holder knows to fetch the new one rather
    // than suspect a typo; it gives nothing away, since only the key's holder can ask.
    if (row.revoked_at)
      throw unauthorized(
        "the API key was revoked; use another key of the agent or ask its owner for one",
        "KEY_REVOKED",
      );
    const now = ctx.now();
    if (row.expires_at && row.expires_at.getTime() <= now.getTime()) {
      throw unauthorized(
        "the API key has expired (it was rotated or given an expiry); use its replacement",
        "KEY_EXPIRED",
      );
    }
    if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      await touchKey(ctx, row.keyId, now);
      row.last_used_at = now;
    }
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
    return {
      kind: "USER",
      userId: row.user_id,
      principalId: row.user_id,
      scopes: [...SCOPES],
      identityKey: `user:${row.user_id}`,
    };
  }

  throw unauthorized("the credential is not an API key or a session token of this service", "INVALID_CREDENTIALS");
}

interface KeyRow {
  keyId: string;
  scopes: string[];
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
  agentId: string;
  principal_id: string;
  owner_user_id: string | null;
}

/**
 * What tells this process that a key changed anywhere (any process, any instance): the event bus's
 * control messages (events/event-bus.ts, ControlMessage). The router hands it over (auth sits below
 * events, so it cannot fetch the bus itself); the EventBus satisfies it as it is.
 */
export interface KeyChangeFeed {
  subscribe(listener: { control?(): void; resumed?(): void }): () => void;
  /** Starts listening (idempotent). */
  start(): Promise<void>;
  /** Whether it listens now: a feed that is cut off tells nothing, so nothing kept may be trusted. */
  stats(): { listening: boolean };
}

/**
 * API keys as last read, per database (one per instance in production), for config.keyCacheMs (0
 * in tests: never kept). An agent polling or bidding all day sends the same key many times a
 * second; each request then reads its key from memory instead of the database. What a key may do is
 * still decided on every request (revoked, expired against the request's clock, scopes).
 *
 * Correct across instances: a change of keys anywhere (revoke, rotate, the owner's claim) sends a
 * control message on the event bus in the changing transaction, and every instance forgets every key
 * it kept when it hears one, so a revoked key is refused at once on every instance, not after the
 * cache's time. A key is kept only while this instance listens: before the bus listens, while it is
 * cut off, and across a reconnection (whose gap may have lost a message) every request reads its key.
 * The process that makes the change also forgets at once (forgetCachedKeys), before it answers.
 * keyCacheMs is then only the bound for what the bus cannot carry: a change written straight into
 * the database by hand, or a LISTEN connection lost without its socket noticing yet.
 * Unknown keys are never kept (a guessed key costs its read every time).
 */
class KeyCache {
  readonly entries = new Map<string, { row: KeyRow; until: number }>();
  /** Bumped by every change heard of: a read that began before one is not kept. */
  generation = 0;
  private feed: KeyChangeFeed | null = null;

  constructor(readonly feedOf: (() => KeyChangeFeed) | null) {}

  forget() {
    this.generation += 1;
    this.entries.clear();
  }

  /** Whether kept keys may be used (and new ones kept): only while the change feed listens. */
  trusted(): boolean {
    if (!this.feedOf) return false;
    if (!this.feed) {
      this.feed = this.feedOf();
      this.feed.subscribe({ control: () => this.forget(), resumed: () => this.forget() });
      // Until it listens, keys are read every time.
      this.feed.start().catch(() => {
        this.feed = null;
      });
      return false;
    }
    return this.feed.stats().listening;
  }
}

const keyCaches = new WeakMap<object, KeyCache>();
const KEY_CACHE_MAX = 10_000;

function keyCacheOf(db: object): KeyCache {
  let cache = keyCaches.get(db);
  if (!cache) keyCaches.set(db, (cache = new KeyCache(null)));
  return cache;
}

/**
 * Connects the key cache of a service's database to the feed that tells of key changes (the
 * router does, with its event bus); without one, keys are never kept.
 */
export function watchKeyChanges(db: object, feedOf: () => KeyChangeFeed): void {
  // Several services on one database (tests) share its cache, and the first feed.
  if (keyCaches.get(db)?.feedOf) return;
  keyCaches.set(db, new KeyCache(feedOf));
}

/**
 * Called by every change of api_keys (or of what a key resolves to) in this process, once its
 * transaction has ended: this instance refuses the old key on its very next request. Other
 * instances hear of it on the bus (the change sends a control message in its transaction).
 */
export function forgetCachedKeys(ctx: Pick<ServiceContext, "db">): void {
  keyCacheOf(ctx.db).forget();
}

async function lookUpKey(ctx: ServiceContext, hash: string): Promise<KeyRow | null> {
  const ttl = ctx.config.keyCacheMs;
  const cache = ttl > 0 ? keyCacheOf(ctx.db) : null;
  const trusted = cache?.trusted() ?? false;
  const at = Date.now();
  if (cache && trusted) {
    const hit = cache.entries.get(hash);
    if (hit && hit.until > at) return hit.row;
  }
  const generation = cache?.generation;
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
  // Kept only when no change was heard of while it was read, and the feed listened throughout.
  if (row && cache && trusted && generation === cache.generation && cache.trusted()) {
    if (cache.entries.size >= KEY_CACHE_MAX) cache.entries.clear();
    cache.entries.set(hash, { row, until: at + ttl });
  }
  return row ?? null;
}

/** lastUsedAt is kept to the minute: finer would cost a row write on every request of the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

async function touchKey(ctx: ServiceContext, keyId: string, now: Date): Promise<void> {
  // The condition again in SQL: of concurrent first requests in a minute, one writes.
  await ctx.db
    .updateTable("api_keys")
    .set({ last_used_at: now })
    .where("id", "=", keyId)
    .where((eb) =>
      eb.or([
        eb("last_used_at", "is", null),
        eb("last_used_at", "<", new Date(now.getTime() - LAST_USED_RESOLUTION_MS)),
      ]),
    )
    .execute();
}

export function requireActor(actor: Actor | null): Actor {
  if (!actor) throw unauthorized();
  return actor;
}

export function requireScope(actor: Actor, scope: Scope): void {
  if (!actor.scopes.includes(scope)) {
    const hint =
      scope === "forum:write" || scope === "wallet:withdraw"
        ? "; the owner's claim of the agent adds it"
        : scope === "wallet:payout"
          ? "; only the owner's session, or a key the owner minted with wallet:payout named, changes a claimed agent's payout wallet"
          : "";
    throw forbidden(`the API key lacks the ${scope} scope${hint}`, "MISSING_SCOPE");
  }
}

export function requireUser(actor: Actor): Extract<Actor, { kind: "USER" }> {
  if (actor.kind !== "USER") throw forbidden("this action needs a signed-in human session, not an agent key");
  return actor;
}

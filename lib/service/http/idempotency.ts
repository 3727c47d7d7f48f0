import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { log } from "../log";
import { HttpError, badRequest, conflict } from "./errors";

export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * How long a key may stay pending (no answer stored) before a replayable route runs its request
 * again: longer than any request takes (a reward campaign deposits its slots before answering),
 * so only a run whose process died is taken over.
 */
export const IDEMPOTENCY_RESUME_MS = 15 * 60_000;

/** This process, as the owner of the keys it is running: host, pid and a nonce (a pid is reused after a restart). */
export const IDEMPOTENCY_OWNER = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * Idempotency-Key handling. Keys are isolated per identity and per resource type (the scope). The
 * first request inserts a pending row (the primary key makes concurrent duplicates lose); a repeat
 * with the same payload gets the stored response; the same key with another payload is refused.
 *
 * A pending key carries its owner (this process) and a lease the owner renews while the request
 * runs (config.idempotencyLeaseMs, renewed every third of it). A repeat while the lease holds is
 * IDEMPOTENCY_IN_PROGRESS; once it has lapsed the owner is gone (killed, or its instance lost), so the
 * repeat takes the key over (one taker: the update is conditional on the lapsed lease) and runs the
 * request. What the dead run committed stays committed: each handler's own state checks (a job
 * funded once, a bid per agent, an x402 authorization settled once) keep money from moving twice.
 */
export async function withIdempotency(
  ctx: ServiceContext,
  args: {
    identity: string;
    scope: string;
    key: string;
    payload: unknown;
    /** Only for handlers that find their own earlier run by the key: a pending key older than this is run again. */
    resumeAfterMs?: number;
  },
  run: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  if (args.key.length < 8 || args.key.length > 128 || !/^[\x21-\x7e]+$/.test(args.key)) {
    throw badRequest(["Idempotency-Key must be 8 to 128 visible ASCII characters"]);
  }
  const requestHash = createHash("sha256")
    .update(JSON.stringify(args.payload ?? null))
    .digest("hex");
  const leaseMs = ctx.config.idempotencyLeaseMs;
  const inserted = await ctx.db
    .insertInto("idempotency_keys")
    .values({
      identity: args.identity,
      scope: args.scope,
      key: args.key,
      request_hash: requestHash,
      owner: IDEMPOTENCY_OWNER,
      lease_until: new Date(ctx.now().getTime() + leaseMs),
    })
    .onConflict((oc) => oc.doNothing())
    .returning("key")
    .executeTakeFirst();

  if (!inserted) {
    const existing = await ctx.db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("identity", "=", args.identity)
      .where("scope", "=", args.scope)
      .where("key", "=", args.key)
      .executeTakeFirstOrThrow();
    if (existing.request_hash !== requestHash) {
      throw conflict(
        "IDEMPOTENCY_KEY_REUSED",
        "this Idempotency-Key was used with a different payload; use a new key for a new request",
      );
    }
    if (existing.response_status === null) {
      if (!(await resumedAbandoned(ctx, args, existing))) {
        // Retry-After: when the lease lapses if its owner stops renewing it (died), so a client
        // retrying on it is either answered or takes the key over on that retry.
        const leaseLeftMs = existing.lease_until ? existing.lease_until.getTime() - ctx.now().getTime() : 1000;
        throw new HttpError(
          409,
          "a request with this Idempotency-Key is still being processed; retry after the number of seconds in Retry-After",
          "IDEMPOTENCY_IN_PROGRESS",
          undefined,
          { "retry-after": String(Math.min(60, Math.max(1, Math.ceil(leaseLeftMs / 1000)))) },
        );
      }
    } else {
      return { status: existing.response_status, body: existing.response_body };
    }
  }

  const renewal = setInterval(
    () => {
      ctx.db
        .updateTable("idempotency_keys")
        .set({ lease_until: new Date(ctx.now().getTime() + leaseMs) })
        .where("identity", "=", args.identity)
        .where("scope", "=", args.scope)
        .where("key", "=", args.key)
        .where("owner", "=", IDEMPOTENCY_OWNER)
        .where("response_status", "is", null)
        .execute()
        .catch((error) =>
          log.warn({ scope: args.scope, reason: (error as Error).message }, "idempotency lease not renewed"),
        );
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  renewal.unref();
  try {
    const result = await run();
    await ctx.db
      .updateTable("idempotency_keys")
      .set({ response_status: result.status, response_body: JSON.stringify(result.body), lease_until: null })
      .where("identity", "=", args.identity)
      .where("scope", "=", args.scope)
      .where("key", "=", args.key)
      .execute();
    return result;
  } catch (error) {
    // A refused request did not happen: free the key so that a corrected retry may use it (unless
    // another process took it over meanwhile: that run owns it now).
    await ctx.db
      .deleteFrom("idempotency_keys")
      .where("identity", "=", args.identity)
      .where("scope", "=", args.scope)
      .where("key", "=", args.key)
      .where("response_status", "is", null)
      .where("owner", "=", IDEMPOTENCY_OWNER)
      .execute();
    if (error instanceof HttpError) throw error;
    throw error;
  } finally {
    clearInterval(renewal);
  }
}

/**
 * Takes over a key whose request never answered: its owner's lease has lapsed (the process died),
 * or, on a replayable route, resumeAfterMs has passed (the process is alive but stuck). One taker,
 * since the update is conditional on what it found and moves both clocks forward.
 */
async function resumedAbandoned(
  ctx: ServiceContext,
  args: { identity: string; scope: string; key: string; resumeAfterMs?: number },
  existing: { created_at: Date; lease_until: Date | null },
): Promise<boolean> {
  const now = ctx.now();
  const lapsed = existing.lease_until !== null && existing.lease_until.getTime() <= now.getTime();
  const stuck = args.resumeAfterMs !== undefined && now.getTime() - existing.created_at.getTime() >= args.resumeAfterMs;
  if (!lapsed && !stuck) return false;
  const stuckSince =
    args.resumeAfterMs === undefined ? sql`false` : sql`created_at <= ${new Date(now.getTime() - args.resumeAfterMs)}`;
  const leaseUntil = new Date(now.getTime() + ctx.config.idempotencyLeaseMs);
  const taken = await sql<{ key: string }>`
    update idempotency_keys set created_at = ${now}, owner = ${IDEMPOTENCY_OWNER}, lease_until = ${leaseUntil}
    where identity = ${args.identity} and scope = ${args.scope} and key = ${args.key} and response_status is null
      and (lease_until <= ${now} or ${stuckSince})
    returning key`.execute(ctx.db);
  return taken.rows.length > 0;
}

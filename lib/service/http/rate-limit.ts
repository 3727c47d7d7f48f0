import { sql } from "kysely";
import type { ServiceContext } from "../context";
import type { Db } from "../db/connection";
import { tooManyRequests } from "./errors";
import { rateLimitHeaders } from "./rate-limit-headers";

/**
 * Rate budgets: a fixed window per bucket (per IP, per identity), counted in the database so that a
 * budget holds across every process and instance, without a database write per request.
 *
 * Each process takes requests from the shared count in leases: one write adds a batch of n to the
 * bucket's row and returns the new total; the part of the batch that fits under the limit is this
 * process's to spend from memory. A process's first write of a window takes one request (it does
 * not know the shared total yet); after that the batch is a quarter of what the shared total left
 * (at most MAX_LEASE), so it shrinks as the budget runs out and the last requests of a window are
 * counted one write each, as before. The sum of every lease never exceeds the limit, so across any
 * number of instances no more than `limit` requests pass in a window. A service that stops can give
 * back what its leases left unspent (returnUnspentLeases; the test harness does); what is left unspent is
 * lost for the rest of the window, so an honest client spread over several instances may get less
 * near the end of a window, never more. Once the total is known to be over the limit, the rest of
 * the window is refused from memory (the count only grows within a window).
 */
const MAX_LEASE = 100;

interface Lease {
  windowStart: number;
  /** Requests this process may still let through from its leases. */
  left: number;
  /** The bucket's shared total as the last write returned it. */
  total: number;
  /** Whether this process has read the shared total in this window (its first write takes one). */
  known: boolean;
  /** A lease being taken: concurrent requests of the bucket wait for it instead of taking their own. */
  taking: Promise<void> | null;
}

/** Per database (one per process in production; tests run several services on one database). */
const leasesByDb = new WeakMap<Db, Map<string, Lease>>();

/**
 * Where a request stands in its budget after it was counted: what the RateLimit and RateLimit-Policy
 * header fields say (rate-limit-headers.ts). remaining is a lower bound: what the shared count
 * leaves plus this process's unspent lease (other processes' unspent leases are counted as spent).
 */
export interface BudgetState {
  /** The policy's name in the header fields: read, public-read or write. */
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Seconds until the window ends and the budget is whole again (at least 1). */
  resetSeconds: number;
}

export async function consumeBudget(
  ctx: ServiceContext,
  bucket: string,
  limit: number,
  windowSeconds: number,
  policy = "default",
): Promise<BudgetState> {
  const now = ctx.now().getTime();
  const windowMs = windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  let leases = leasesByDb.get(ctx.db);
  if (!leases) leasesByDb.set(ctx.db, (leases = new Map()));
  const key = `${windowSeconds}:${bucket}`;

  for (;;) {
    let lease = leases.get(key);
    if (!lease || lease.windowStart !== windowStart) {
      if (leases.size > 50_000) forgetOldWindows(leases, windowStart);
      lease = { windowStart, left: 0, total: 0, known: false, taking: null };
      leases.set(key, lease);
    }
    if (lease.left > 0) {
      lease.left -= 1;
      const resetSeconds = retryAfterSeconds(windowStart, windowMs, now);
      return {
        policy,
        limit,
        windowSeconds,
        remaining: Math.max(0, Math.min(limit, limit - lease.total + lease.left)),
        resetSeconds,
      };
    }
    if (lease.total >= limit) {
      const resetSeconds = retryAfterSeconds(windowStart, windowMs, now);
      const refused = tooManyRequests(resetSeconds);
      Object.assign(refused.headers, rateLimitHeaders({ policy, limit, windowSeconds, remaining: 0, resetSeconds }));
      throw refused;
    }
    if (lease.taking) {
      await lease.taking;
      continue;
    }
    const taking = takeLease(ctx, bucket, new Date(windowStart), lease, limit);
    lease.taking = taking;
    try {
      await taking;
    } finally {
      lease.taking = null;
    }
  }
}

async function takeLease(
  ctx: ServiceContext,
  bucket: string,
  windowStart: Date,
  lease: Lease,
  limit: number,
): Promise<void> {
  const size = lease.known ? Math.max(1, Math.min(MAX_LEASE, Math.floor((limit - lease.total) / 4))) : 1;
  const row = await ctx.db
    .insertInto("rate_limit_counters")
    .values({ bucket, window_start: windowStart, count: size })
    .onConflict((oc) =>
      oc.columns(["bucket", "window_start"]).doUpdateSet({ count: sql`rate_limit_counters.count + ${size}` }),
    )
    .returning("count")
    .executeTakeFirstOrThrow();
  // Of this batch, what fits under the limit is ours; the rest was never there.
  const granted = Math.max(0, size - Math.max(0, row.count - limit));
  lease.total = row.count;
  lease.known = true;
  lease.left += granted;
  // Old windows are useless; trim them now and then rather than on every lease.
  if (Math.random() < 0.002) {
    await ctx.db
      .deleteFrom("rate_limit_counters")
      .where("window_start", "<", new Date(windowStart.getTime() - 2 * 3600_000))
      .execute();
  }
}

/**
 * Gives back what this process's leases of the current windows left unspent, so that a process that
 * stops (a test service, a graceful shutdown) does not take budget with it. Never throws.
 */
export async function returnUnspentLeases(db: Db, now = Date.now()): Promise<void> {
  const leases = leasesByDb.get(db);
  if (!leases) return;
  leasesByDb.delete(db);
  for (const [key, lease] of leases) {
    // Taken from the lease first, so a request still running in this process cannot spend it too.
    const left = lease.left;
    lease.left = 0;
    if (left <= 0) continue;
    const windowSeconds = Number(key.slice(0, key.indexOf(":")));
    if (lease.windowStart + windowSeconds * 1000 <= now) continue;
    const bucket = key.slice(key.indexOf(":") + 1);
    await db
      .updateTable("rate_limit_counters")
      .set({ count: sql`greatest(0, rate_limit_counters.count - ${left})` })
      .where("bucket", "=", bucket)
      .where("window_start", "=", new Date(lease.windowStart))
      .execute()
      .catch(() => undefined);
  }
}

function retryAfterSeconds(windowStart: number, windowMs: number, now: number): number {
  return Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
}

function forgetOldWindows(leases: Map<string, Lease>, current: number) {
  for (const [key, lease] of leases) if (lease.windowStart < current && !lease.taking) leases.delete(key);
}

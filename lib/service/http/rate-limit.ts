import { sql } from "kysely";
import type { ServiceContext } from "../context";
import { tooManyRequests } from "./errors";

/**
 * Counts one request against a fixed window in the database, so that a budget holds across every
 * app instance. Throws 429 with Retry-After (seconds to the end of the window) when exceeded.
 */
export async function consumeBudget(ctx: ServiceContext, bucket: string, limit: number, windowSeconds: number): Promise<void> {
  const now = ctx.now().getTime();
  const windowMs = windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const row = await ctx.db
    .insertInto("rate_limit_counters")
    .values({ bucket, window_start: windowStart, count: 1 })
    .onConflict((oc) => oc.columns(["bucket", "window_start"]).doUpdateSet({ count: sql`rate_limit_counters.count + 1` }))
    .returning("count")
    .executeTakeFirstOrThrow();
  if (row.count > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000));
    throw tooManyRequests(retryAfter);
  }
  // Old windows are useless; trim them now and then rather than on every request.
  if (Math.random() < 0.002) {
    await ctx.db.deleteFrom("rate_limit_counters").where("window_start", "<", new Date(now - 2 * 3600_000)).execute();
  }
}

import { sql } from "kysely";
import type { ServiceContext, Worker } from "../context";
import { safeFetch, type SafeFetchOptions } from "../proofs/safe-fetch";
import { serviceFetchPolicy } from "../proofs/fetch-policy";

/** How often each declared service of a registered agent is asked again. */
export const LIVENESS_EVERY_MS = 10 * 60_000;
const BATCH = 50;
const TIMEOUT_MS = 8_000;

/** Test seam: options merged into every liveness fetch (tests point a public name at a loopback server). */
export const livenessFetchHooks: { options?: Partial<SafeFetchOptions> } = {};

/**
 * One round: claims the declared services of registered agents not checked within the interval
 * (SKIP LOCKED, marking them checked first so a second round never asks twice), asks each through
 * the one SSRF-safe fetcher, and records the status and, when below 500, the time it answered.
 */
export async function checkAgentEndpoints(ctx: ServiceContext, options: { everyMs?: number } = {}): Promise<number> {
  const everyMs = options.everyMs ?? LIVENESS_EVERY_MS;
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom("agent_endpoint_checks as c")
      .innerJoin("agent_identities as i", "i.agent_id", "c.agent_id")
      .select(["c.agent_id", "c.name", "c.endpoint"])
      .where("i.onchain_agent_id", "is not", null)
      .where((eb) =>
        eb.or([
          eb("c.last_checked_at", "is", null),
          eb("c.last_checked_at", "<", sql<Date>`now() - make_interval(secs => ${everyMs / 1000})`),
        ]),
      )
      .orderBy("c.last_checked_at", (ob) => ob.asc().nullsFirst())
      .limit(BATCH)
      .forUpdate("c")
      .skipLocked()
      .execute();
    for (const d of due) {
      await trx
        .updateTable("agent_endpoint_checks")
        .set({ last_checked_at: new Date() })
        .where("agent_id", "=", d.agent_id)
        .where("name", "=", d.name)
        .execute();
    }
    return due;
  });
  await Promise.all(
    claimed.map(async (c) => {
      const result = await safeFetch(c.endpoint, {
        timeoutMs: TIMEOUT_MS,
        readAnyStatus: true,
        maxBodyBytes: 16 * 1024,
        userAgent: "AgentWorkMarketplace-Liveness/1.0",
        ...serviceFetchPolicy(ctx.config),
        ...livenessFetchHooks.options,
      });
      const answered = result.ok && result.status < 500;
      await ctx.db
        .updateTable("agent_endpoint_checks")
        .set({
          last_checked_at: new Date(),
          last_status: result.ok ? result.status : null,
          last_error: result.ok ? (answered ? null : `answered ${result.status}`) : result.reason.slice(0, 300),
          ...(answered ? { last_answered_at: new Date() } : {}),
        })
        .where("agent_id", "=", c.agent_id)
        .where("name", "=", c.name)
        .where("endpoint", "=", c.endpoint)
        .execute();
    }),
  );
  return claimed.length;
}

export const livenessWorker: Worker = {
  name: "agent-liveness",
  everyMs: 60_000,
  run: async (ctx) => {
    await checkAgentEndpoints(ctx);
  },
};

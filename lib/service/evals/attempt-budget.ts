import { sql } from "kysely";
import type { ServiceConfig } from "../config";
import type { Db } from "../db/connection";
import { HttpError } from "../http/errors";
import { originKeyOf } from "../http/client-origin";

/**
 * Certification attempts are budgeted per pack and per group, not only per agent (whose cooldown is
 * cooldown.ts): agents are free to make, so ten fresh agents of one person would otherwise take ten
 * attempts at once and read the key off the differences between their results. A claimed agent
 * spends its owner's budget; an unclaimed agent spends the budget of the network the request came
 * from (the keyed hash of its /24 or /64, as the forum keeps it); an agent started in process
 * without a client address spends its own. At most packAttemptsPerGroup attempts start per group and
 * pack in any 24 hours (429 PACK_ATTEMPT_LIMIT, with retryAt when the oldest leaves the window).
 */
export const ATTEMPT_WINDOW_SECONDS = 86_400;

export type BudgetGroupKind = "OWNER" | "NETWORK" | "AGENT";

export function budgetGroupOf(
  agent: { id: string; owner_user_id: string | null },
  clientIp: string | null,
  secret: string,
): { key: string; kind: BudgetGroupKind } {
  if (agent.owner_user_id !== null) return { key: `owner:${agent.owner_user_id}`, kind: "OWNER" };
  const origin = originKeyOf(clientIp, secret);
  if (origin !== null) return { key: `net:${origin}`, kind: "NETWORK" };
  return { key: `agent:${agent.id}`, kind: "AGENT" };
}

/**
 * With `lock`, inside the transaction that inserts the attempt: takes the (pack, group) row lock, so
 * parallel starts of one group count one after the other, then refuses when the window is full. The
 * attempt inserted in the same transaction (with budget_group) is what the next count sees. Without
 * it, an early look (before a payment is checked) that decides nothing on its own.
 */
export async function assertAttemptBudget(
  trx: Db,
  config: ServiceConfig,
  now: Date,
  packId: string,
  group: { key: string; kind: BudgetGroupKind },
  { lock }: { lock: boolean },
): Promise<void> {
  if (lock) {
    await trx
      .insertInto("eval_attempt_groups")
      .values({ pack_id: packId, budget_group: group.key })
      .onConflict((oc) => oc.doNothing())
      .execute();
    await trx
      .selectFrom("eval_attempt_groups")
      .select("pack_id")
      .where("pack_id", "=", packId)
      .where("budget_group", "=", group.key)
      .forUpdate()
      .executeTakeFirstOrThrow();
  }
  const since = new Date(now.getTime() - ATTEMPT_WINDOW_SECONDS * 1000);
  const window = await trx
    .selectFrom("eval_attempts")
    .select([sql<number>`count(*)::int`.as("n"), sql<Date | null>`min(started_at)`.as("oldest")])
    .where("pack_id", "=", packId)
    .where("budget_group", "=", group.key)
    .where("started_at", ">", since)
    .executeTakeFirstOrThrow();
  const limit = config.packAttemptsPerGroup;
  if (window.n < limit) return;
  const oldest = window.oldest ? new Date(window.oldest) : now;
  const retryAt = new Date(oldest.getTime() + ATTEMPT_WINDOW_SECONDS * 1000);
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  const whose =
    group.kind === "OWNER"
      ? "the agents of this owner"
      : group.kind === "NETWORK"
        ? "unclaimed agents from this network"
        : "this agent";
  throw new HttpError(
    429,
    `${whose} started ${window.n} attempts at this pack in the last 24 hours, the most allowed (${limit}); the next may start at ${retryAt.toISOString()}${group.kind === "NETWORK" ? " (a claimed agent spends its owner's budget instead)" : ""}`,
    "PACK_ATTEMPT_LIMIT",
    { retryAt: retryAt.toISOString(), retryAfter: seconds, limit, sharedBy: group.kind },
    { "retry-after": String(seconds) },
  );
}

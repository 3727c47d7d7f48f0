import { sql } from "kysely";
import type { MoneyOverTime, MoneyOverTimeQuery } from "@/lib/api/schemas/records";
import { formatUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import type { Actor } from "../auth/actor";

const DEFAULT_MONTHS = 12;

/** "2026-11" for the month of this date, in UTC. */
const monthOf = (date: Date) => date.toISOString().slice(0, 7);

/** The last `count` months, oldest first, ending with this one (UTC). */
function monthsEndingAt(now: Date, count: number): string[] {
  const months: string[] = [];
  for (let back = count - 1; back >= 0; back--) {
    months.push(monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1))));
  }
  return months;
}

interface MonthRow {
  month: string;
  units: string;
}

/**
 * The caller's money by month, from confirmed settlements only (the escrow's own figures, never a
 * budget asked for), whole jobs and parts alike:
 * - earned: what the agents the caller owns (or the agent itself, for an agent key) received, net of
 *   the fee (releases and the agent's side of split rulings), per month and per agent;
 * - paid: what the caller's jobs paid out (net plus fee), and refunded: what came back to the
 *   caller (refunds and the poster's side of split rulings).
 */
export async function moneyOverTime(
  ctx: ServiceContext,
  actor: Actor,
  query: MoneyOverTimeQuery,
): Promise<MoneyOverTime> {
  const now = ctx.now();
  const months = monthsEndingAt(now, query.months ?? DEFAULT_MONTHS);
  const since = new Date(`${months[0]}-01T00:00:00.000Z`);
  const agents =
    actor.kind === "USER"
      ? await ctx.db
          .selectFrom("agents")
          .select(["id", "name"])
          .where("owner_user_id", "=", actor.userId)
          .orderBy("created_at")
          .execute()
      : await ctx.db.selectFrom("agents").select(["id", "name"]).where("id", "=", actor.agentId).execute();
  const agentIds = agents.map((a) => a.id);
  const posterId = actor.principalId;

  // Whole-job settlements and part settlements, in one list of (month, side, agent, amount) rows.
  const settled = sql`(
    select s.kind, s.status, s.confirmed_at, s.amount_units, s.fee_units, s.payer_amount_units, j.agent_id, j.poster_id
      from escrow_settlements s join jobs j on j.id = s.job_id
    union all
    select m.kind, m.status, m.confirmed_at, m.amount_units, m.fee_units, m.payer_amount_units, j.agent_id, j.poster_id
      from milestone_settlements m join jobs j on j.id = m.job_id
  )`;
  const month = sql<string>`to_char(date_trunc('month', x.confirmed_at at time zone 'UTC'), 'YYYY-MM')`;
  const [earned, paid, refunded] = await Promise.all([
    agentIds.length === 0
      ? Promise.resolve([] as Array<MonthRow & { agent_id: string }>)
      : sql<MonthRow & { agent_id: string }>`
          select ${month} as month, x.agent_id, coalesce(sum(x.amount_units::numeric), 0)::text as units
            from ${settled} x
           where x.status = 'CONFIRMED' and x.kind in ('RELEASE', 'SPLIT') and x.confirmed_at >= ${since}
             and x.agent_id = any(${agentIds}::text[])
           group by 1, 2`
          .execute(ctx.db)
          .then((r) => r.rows),
    sql<MonthRow>`
      select ${month} as month,
             coalesce(sum(x.amount_units::numeric + coalesce(x.fee_units::numeric, 0)), 0)::text as units
        from ${settled} x
       where x.status = 'CONFIRMED' and x.kind in ('RELEASE', 'SPLIT') and x.confirmed_at >= ${since}
         and x.poster_id = ${posterId}
       group by 1`
      .execute(ctx.db)
      .then((r) => r.rows),
    sql<MonthRow>`
      select ${month} as month,
             coalesce(sum(case when x.kind = 'REFUND' then coalesce(x.payer_amount_units, x.amount_units)::numeric
                               else coalesce(x.payer_amount_units::numeric, 0) end), 0)::text as units
        from ${settled} x
       where x.status = 'CONFIRMED' and x.kind in ('REFUND', 'SPLIT') and x.confirmed_at >= ${since}
         and x.poster_id = ${posterId}
       group by 1`
      .execute(ctx.db)
      .then((r) => r.rows),
  ]);

  const sumBy = <K extends string>(rows: Array<{ units: string } & Record<K, string>>, key: K) => {
    const totals = new Map<string, bigint>();
    for (const row of rows) totals.set(row[key], (totals.get(row[key]) ?? 0n) + BigInt(row.units.split(".")[0]!));
    return totals;
  };
  const earnedByMonth = sumBy(earned, "month");
  const earnedByAgent = sumBy(earned, "agent_id");
  const paidByMonth = sumBy(paid, "month");
  const refundedByMonth = sumBy(refunded, "month");
  const total = (byMonth: Map<string, bigint>) => [...byMonth.values()].reduce((a, b) => a + b, 0n);

  return {
    months: months.map((m) => ({
      month: m,
      earnedUsdc: formatUsdc(earnedByMonth.get(m) ?? 0n),
      paidUsdc: formatUsdc(paidByMonth.get(m) ?? 0n),
      refundedUsdc: formatUsdc(refundedByMonth.get(m) ?? 0n),
    })),
    agents: agents
      .map((a) => ({ agentId: a.id, name: a.name, earnedUsdc: formatUsdc(earnedByAgent.get(a.id) ?? 0n) }))
      .sort((a, b) => Number(b.earnedUsdc) - Number(a.earnedUsdc)),
    totals: {
      earnedUsdc: formatUsdc(total(earnedByMonth)),
      paidUsdc: formatUsdc(total(paidByMonth)),
      refundedUsdc: formatUsdc(total(refundedByMonth)),
    },
  };
}

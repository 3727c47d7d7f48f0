import type { MoneyOverTime } from "@/lib/api/schemas/records";
import { MoneyChart } from "./money-chart";

/** What an owner's agents earned by month (GET /v1/me/money), with each agent's share in words. */
export function OwnerEarnings({ money }: { money: MoneyOverTime }) {
  return (
    <section
      className="mt-8 rounded-xl border border-zinc-200 p-5 dark:border-zinc-800"
      aria-labelledby="earnings-heading"
    >
      <h2 id="earnings-heading" className="text-base font-semibold">
        Earnings over the last {money.months.length} months
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-300">
        What your agents received on chain, after the marketplace fee, by the month it arrived.
      </p>
      <MoneyChart
        id="owner-earnings"
        title="Your agents' earnings by month"
        series={[
          {
            key: "earned",
            label: "Earned",
            fill: "fill-emerald-600 dark:fill-emerald-400",
            swatch: "bg-emerald-600 dark:bg-emerald-400",
          },
        ]}
        months={money.months.map((m) => ({ month: m.month, values: { earned: m.earnedUsdc } }))}
      />
      {money.agents.length > 1 ? (
        <ul
          className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-sm text-zinc-700 dark:text-zinc-300"
          aria-label="Earnings by agent"
        >
          {money.agents.map((a) => (
            <li key={a.agentId}>
              {a.name}: <strong>{a.earnedUsdc} USDC</strong>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** What a poster's jobs paid out and what came back, by month (GET /v1/me/money). */
export function PosterSpending({ money }: { money: MoneyOverTime }) {
  return (
    <section
      className="mt-8 rounded-xl border border-zinc-200 p-5 dark:border-zinc-800"
      aria-labelledby="spending-heading"
    >
      <h2 id="spending-heading" className="text-base font-semibold">
        Spending over the last {money.months.length} months
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-300">
        What your jobs paid to agents (with the fee) and what was refunded to you, by the month it settled.
      </p>
      <MoneyChart
        id="poster-spending"
        title="Your spending and refunds by month"
        series={[
          {
            key: "paid",
            label: "Paid",
            fill: "fill-brand-600 dark:fill-brand-400",
            swatch: "bg-brand-600 dark:bg-brand-400",
          },
          {
            key: "refunded",
            label: "Refunded",
            fill: "fill-amber-500 dark:fill-amber-300",
            swatch: "bg-amber-500 dark:bg-amber-300",
          },
        ]}
        months={money.months.map((m) => ({ month: m.month, values: { paid: m.paidUsdc, refunded: m.refundedUsdc } }))}
      />
    </section>
  );
}

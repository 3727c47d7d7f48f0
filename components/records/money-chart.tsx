import { displayUsdc } from "@/lib/chain/units";

export interface MoneySeries {
  key: string;
  label: string;
  /** Tailwind fill classes for both themes. */
  fill: string;
  /** A swatch for the legend (bg-… classes). */
  swatch: string;
}

export interface MoneyMonth {
  /** "2026-11" */
  month: string;
  values: Record<string, string>;
}

const MONTH = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", month: "short" });
const MONTH_YEAR = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", month: "long", year: "numeric" });
const monthDate = (month: string) => new Date(`${month}-01T00:00:00.000Z`);

/**
 * Money by month as bars, drawn on the server (SVG): one group per month, one bar per series. Screen
 * readers get its title and a description with the totals and the best month; the same figures are
 * in the table under it, as text.
 */
export function MoneyChart({
  id,
  title,
  series,
  months,
  symbol = "USDC",
}: {
  id: string;
  title: string;
  series: MoneySeries[];
  months: MoneyMonth[];
  symbol?: string;
}) {
  const width = 600;
  const height = 180;
  const axis = 26;
  const plot = height - axis;
  const amount = (m: MoneyMonth, key: string) => Number(m.values[key] ?? "0");
  const max = Math.max(0, ...months.flatMap((m) => series.map((s) => amount(m, s.key))));
  const slot = width / Math.max(1, months.length);
  const bar = Math.min(24, (slot * 0.7) / series.length);
  const totals = series.map((s) => ({
    ...s,
    total: months.reduce((sum, m) => sum + amount(m, s.key), 0),
  }));
  const best = series.map((s) => {
    const top = months.reduce<MoneyMonth | null>(
      (a, m) => (amount(m, s.key) > (a ? amount(a, s.key) : 0) ? m : a),
      null,
    );
    return top
      ? `${s.label} highest in ${MONTH_YEAR.format(monthDate(top.month))} (${displayUsdc(top.values[s.key]!)} ${symbol})`
      : null;
  });
  const range =
    months.length > 0
      ? `${MONTH_YEAR.format(monthDate(months[0]!.month))} to ${MONTH_YEAR.format(monthDate(months[months.length - 1]!.month))}`
      : "";
  const description = [
    `By month, ${range}.`,
    ...totals.map((t) => `${t.label}: ${displayUsdc(t.total.toFixed(6))} ${symbol} in all.`),
    ...best.filter(Boolean).map((b) => `${b}.`),
  ].join(" ");
  const shown = months.filter((m) => series.some((s) => amount(m, s.key) > 0));
  return (
    <figure className="mt-4" data-testid={id}>
      <svg
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        viewBox={`0 0 ${width} ${height}`}
        className="h-auto w-full"
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <line x1="0" y1={plot} x2={width} y2={plot} className="stroke-zinc-400 dark:stroke-zinc-500" strokeWidth="1" />
        {months.map((m, i) => {
          const x0 = i * slot + (slot - bar * series.length) / 2;
          return (
            <g key={m.month}>
              {series.map((s, k) => {
                const value = amount(m, s.key);
                const h = max > 0 ? Math.max(value > 0 ? 2 : 0, (value / max) * (plot - 8)) : 0;
                return (
                  <rect
                    key={s.key}
                    x={x0 + k * bar}
                    y={plot - h}
                    width={bar - 2}
                    height={h}
                    rx="2"
                    className={s.fill}
                  />
                );
              })}
              {/* Every other month is named (the current one always), large enough to read on a phone. */}
              {(months.length - 1 - i) % 2 === 0 || months.length <= 6 ? (
                <text
                  x={i * slot + slot / 2}
                  y={height - 4}
                  textAnchor="middle"
                  fontSize="18"
                  className="fill-zinc-700 dark:fill-zinc-300"
                >
                  {MONTH.format(monthDate(m.month))}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-sm text-zinc-700 dark:text-zinc-300">
        {totals.map((t) => (
          <span key={t.key} className="inline-flex items-center gap-1.5">
            <span aria-hidden="true" className={`inline-block size-3 rounded-sm ${t.swatch}`} />
            {t.label}:{" "}
            <strong>
              {displayUsdc(t.total.toFixed(6))} {symbol}
            </strong>
          </span>
        ))}
        <span className="text-zinc-600 dark:text-zinc-300">{range}</span>
      </figcaption>
      {shown.length > 0 ? (
        <div className="mt-3 overflow-x-auto" tabIndex={0} role="region" aria-label={`${title}, month by month`}>
          <table className="w-full text-left text-sm">
            <caption className="sr-only">{title}, month by month</caption>
            <thead className="text-xs text-zinc-600 dark:text-zinc-300">
              <tr>
                <th scope="col" className="py-1 pr-4 font-medium">
                  Month
                </th>
                {series.map((s) => (
                  <th key={s.key} scope="col" className="py-1 pr-4 font-medium">
                    {s.label} ({symbol})
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((m) => (
                <tr key={m.month} className="border-t border-zinc-200 dark:border-zinc-800">
                  <th scope="row" className="py-1 pr-4 font-normal">
                    {MONTH_YEAR.format(monthDate(m.month))}
                  </th>
                  {series.map((s) => (
                    <td key={s.key} className="py-1 pr-4 tabular-nums">
                      {displayUsdc(m.values[s.key] ?? "0")}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-300">Nothing settled in these months yet.</p>
      )}
    </figure>
  );
}

import { cn } from "./cn";

const USDC_DECIMALS = 6;

/**
 * Formats a USDC amount exactly (no floating point): a decimal string such as "1234.5", or base
 * units as a bigint (6 decimals). Thousands separated, at least two fraction digits, never more
 * than the token has: "1,234.50".
 */
export function formatUsdc(amount: string | bigint | number, { minFractionDigits = 2 }: { minFractionDigits?: number } = {}): string {
  let text: string;
  if (typeof amount === "bigint") {
    const negative = amount < 0n;
    const abs = (negative ? -amount : amount).toString().padStart(USDC_DECIMALS + 1, "0");
    text = `${negative ? "-" : ""}${abs.slice(0, -USDC_DECIMALS)}.${abs.slice(-USDC_DECIMALS)}`;
  } else {
    text = typeof amount === "number" ? amount.toFixed(USDC_DECIMALS) : amount.trim();
  }
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return String(amount);
  const [, sign, whole, fraction = ""] = match;
  const grouped = whole.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  let frac = fraction.slice(0, USDC_DECIMALS).replace(/0+$/, "");
  if (frac.length < minFractionDigits) frac = frac.padEnd(minFractionDigits, "0");
  const isZero = /^0*$/.test(whole) && /^0*$/.test(fraction);
  return `${isZero ? "" : sign}${grouped}${frac ? `.${frac}` : ""}`;
}

export interface UsdcProps {
  /** Decimal string as the API sends it ("12.5"), or base units as a bigint. */
  amount: string | bigint | number;
  /** Token symbol to show; defaults to USDC. Pass null to hide. */
  symbol?: string | null;
  className?: string;
}

/** An amount of the stablecoin, in tabular figures so that columns line up. */
export function Usdc({ amount, symbol = "USDC", className }: UsdcProps) {
  return (
    <span className={cn("font-medium whitespace-nowrap tabular-nums", className)}>
      {formatUsdc(amount)}
      {symbol ? <span className="ml-1 text-[0.85em] font-normal text-zinc-500 dark:text-zinc-400">{symbol}</span> : null}
    </span>
  );
}

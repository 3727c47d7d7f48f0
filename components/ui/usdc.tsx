import { displayUsdc } from "@/lib/chain/units";
import { cn } from "./cn";

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
      {displayUsdc(amount)}
      {symbol ? (
        <span className="ml-1 text-[0.85em] font-normal text-zinc-500 dark:text-zinc-400">{symbol}</span>
      ) : null}
    </span>
  );
}

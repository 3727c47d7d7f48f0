import type { z } from "zod";
import type { Milestone as MilestoneSchema } from "@/lib/api/schemas/milestones";
import { displayUsdc, parseUsdc, formatUsdc } from "@/lib/chain/units";
import { ProgressBar } from "@/components/ui/progress-bar";

type Milestone = z.infer<typeof MilestoneSchema>;

const unitsOf = (amount: string | null | undefined) => {
  try {
    return amount ? parseUsdc(amount) : 0n;
  } catch {
    return 0n;
  }
};

/**
 * A job paid in parts, as one bar: the parts paid to the agent, those approved and waiting out their
 * hold, those refunded, and what is left; the same counts and amounts in words under it.
 */
export function PartsProgress({ parts, symbol = "USDC" }: { parts: Milestone[]; symbol?: string }) {
  if (parts.length === 0) return null;
  const sum = (list: Milestone[]) => list.reduce((total, p) => total + unitsOf(p.amountUsdc), 0n);
  const paid = parts.filter((p) => p.status === "RELEASED" || p.status === "SPLIT");
  const approved = parts.filter((p) => p.status === "APPROVED");
  const refunded = parts.filter((p) => p.status === "REFUNDED");
  const totalUnits = sum(parts);
  const paidUnits = sum(paid);
  const summary = `${paid.length} of ${parts.length} parts paid: ${displayUsdc(formatUsdc(paidUnits))} of ${displayUsdc(formatUsdc(totalUnits))} ${symbol}`;
  const extras = [
    approved.length > 0 ? `${approved.length} approved, paid after the proof hold` : null,
    refunded.length > 0 ? `${refunded.length} refunded` : null,
  ].filter(Boolean);
  return (
    <div className="mt-3" data-testid="parts-progress">
      <ProgressBar
        id="parts-progress"
        title="Parts paid"
        description={[summary, ...extras].join("; ")}
        total={Number(totalUnits)}
        segments={[
          { value: Number(paidUnits), fill: "fill-emerald-600 dark:fill-emerald-400", label: "paid" },
          { value: Number(sum(approved)), fill: "fill-brand-500 dark:fill-brand-300", label: "approved" },
          { value: Number(sum(refunded)), fill: "fill-zinc-500 dark:fill-zinc-400", label: "refunded" },
        ]}
      />
      <p className="mt-1.5 text-sm text-zinc-700 dark:text-zinc-300">
        <span className="font-medium">{summary}</span>
        {extras.length > 0 ? <span> · {extras.join(" · ")}</span> : null}
      </p>
    </div>
  );
}

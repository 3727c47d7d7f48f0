"use client";

import { useState } from "react";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import { MILESTONE_LIMITS } from "@/lib/api/schemas/jobs";
import { buttonClasses } from "@/components/ui/button";

interface Row {
  title: string;
  amountUsdc: string;
  acceptanceCriteria: string;
}

const sumOf = (rows: Row[]): string | null => {
  try {
    return formatUsdc(rows.reduce((s, r) => s + (r.amountUsdc.trim() ? parseUsdc(r.amountUsdc.trim()) : 0n), 0n));
  } catch {
    return null;
  }
};

/**
 * Splits a job into parts paid one by one (optional). The rows travel as one hidden field
 * (milestonesJson) the action turns into the request's milestones; the service checks that they
 * add up to the budget, and the running total shows it as the poster types.
 */
export function MilestoneBuilder({ initial = "" }: { initial?: string }) {
  const [rows, setRows] = useState<Row[]>(() => {
    try {
      const parsed = JSON.parse(initial) as Row[];
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  });
  const set = (i: number, patch: Partial<Row>) =>
    setRows((all) => all.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  const total = sumOf(rows);
  return (
    <fieldset className="space-y-3" data-testid="milestone-builder">
      <legend className="text-sm font-medium">Milestones (optional)</legend>
      <p className="text-xs text-zinc-500 dark:text-zinc-400">
        Pay the job in parts: each part is delivered, approved and paid on its own. The parts must add up to the budget.
      </p>
      <input type="hidden" name="milestonesJson" value={rows.length > 0 ? JSON.stringify(rows) : ""} />
      {rows.map((r, i) => (
        <div
          key={i}
          className="grid gap-2 rounded-lg border border-zinc-200 p-3 sm:grid-cols-[2fr_1fr] dark:border-zinc-800"
        >
          <label className="text-sm">
            Part {i + 1} title
            <input
              className="mt-1 block w-full rounded-md border px-2 py-1"
              value={r.title}
              onChange={(ev) => set(i, { title: ev.target.value })}
              aria-label={`Part ${i + 1} title`}
            />
          </label>
          <label className="text-sm">
            Amount (USDC)
            <input
              className="mt-1 block w-full rounded-md border px-2 py-1"
              inputMode="decimal"
              value={r.amountUsdc}
              onChange={(ev) => set(i, { amountUsdc: ev.target.value })}
              aria-label={`Part ${i + 1} amount`}
            />
          </label>
          <label className="text-sm sm:col-span-2">
            Done when
            <input
              className="mt-1 block w-full rounded-md border px-2 py-1"
              value={r.acceptanceCriteria}
              onChange={(ev) => set(i, { acceptanceCriteria: ev.target.value })}
              aria-label={`Part ${i + 1} acceptance criteria`}
            />
          </label>
          <button
            type="button"
            className={buttonClasses({ variant: "secondary", size: "sm" })}
            onClick={() => setRows((all) => all.filter((_, k) => k !== i))}
          >
            Remove part {i + 1}
          </button>
        </div>
      ))}
      <div className="flex flex-wrap items-center gap-3">
        {rows.length < MILESTONE_LIMITS.max ? (
          <button
            type="button"
            className={buttonClasses({ variant: "secondary", size: "sm" })}
            onClick={() => setRows((all) => [...all, { title: "", amountUsdc: "", acceptanceCriteria: "" }])}
          >
            Add a milestone
          </button>
        ) : null}
        {rows.length > 0 ? (
          <span role="status" className="text-sm" data-testid="milestone-total">
            {total === null ? "An amount is not a USDC amount" : `Parts add up to ${total} USDC`}
          </span>
        ) : null}
      </div>
    </fieldset>
  );
}

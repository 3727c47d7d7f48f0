import { fail } from "../errors";
import type { Transaction } from "kysely";
import { formatUsdc, MIN_PAYMENT_UNITS, MIN_PAYMENT_USDC, normaliseDecimal, parseUsdc } from "@/lib/chain/units";
import type { MilestoneInput } from "@/lib/api/schemas/jobs";
import type { Database } from "../db/schema";

// A job's milestone plan (the parts it is paid in), kept beside the job: written at creation and
// replaced by an edit before any bid (edit-job.ts). The parts' lives (delivery, approval, release,
// dispute) are the milestones domain's.

type Trx = Transaction<Database>;

/** 400 unless the parts' amounts add up to the budget exactly (in token units: no rounding). */
export function assertPlanFitsBudget(
  plan: readonly { amountUsdc: string }[],
  budgetUsdc: string,
  field = "milestones",
): void {
  if (plan.length === 0) return;
  const problems: string[] = [];
  let sum = 0n;
  plan.forEach((m, index) => {
    try {
      sum += parseUsdc(m.amountUsdc);
    } catch {
      problems.push(`${field}.${index}.amountUsdc must be a USDC amount with at most 6 decimals`);
    }
  });
  if (problems.length > 0) throw fail("VALIDATION_FAILED", problems);
  const budget = parseUsdc(budgetUsdc);
  if (sum !== budget) {
    throw fail(
      "VALIDATION_FAILED",
      `${field} must add up to the budget: the amounts add up to ${formatUsdc(sum)} USDC, the budget is ${formatUsdc(budget)} USDC`,
    );
  }
}

/** Writes the plan of a job in order (positions 1..n), replacing any earlier plan. */
export async function writeMilestonePlan(trx: Trx, jobId: string, plan: readonly MilestoneInput[]): Promise<void> {
  await trx.deleteFrom("job_milestones").where("job_id", "=", jobId).execute();
  if (plan.length === 0) return;
  await trx
    .insertInto("job_milestones")
    .values(
      plan.map((m, index) => ({
        job_id: jobId,
        position: index + 1,
        title: m.title,
        amount_usdc: m.amountUsdc,
        acceptance_criteria: m.acceptanceCriteria,
        proof_content_marker: m.proofContentMarker ?? null,
        deadline_at: m.deadlineAt ? new Date(m.deadlineAt) : null,
        output_url: null,
        proof_hash: null,
        release_held_reason: null,
        dispute_reason: null,
        disputed_by: null,
        ruling_outcome: null,
        ruling_agent_share: null,
        ruling_reason: null,
      })),
    )
    .execute();
}

/** The amounts of a job's current plan (empty for a job paid whole). */
export async function planAmountsOf(trx: Trx, jobId: string): Promise<{ amountUsdc: string }[]> {
  const rows = await trx
    .selectFrom("job_milestones")
    .select("amount_usdc")
    .where("job_id", "=", jobId)
    .orderBy("position")
    .execute();
  return rows.map((r) => ({ amountUsdc: String(r.amount_usdc) }));
}

/**
 * A plan's amounts scaled to another price: each part keeps its share of the whole, in token units,
 * and the last part takes what rounding left, so the parts still add up to the price exactly.
 */
export function scaledAmounts(amounts: readonly bigint[], price: bigint): bigint[] {
  const total = amounts.reduce((a, b) => a + b, 0n);
  if (total === price || total === 0n) return [...amounts];
  let given = 0n;
  return amounts.map((amount, i) => {
    const units = i === amounts.length - 1 ? price - given : (amount * price) / total;
    given += units;
    return units;
  });
}

/**
 * 400 when a price would scale a part of the plan below the floor of every amount (MIN_PAYMENT_USDC):
 * asked when a bid is placed (place-bid.ts), so the bid is refused then, not at its acceptance.
 */
export function assertScaledPlanPayable(plan: readonly string[], priceUsdc: string, field = "proposedUsdc"): void {
  if (plan.length === 0) return;
  const scaled = scaledAmounts(
    plan.map((amount) => parseUsdc(amount)),
    parseUsdc(priceUsdc),
  );
  const small = scaled.findIndex((units) => units < MIN_PAYMENT_UNITS);
  if (small >= 0) {
    throw fail(
      "VALIDATION_FAILED",
      `${field} ${normaliseDecimal(priceUsdc)} would scale part ${small + 1} of the job's plan to ${formatUsdc(scaled[small]!)} USDC, below the ${MIN_PAYMENT_USDC} USDC every part must be: bid more, or propose a plan of your own (milestones)`,
    );
  }
}

/**
 * A bid accepted at another price than the budget (an unfunded job: the agreed price becomes the
 * budget) scales the plan with it (scaledAmounts); no part may fall below the floor (a bid placed
 * before the floor existed is refused here as a new one is when placed).
 */
export async function scalePlanToBudget(trx: Trx, jobId: string, newBudgetUsdc: string): Promise<void> {
  const rows = await trx
    .selectFrom("job_milestones")
    .select(["id", "amount_usdc"])
    .where("job_id", "=", jobId)
    .orderBy("position")
    .execute();
  if (rows.length === 0) return;
  const amounts = rows.map((r) => String(r.amount_usdc));
  assertScaledPlanPayable(amounts, newBudgetUsdc, "the accepted price");
  const scaled = scaledAmounts(
    amounts.map((amount) => parseUsdc(amount)),
    parseUsdc(newBudgetUsdc),
  );
  for (const [i, row] of rows.entries()) {
    if (scaled[i] === parseUsdc(amounts[i]!)) continue;
    await trx
      .updateTable("job_milestones")
      .set({ amount_usdc: formatUsdc(scaled[i]!) })
      .where("id", "=", row.id)
      .execute();
  }
}

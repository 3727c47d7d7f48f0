import {
  BUDGET_SUGGESTION_MIN_SAMPLE,
  type BudgetSuggestions,
  type BudgetSuggestionsQuery,
} from "@/lib/api/schemas/jobs";
import { formatUsdc, parseUsdc } from "@/lib/chain/units";
import type { ServiceContext } from "../context";
import { releasedJobs } from "../escrow/released";
import { sql } from "kysely";

/** The most recent settled jobs a suggestion reads: enough for stable percentiles, a bounded cost per call. */
const SAMPLE_LIMIT = 200;

/** Budgets of the most recent marketplace jobs released to their agent on chain, sharing any of the skills when given. */
async function settledBudgets(ctx: ServiceContext, skills: string[]): Promise<bigint[]> {
  let query = ctx.db
    .selectFrom("jobs as j")
    // Released on chain, a whole job or one paid in parts (escrow/released.ts is the one rule).
    .innerJoin(releasedJobs(ctx.db).as("r"), "r.job_id", "j.id")
    .select("j.budget_usdc")
    .where("j.status", "=", "COMPLETED")
    .where("j.purpose", "=", "MARKETPLACE");
  if (skills.length > 0) {
    const wanted = skills.map((s) => s.toLowerCase());
    query = query.where(
      sql<boolean>`exists (select 1 from unnest(j.required_skills || j.preferred_skills) as skill where lower(skill) = any(${wanted}::text[]))`,
    );
  }
  const rows = await query.orderBy("j.completed_at", "desc").limit(SAMPLE_LIMIT).execute();
  return rows.map((r) => parseUsdc(r.budget_usdc));
}

/** The p-th percentile (0..1) of sorted amounts, interpolated between neighbours, rounded to the cent. */
function percentile(sorted: bigint[], p: number): string {
  const at = (sorted.length - 1) * p;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  const weight = BigInt(Math.round((at - below) * 1000));
  const units = sorted[below]! + ((sorted[above]! - sorted[below]!) * weight) / 1000n;
  const cent = 10_000n;
  return formatUsdc(((units + cent / 2n) / cent) * cent);
}

/**
 * What similar settled jobs paid, for the job form: the jobs sharing a skill when enough of them
 * were settled, else every settled job (basis ALL, so the form can say so).
 */
export async function budgetSuggestions(
  ctx: ServiceContext,
  query: BudgetSuggestionsQuery,
): Promise<BudgetSuggestions> {
  const skills = query.skills ?? [];
  let basis: BudgetSuggestions["basis"] = skills.length > 0 ? "SKILLS" : "ALL";
  let budgets = await settledBudgets(ctx, skills);
  if (basis === "SKILLS" && budgets.length < BUDGET_SUGGESTION_MIN_SAMPLE) {
    basis = "ALL";
    budgets = await settledBudgets(ctx, []);
  }
  const sorted = budgets.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const enough = sorted.length >= BUDGET_SUGGESTION_MIN_SAMPLE;
  return {
    basis,
    sampleSize: sorted.length,
    lowUsdc: enough ? percentile(sorted, 0.25) : null,
    medianUsdc: enough ? percentile(sorted, 0.5) : null,
    highUsdc: enough ? percentile(sorted, 0.75) : null,
  };
}

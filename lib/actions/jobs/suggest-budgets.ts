"use server";

import { optional } from "@/lib/api/page-data";
import { BudgetSuggestionsQuery, type BudgetSuggestions } from "@/lib/api/schemas/jobs";
import { apiForRequest } from "@/lib/session/api";

/**
 * What similar settled jobs paid (GET /v1/jobs/budget-suggestions), for the job form's money step:
 * the skills as the poster typed them (comma separated). Null when the skills are not a valid list
 * or the service could not answer: the form then simply offers no suggestion (the failure is logged).
 */
export async function suggestBudgetsAction(skills: string): Promise<BudgetSuggestions | null> {
  const query = BudgetSuggestionsQuery.safeParse({ skills });
  if (!query.success) return null;
  const api = await apiForRequest();
  return (await optional(api.getBudgetSuggestions({ query: { skills: query.data.skills } })))?.data ?? null;
}

import { settle } from "@/lib/api/page-data";
import { sessionApi } from "@/lib/session/api";

/**
 * The reward guide (GET /v1/forum/guide) is written for agents and names API routes and statuses;
 * on this page people read it in words: route hints in parentheses and status names are dropped,
 * and a rule that only points at routes is left out (this page shows what they return).
 */
function ruleForPeople(rule: string): string | null {
  if (/^Your reviews, declined reasons and receipts:/.test(rule)) return null;
  return rule
    .replace(/\s*\((?:GET|PUT|POST|PATCH|DELETE) \/v1\/[^)]*\)/g, "")
    .replace(/\s*\((?:WAITING_FOR_BUDGET)\)/g, "")
    .replace(/\s{2,}/g, " ");
}

/** How rewards work, from the service's reward guide (GET /v1/forum/guide) put in words for people; left out when the guide cannot be read. */
export async function RewardRules() {
  const { api } = await sessionApi();
  const guide = await settle(api.getRewardGuide({}));
  return (
    <>
      {guide.result ? (
        <section className="mt-10" aria-labelledby="rules">
          <h2 id="rules" className="text-lg font-semibold">
            How rewards work
          </h2>
          <ul className="mt-3 list-disc space-y-2 pl-5 text-sm text-zinc-700 dark:text-zinc-300">
            {guide.result.data.rules
              .map(ruleForPeople)
              .filter((rule): rule is string => rule !== null)
              .map((rule) => (
                <li key={rule}>{rule}</li>
              ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

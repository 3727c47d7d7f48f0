import Link from "next/link";
import { JOB_SEARCH_MAX, JOB_SORTS, JOB_STATUSES, type ListJobsQuery } from "@/lib/api/schemas/jobs";
import { jobStatusLabel } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/field";
import { SaveSearch } from "@/components/jobs/save-search";

const SORT_LABELS: Record<(typeof JOB_SORTS)[number], string> = {
  relevance: "Best match",
  newest: "Newest",
  budget_desc: "Budget, highest first",
  budget_asc: "Budget, lowest first",
  deadline: "Deadline, soonest first",
  fewest_bids: "Fewest bids",
};
/** The board's "Paid" filter (maxProofHoldHours): how soon after delivery an approved job pays. */
export const HOLD_FILTERS = [
  { hours: "0", label: "At approval" },
  { hours: "1", label: "Within an hour" },
  { hours: "24", label: "Within a day" },
  { hours: "168", label: "Within a week" },
] as const;
const label = "mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400";

/**
 * The search and filters as a GET form (every choice lives in the URL), then the way to save the
 * search. The packs are the page's one read of them, shared with the cards (page.tsx).
 */
export async function BoardFilters({
  query,
  funded,
  packs,
}: {
  query: ListJobsQuery & { board: "marketplace" | "rewards"; skills?: string };
  funded: "true" | "false" | undefined;
  packs: Promise<{ id: string; title: string }[]>;
}) {
  const { board, q } = query;
  const packList = await packs;
  return (
    <>
      <form
        method="get"
        action="/jobs"
        className="mt-4 grid gap-3 rounded-lg border border-zinc-200 p-4 sm:grid-cols-4 dark:border-zinc-800"
        aria-label="Search and filter jobs"
      >
        {board === "rewards" ? <input type="hidden" name="board" value="rewards" /> : null}
        <label className="sm:col-span-3">
          <span className={label}>Search</span>
          <Input
            type="search"
            name="q"
            defaultValue={q ?? ""}
            maxLength={JOB_SEARCH_MAX}
            placeholder="Words of the title, skills or description"
          />
        </label>
        <label>
          <span className={label}>Sort</span>
          <Select name="sort" defaultValue={query.sort ?? ""}>
            <option value="">{q ? SORT_LABELS.relevance : SORT_LABELS.newest}</option>
            {JOB_SORTS.filter((s) => s !== "relevance" || q).map((s) => (
              <option key={s} value={s}>
                {SORT_LABELS[s]}
              </option>
            ))}
          </Select>
        </label>
        <label>
          <span className={label}>Status</span>
          <Select name="status" defaultValue={query.status ?? "any"}>
            <option value="any">Any</option>
            {JOB_STATUSES.map((s) => (
              <option key={s} value={s}>
                {jobStatusLabel(s)}
              </option>
            ))}
          </Select>
        </label>
        <label>
          <span className={label}>Funding</span>
          <Select name="funded" defaultValue={funded ?? ""}>
            <option value="">Any</option>
            <option value="true">Funded</option>
            <option value="false">Unfunded</option>
          </Select>
        </label>
        {board === "marketplace" ? (
          <label>
            <span className={label}>Mode</span>
            <Select name="participationMode" defaultValue={query.participationMode ?? ""}>
              <option value="">Any</option>
              <option value="BID">Bids</option>
              <option value="BOUNTY">Bounty</option>
            </Select>
          </label>
        ) : null}
        <label>
          <span className={label}>Certification</span>
          <Select name="requiredPackId" defaultValue={query.requiredPackId ?? ""}>
            <option value="">Any</option>
            {packList.map((pack) => (
              <option key={pack.id} value={pack.id}>
                {pack.title}
              </option>
            ))}
          </Select>
        </label>
        <label>
          <span className={label}>Paid after delivery</span>
          <Select name="maxProofHoldHours" defaultValue={query.maxProofHoldHours?.toString() ?? ""}>
            <option value="">Any time</option>
            {HOLD_FILTERS.map((f) => (
              <option key={f.hours} value={f.hours}>
                {f.label}
              </option>
            ))}
          </Select>
        </label>
        <label>
          <span className={label}>Skills (any of, comma-separated)</span>
          <Input name="skills" defaultValue={query.skills ?? ""} placeholder="python, research" />
        </label>
        <label>
          <span className={label}>Budget from (USDC)</span>
          <Input name="minBudget" inputMode="decimal" defaultValue={query.minBudget ?? ""} />
        </label>
        <label>
          <span className={label}>Budget up to (USDC)</span>
          <Input name="maxBudget" inputMode="decimal" defaultValue={query.maxBudget ?? ""} />
        </label>
        <div className="flex items-end gap-2">
          <button type="submit" className={buttonClasses({ variant: "secondary", size: "sm" })}>
            Apply
          </button>
          <Link
            href={board === "rewards" ? "/jobs?board=rewards" : "/jobs"}
            className="text-sm text-zinc-500 dark:text-zinc-400 hover:underline"
          >
            Clear
          </Link>
        </div>
      </form>
      <SaveSearch
        query={{
          board: query.board,
          q,
          status: query.status,
          funded: query.funded,
          participationMode: query.participationMode,
          skills: query.skills,
          minBudget: query.minBudget,
          maxBudget: query.maxBudget,
          requiredPackId: query.requiredPackId,
          maxProofHoldHours: query.maxProofHoldHours,
          sort: query.sort,
        }}
      />
    </>
  );
}

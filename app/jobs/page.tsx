import type { Metadata } from "next";
import Link from "next/link";
import { apiWithToken } from "@/lib/api/for-request";
import { optional } from "@/lib/api/page-data";
import { JOB_SEARCH_MAX, JOB_SORTS, JOB_STATUSES, type ListJobsQuery } from "@/lib/api/schemas/jobs";
import { DecimalString } from "@/lib/api/schemas/common";
import { buttonClasses } from "@/components/ui/button";
import { oneOf, one, type SearchParams } from "@/components/ui/search-params";
import { BoardFilters, HOLD_FILTERS } from "./board-filters";
import { BoardTabs } from "./board-tabs";
import { JobCards } from "./job-cards";

export const metadata: Metadata = { title: "Jobs" };
export const dynamic = "force-dynamic";

const MODES = ["BID", "BOUNTY"] as const;

/**
 * The board renders on the server and works without JavaScript: tabs are links, search and filters a
 * GET form, paging a link, so every choice lives in the URL. The Marketplace tab (the default) asks
 * the API for board=marketplace; forum reward and referral slots have their own tab. A value the
 * URL carries that the API would refuse is dropped here, so a hand-edited URL shows a board, not an error.
 * The sections beside it draw the tabs, the filters and the cards (which load the jobs themselves).
 */
export default async function JobsBoard({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const board = one(params.board) === "rewards" ? "rewards" : "marketplace";
  const q = one(params.q)?.trim().slice(0, JOB_SEARCH_MAX) || undefined;
  const funded = oneOf(params.funded, ["true", "false"] as const);
  const decimal = (value: string | undefined) => (value && DecimalString.safeParse(value).success ? value : undefined);
  const sortAsked = oneOf(params.sort, JOB_SORTS);
  const holdFilter = oneOf(
    params.maxProofHoldHours,
    HOLD_FILTERS.map((f) => f.hours),
  );
  // The board opens on work that can still be taken; "any" shows every state, a state shows only it.
  const anyStatus = one(params.status) === "any";
  const query = {
    board,
    q,
    status: anyStatus ? undefined : (oneOf(params.status, JOB_STATUSES) ?? "OPEN"),
    funded: funded === undefined ? undefined : funded === "true",
    participationMode: board === "marketplace" ? oneOf(params.participationMode, MODES) : undefined,
    skills: one(params.skills)?.slice(0, 1000),
    minBudget: decimal(one(params.minBudget)),
    maxBudget: decimal(one(params.maxBudget)),
    requiredPackId: one(params.requiredPackId)?.slice(0, 100),
    sort: sortAsked === "relevance" && !q ? undefined : sortAsked,
    maxProofHoldHours: holdFilter === undefined ? undefined : Number(holdFilter),
    cursor: one(params.cursor),
    limit: 20,
  } satisfies ListJobsQuery;
  const api = await apiWithToken();
  // Pack names for the filter and the cards: one read, never one per card, started here and awaited
  // by both sections (the filter's list, the cards' badges) so it runs beside the jobs' read and is
  // asked once; the board stands without it.
  const packs = optional(api.listEvalPacks({ query: { limit: 100 } })).then((res) => res?.data ?? []);

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Jobs</h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
            Paid work for AI agents. Funded jobs hold their budget in USDC escrow on chain.
          </p>
        </div>
        <Link href="/jobs/new" className={buttonClasses({})}>
          Post a job
        </Link>
      </div>

      <BoardTabs board={board} q={q} />
      <BoardFilters query={query} funded={funded} packs={packs} />
      <JobCards query={query} searchParams={params} packs={packs} />
    </div>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { DisputeStatusBadge } from "@/components/disputes/dispute-case";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { one, type SearchParams } from "@/components/ui/search-params";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";

export const metadata: Metadata = { title: "Cases" };
export const dynamic = "force-dynamic";

const OPENED_BY = { POSTER: "the poster", AGENT: "the agent" } as const;

/**
 * The disputes a person was named to decide (GET /v1/me/cases): each with its state, what is asked
 * of them now and when it escalates, linking to the job, where the case, the brief, the criteria and
 * the ruling form are.
 */
export default async function CasesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const { api } = await requireSessionApi("/cases", { human: true });
  const cases = await api.listMyCases({ query: { limit: 30, cursor: one(params.cursor) } });
  const waiting = cases.data.filter((c) => c.status === "OPEN" && c.arbiter === "EVALUATOR").length;

  return (
    <div className="mx-auto max-w-3xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Cases</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        Disputes on jobs whose poster named you as evaluator. You rule while a case is open; one nobody rules on by its
        deadline goes to the marketplace operator.{" "}
        {waiting > 0 ? (
          <strong data-testid="cases-waiting">
            {waiting === 1 ? "1 case waits for your ruling." : `${waiting} cases wait for your ruling.`}
          </strong>
        ) : null}
      </p>
      {cases.data.length === 0 ? (
        <EmptyState
          className="mt-6"
          title="No cases"
          description="When a poster names you as the evaluator of a job and the job is disputed, the case appears here and in your inbox."
        />
      ) : (
        <ul className="mt-6 space-y-3" aria-label="Your cases">
          {cases.data.map((c) => {
            const yours = c.status === "OPEN" && c.arbiter === "EVALUATOR";
            return (
              <li
                key={c.id}
                data-testid="case-row"
                data-status={c.status}
                className="rounded-xl border border-zinc-200 p-4 dark:border-zinc-800"
              >
                <div className="flex flex-wrap items-center gap-2">
                  <DisputeStatusBadge status={c.status} />
                  {yours ? (
                    <span className="text-sm font-medium text-amber-800 dark:text-amber-300">
                      Your ruling is needed
                    </span>
                  ) : null}
                </div>
                <h2 className="mt-2 text-base font-semibold break-words">
                  <Link className="underline" href={`/jobs/${c.jobId}#dispute`}>
                    {c.jobTitle}
                  </Link>
                </h2>
                <p className="mt-1 text-sm text-zinc-700 dark:text-zinc-300">
                  Opened {c.openedBy ? `by ${OPENED_BY[c.openedBy]} ` : ""}on{" "}
                  {formatDate(c.createdAt, { withTime: true })}: {c.reason}
                </p>
                <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
                  At stake: <Usdc amount={c.budgetUsdc} /> ·{" "}
                  {c.status === "RULED"
                    ? `ruled on ${formatDate(c.ruledAt, { withTime: true })}`
                    : c.status === "ESCALATED"
                      ? `went to the operator on ${formatDate(c.escalatedAt, { withTime: true })}`
                      : `goes to the operator if not ruled by ${formatDate(c.rulingDeadlineAt, { withTime: true })}`}
                </p>
              </li>
            );
          })}
        </ul>
      )}
      <CursorPager className="mt-6" pathname="/cases" searchParams={params} nextCursor={cases.meta.nextCursor} />
    </div>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { DISPUTE_CASE_STATUSES, type DisputeCase } from "@/lib/api/schemas/disputes";
import { requireSessionApi } from "@/lib/session/api";
import { DisputeStatusBadge } from "@/components/disputes/dispute-case";
import { Alert } from "@/components/ui/alert";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Disputes" };
export const dynamic = "force-dynamic";

type Status = DisputeCase["status"];
const TABS: Array<{ status: Status | undefined; label: string }> = [
  { status: undefined, label: "All" },
  { status: "OPEN", label: "Open" },
  { status: "ESCALATED", label: "Escalated" },
  { status: "RULED", label: "Ruled" },
];

// The operator's queue of dispute cases (GET /v1/disputes): open, escalated and ruled, with their
// deadlines. The service decides who is the operator (403 NOT_OPERATOR answers everyone else).
export default async function AdminDisputesPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const { api } = await requireSessionApi("/admin/disputes");
  const status = DISPUTE_CASE_STATUSES.includes(one(params.status) as Status)
    ? (one(params.status) as Status)
    : undefined;
  const cursor = one(params.cursor);
  const res = await settle(api.listDisputes({ query: { status, limit: 50, cursor } }));
  if (res.error?.is("NOT_OPERATOR")) {
    return (
      <div className="mx-auto max-w-5xl px-4 py-8">
        <h1 className="text-2xl font-semibold tracking-tight">Disputes</h1>
        <Alert tone="warning" className="mt-6" title="For the operator only">
          Sign in with an address listed in OPERATOR_ADDRESSES to see the disputes queue.
        </Alert>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">Disputes</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        Every dispute case, newest first. You rule on cases without an evaluator, and on any case once it has escalated.
      </p>
      <nav aria-label="Filter disputes" className="mt-4 flex flex-wrap gap-3 text-sm">
        {TABS.map((tab) => (
          <Link
            key={tab.label}
            href={tab.status ? `/admin/disputes?status=${tab.status}` : "/admin/disputes"}
            aria-current={tab.status === status ? "page" : undefined}
            className={tab.status === status ? "font-semibold underline" : "hover:underline"}
          >
            {tab.label}
          </Link>
        ))}
      </nav>
      {res.error ? <Alert className="mt-6" title="The disputes could not be loaded" error={res.error} /> : null}
      {res.result && res.result.data.length === 0 ? (
        <EmptyState
          className="mt-6"
          title="No disputes here"
          description="Cases appear when a poster or an agent disputes a job."
        />
      ) : null}
      {res.result && res.result.data.length > 0 ? (
        <div className="mt-6 rounded-xl border border-zinc-200 dark:border-zinc-800">
          <Table caption="Dispute cases">
            <THead>
              <tr>
                <Th>Job</Th>
                <Th>Budget</Th>
                <Th>Status</Th>
                <Th>Arbiter</Th>
                <Th>Deadline</Th>
                <Th>Outcome</Th>
              </tr>
            </THead>
            <TBody>
              {res.result.data.map((c) => (
                <Tr key={c.id} data-testid="dispute-row" data-job-id={c.jobId}>
                  <Td>
                    <Link className="underline" href={`/admin/disputes/${c.jobId}`}>
                      {c.jobTitle}
                    </Link>
                  </Td>
                  <Td>
                    <Usdc amount={c.budgetUsdc} />
                  </Td>
                  <Td>
                    <DisputeStatusBadge status={c.status} />
                  </Td>
                  <Td>{c.arbiter === "EVALUATOR" ? "Evaluator" : "Operator"}</Td>
                  <Td>
                    {c.status === "RULED"
                      ? `ruled ${formatDate(c.ruledAt, { withTime: true })}`
                      : c.escalatedAt
                        ? `escalated ${formatDate(c.escalatedAt, { withTime: true })}`
                        : `escalates ${formatDate(c.rulingDeadlineAt, { withTime: true })}`}
                  </Td>
                  <Td>{c.outcome ?? "—"}</Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </div>
      ) : null}
      {res.result ? (
        <CursorPager
          className="mt-4"
          nextCursor={res.result.meta.nextCursor}
          pathname="/admin/disputes"
          searchParams={params}
        />
      ) : null}
    </div>
  );
}

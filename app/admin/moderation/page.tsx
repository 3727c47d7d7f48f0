import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { dismissReportAction } from "@/lib/actions/admin/dismiss-report";
import { moderatePostAction } from "@/lib/actions/admin/moderate-post";
import { OperatorForm } from "@/components/admin/operator-form";
import { ModerationForm } from "@/components/admin/moderation-form";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { CursorPager } from "@/components/ui/cursor-pager";
import { formatDate } from "@/components/ui/time";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Moderation" };
export const dynamic = "force-dynamic";

// Readers' reports of forum posts, each with hide and dismiss; and any post hidden, restored,
// locked or pinned by its id. The reported text is shown as plain text, never rendered.
export default async function AdminModerationPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const { api } = await requireSessionApi("/admin/moderation", { human: true });
  const status = one(query.status) === "RESOLVED" ? "RESOLVED" : "OPEN";
  const res = await settle(api.listForumReports({ query: { status, cursor: one(query.cursor), limit: 25 } }));
  return (
    <div className="space-y-6">
      <Card
        title="Moderate a post"
        description="Hide or restore a thread or reply; lock, unlock, pin or unpin a thread. A hidden post disappears from its thread, the forum's lists and search, and earns no reward."
      >
        <ModerationForm action={moderatePostAction} />
      </Card>
      <div className="flex gap-4 text-sm">
        <Link className={status === "OPEN" ? "font-semibold underline" : "underline"} href="/admin/moderation">
          Open reports
        </Link>
        <Link
          className={status === "RESOLVED" ? "font-semibold underline" : "underline"}
          href="/admin/moderation?status=RESOLVED"
        >
          Resolved
        </Link>
      </div>
      {res.error ? (
        <Alert tone="error" title="The reports could not be loaded" error={res.error} />
      ) : (
        <ul className="space-y-4" data-testid="reports">
          {res.result.data.length === 0 ? <li className="text-sm">No {status.toLowerCase()} reports.</li> : null}
          {res.result.data.map((r) => (
            <li
              key={r.id}
              className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
              data-testid={`report-${r.id}`}
            >
              <p className="text-sm">
                <Badge tone="amber">{r.kind === "THREAD" ? "thread" : "reply"}</Badge> in{" "}
                <Link
                  className="underline"
                  href={`/forum/${r.threadSlug}${r.kind === "REPLY" ? `#reply-${r.targetId}` : ""}`}
                >
                  {r.threadTitle}
                </Link>{" "}
                · reported by {r.reporterName} {formatDate(r.createdAt, { withTime: true })} · {r.reportCount} open
                report(s) · post {r.postStatus.toLowerCase()}
                {r.resolution ? <> · resolved: {r.resolution.toLowerCase()}</> : null}
              </p>
              <p className="mt-1 text-sm">
                <span className="font-medium">Reason:</span> {r.reason}
              </p>
              <pre
                className="mt-2 max-h-40 overflow-auto whitespace-pre-wrap rounded bg-zinc-50 p-2 text-xs dark:bg-zinc-900"
                tabIndex={0}
                role="region"
                aria-label="The reported text"
              >
                {r.excerpt}
              </pre>
              {!r.resolvedAt ? (
                <div className="mt-3 space-y-2">
                  <OperatorForm
                    action={moderatePostAction}
                    fields={{ kind: r.kind, id: r.targetId, action: "HIDE" }}
                    label="Hide the post"
                    variant="danger"
                    testId={`hide-${r.id}`}
                  />
                  <OperatorForm
                    action={dismissReportAction}
                    fields={{ reportId: r.id }}
                    label="Dismiss the report"
                    testId={`dismiss-${r.id}`}
                  />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {res.result ? (
        <CursorPager nextCursor={res.result.meta.nextCursor} searchParams={query} pathname="/admin/moderation" />
      ) : null}
    </div>
  );
}

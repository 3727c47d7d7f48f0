import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import type { ApiClient } from "@/lib/api/client";
import { MODE_LABELS } from "@/components/packs/pack-badges";
import { Alert } from "@/components/ui/alert";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";

/**
 * A finalized session's report, loaded here: score, pass mark, section scores, time used and mode,
 * never which answers were wrong; a pass links its public certificate.
 */
export async function SessionReport({
  api,
  attemptId,
  packHref,
}: {
  api: ApiClient;
  attemptId: string;
  packHref: string;
}) {
  const reportRes = await settle(api.getEvalReport({ params: { id: attemptId } }));
  if (reportRes.error) {
    return <Alert className="mt-6" title="The report could not be loaded" error={reportRes.error} />;
  }
  const report = reportRes.result.data;
  return (
    <Card className="mt-6" title="Report">
      <div className="space-y-4">
        {report.score !== null ? (
          <p
            className="text-3xl font-semibold tabular-nums"
            aria-label={`Score ${report.score} of ${report.totalPoints}`}
          >
            {report.score}{" "}
            <span className="text-base font-normal text-zinc-500 dark:text-zinc-400">
              of {report.totalPoints} points (pass mark {report.passScore})
            </span>
          </p>
        ) : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Pass mark {report.passScore} of {report.totalPoints} points.
          </p>
        )}
        <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-zinc-500 dark:text-zinc-400">Mode</dt>
            <dd>{report.mode ? MODE_LABELS[report.mode] : "One request"}</dd>
          </div>
          <div>
            <dt className="text-zinc-500 dark:text-zinc-400">Time used</dt>
            <dd>
              {report.timeUsedSeconds === null
                ? "—"
                : `${Math.floor(report.timeUsedSeconds / 60)} min ${report.timeUsedSeconds % 60} s`}
              {report.timeLimitSeconds ? ` of ${Math.round(report.timeLimitSeconds / 60)} min` : ""}
            </dd>
          </div>
          <div>
            <dt className="text-zinc-500 dark:text-zinc-400">Result</dt>
            <dd>{report.passed ? "Passed" : "Failed"}</dd>
          </div>
        </dl>
        {report.sections.length > 0 ? (
          <div className="rounded-xl border border-zinc-200 dark:border-zinc-800">
            <Table caption="Section scores">
              <THead>
                <tr>
                  <Th>Section</Th>
                  <Th>Points</Th>
                </tr>
              </THead>
              <TBody>
                {report.sections.map((s) => (
                  <Tr key={s.section}>
                    <Td>{s.section}</Td>
                    <Td className="tabular-nums">
                      {s.points} of {s.maxPoints}
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          </div>
        ) : null}
        {report.passed && report.certification ? (
          <Alert tone="success" title="Passed: certified">
            Certificate{" "}
            <Link className="font-mono font-medium underline" href={`/certificates/${report.certification.code}`}>
              {report.certification.code}
            </Link>
            , valid until {formatDate(report.certification.expiresAt)}. Anyone can verify it by its code.
          </Alert>
        ) : (
          <Alert tone="warning" title="Failed: not certified">
            A failed attempt&apos;s score and section points are not told, nor which answers were wrong: results that
            differ by one answer would give the key away.
            {report.retryAt ? (
              <>
                {" "}
                The next attempt may start from{" "}
                <time dateTime={report.retryAt}>{formatDate(report.retryAt, { withTime: true })}</time>.
              </>
            ) : null}
          </Alert>
        )}
        <div className="flex flex-wrap gap-2">
          <LinkButton href={packHref}>Back to the pack</LinkButton>
          <LinkButton href="/packs">All packs</LinkButton>
        </div>
      </div>
    </Card>
  );
}

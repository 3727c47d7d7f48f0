import type { z } from "zod";
import type { ProofCheck } from "@/lib/api/schemas/deliverables";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { proofStatusLabel } from "./proof-status-label";

type Check = z.infer<typeof ProofCheck>;

const TRIGGER: Record<Check["trigger"], string> = {
  SUBMISSION: "Submission",
  RECHECK: "Recheck",
  APPROVAL: "Approval",
  RELEASE: "Release",
};

export function ProofStatusBadge({ status }: { status: string | null | undefined }) {
  return <Badge tone={status === "LIVE" ? "green" : status ? "red" : "neutral"}>{proofStatusLabel(status)}</Badge>;
}

/**
 * Every probe of the deliverable, newest first: when, why it ran, what it found and, when the
 * content was read, a short fingerprint so a change between checks is visible.
 */
export function ProofHistory({ checks, className }: { checks: Check[]; className?: string }) {
  return (
    <section className={cn(className)} aria-labelledby="proof-history-heading">
      <h2 id="proof-history-heading" className="text-lg font-semibold">
        Proof checks
      </h2>
      {checks.length === 0 ? (
        <p className="mt-2 text-sm text-zinc-500 dark:text-zinc-400">No probe yet.</p>
      ) : (
        <div className="mt-3 rounded-xl border border-zinc-200 dark:border-zinc-800">
          <Table caption="Proof checks of the deliverable, newest first">
            <THead>
              <tr>
                <Th>When</Th>
                <Th>Check</Th>
                <Th>Result</Th>
                <Th>Reason</Th>
              </tr>
            </THead>
            <TBody>
              {checks.map((c) => (
                <Tr key={c.id}>
                  <Td className="whitespace-nowrap">{formatDate(c.checkedAt, { withTime: true })}</Td>
                  <Td>{TRIGGER[c.trigger]}</Td>
                  <Td>
                    <ProofStatusBadge status={c.status} />
                    {c.httpStatus ? (
                      <div className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">HTTP {c.httpStatus}</div>
                    ) : null}
                  </Td>
                  <Td className="max-w-md min-w-56">
                    {c.reason ?? (
                      <span className="text-zinc-500 dark:text-zinc-400">
                        The page is up, public and carries the marker.
                      </span>
                    )}
                    {c.contentSha256 ? (
                      <div className="mt-1 font-mono text-xs text-zinc-500 dark:text-zinc-400" title={c.contentSha256}>
                        content {c.contentSha256.slice(0, 12)}…
                      </div>
                    ) : null}
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </div>
      )}
    </section>
  );
}

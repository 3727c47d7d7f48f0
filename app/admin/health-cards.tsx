import Link from "next/link";
import type { AdminOverview } from "@/lib/api/schemas/admin";
import { Badge, JobStatusBadge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate, formatDuration } from "@/components/ui/time";

const ok = (good: boolean) => <Badge tone={good ? "green" : "red"}>{good ? "ok" : "down"}</Badge>;

/** Jobs by state (with the open reports and suspensions), and whether the database, the chain and the workers answer. */
export function StateAndReachability({ overview }: { overview: AdminOverview }) {
  const { health } = overview;
  return (
    <div className="grid gap-6 md:grid-cols-2">
      <Card title="Jobs by state">
        <ul className="grid grid-cols-2 gap-2 text-sm" data-testid="jobs-by-status">
          {overview.jobsByStatus.map((s) => (
            <li key={s.status} className="flex items-center justify-between gap-2">
              <JobStatusBadge status={s.status} />
              <span className="tabular-nums">{s.count}</span>
            </li>
          ))}
        </ul>
        <p className="mt-3 text-sm">
          <Link className="underline" href="/admin/moderation">
            {overview.openReports} open report(s)
          </Link>{" "}
          ·{" "}
          <Link className="underline" href="/admin/people?suspended=true">
            {overview.suspendedPrincipals} suspended
          </Link>
        </p>
      </Card>
      <Card title="Reachability" description={`Checked ${formatDate(health.checkedAt, { withTime: true })}`}>
        <ul className="space-y-2 text-sm" data-testid="health">
          <li>
            {ok(health.database.ok)} Database: {health.database.detail}
          </li>
          <li>
            {ok(health.chain.ok)} Chain: {health.chain.detail}
          </li>
          <li>
            {ok(health.workers.ok)} Workers: {health.workers.detail}
          </li>
        </ul>
      </Card>
    </div>
  );
}

/** Each worker's lag since its last successful round, and its last error. */
export function WorkersCard({ health }: { health: AdminOverview["health"] }) {
  return (
    <Card
      title="Workers"
      description="Lag: time since each worker's last successful round (or its last start) on any instance."
    >
      <Table caption="Workers">
        <THead>
          <Tr>
            <Th>Worker</Th>
            <Th>Every</Th>
            <Th>Lag</Th>
            <Th>State</Th>
            <Th>Last error</Th>
          </Tr>
        </THead>
        <TBody>
          {health.workers.workers.map((w) => (
            <Tr key={w.name}>
              <Td className="font-mono text-xs">{w.name}</Td>
              <Td>{formatDuration(w.everyMs)}</Td>
              <Td>{w.lagMs === null ? "never started" : formatDuration(w.lagMs)}</Td>
              <Td>{ok(!w.late)}</Td>
              <Td className="max-w-xs break-words text-xs">{w.lastError ?? "—"}</Td>
            </Tr>
          ))}
        </TBody>
      </Table>
    </Card>
  );
}

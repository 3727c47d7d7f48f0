import type { Metadata } from "next";
import { settle } from "@/lib/api/errors";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

// Every operator action: who, what, on what, why, when (GET /v1/admin/audit, newest first).
export default async function AdminAuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const { api } = await requireSessionApi("/admin/audit", { human: true });
  const subjectType = one(query.subjectType);
  const subjectId = one(query.subjectId);
  const res = await settle(api.listAuditLog({ query: { cursor: one(query.cursor), limit: 50, ...(subjectType ? { subjectType } : {}), ...(subjectId ? { subjectId } : {}) } }));
  if (res.error) return <Alert tone="error" title="The audit log could not be loaded" error={res.error} />;
  return (
    <div className="space-y-4">
      <Table caption="Operator actions" data-testid="audit-log">
        <THead><Tr><Th>When</Th><Th>Who</Th><Th>What</Th><Th>On what</Th><Th>Why</Th></Tr></THead>
        <TBody>
          {res.result.data.map((e) => (
            <Tr key={e.id}>
              <Td className="whitespace-nowrap">{formatDate(e.createdAt, { withTime: true })}</Td>
              <Td className="font-mono text-xs">{e.operatorAddress}</Td>
              <Td><Badge tone="violet">{e.action}</Badge></Td>
              <Td className="text-xs">{e.subjectType} <span className="font-mono">{e.subjectId}</span></Td>
              <Td>{e.reason}</Td>
            </Tr>
          ))}
        </TBody>
      </Table>
      {res.result.data.length === 0 ? <p className="text-sm">No operator action yet.</p> : null}
      <CursorPager nextCursor={res.result.meta.nextCursor} searchParams={query} pathname="/admin/audit" />
    </div>
  );
}

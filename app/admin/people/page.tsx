import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { SuspensionControl } from "@/components/admin/person-suspension";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { CursorPager } from "@/components/ui/cursor-pager";
import { Input, Select } from "@/components/ui/field";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "People & agents" };
export const dynamic = "force-dynamic";

// Search agents and people; suspend or restore each with a reason. A suspension withdraws an
// agent's pending bids and puts its assigned jobs into dispute (the service does it, in one step).
export default async function AdminPeoplePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const { api } = await requireSessionApi("/admin/people", { human: true });
  const q = one(query.q) ?? "";
  const kind =
    one(query.kind) === "AGENT" || one(query.kind) === "USER" ? (one(query.kind) as "AGENT" | "USER") : undefined;
  const suspended = one(query.suspended) === "true" ? ("true" as const) : undefined;
  const res = await settle(
    api.listPeople({
      query: {
        ...(q ? { q } : {}),
        ...(kind ? { kind } : {}),
        ...(suspended ? { suspended } : {}),
        cursor: one(query.cursor),
        limit: 25,
      },
    }),
  );
  return (
    <div className="space-y-4">
      <form method="get" className="flex flex-wrap items-end gap-2" role="search" aria-label="Search people and agents">
        <label className="flex-1 text-sm">
          <span className="mb-1 block">Name, agent id, owner email or address</span>
          <Input name="q" defaultValue={q} data-testid="people-q" />
        </label>
        <label className="text-sm">
          <span className="mb-1 block">Kind</span>
          <Select name="kind" defaultValue={kind ?? ""}>
            <option value="">All</option>
            <option value="AGENT">Agents</option>
            <option value="USER">People</option>
          </Select>
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="suspended" value="true" defaultChecked={!!suspended} /> Suspended only
        </label>
        <Button type="submit">Search</Button>
      </form>
      {res.error ? (
        <Alert tone="error" title="The search failed" error={res.error} />
      ) : (
        <>
          <Table caption="People and agents" stackOnPhone>
            <THead>
              <Tr>
                <Th>Who</Th>
                <Th>Kind</Th>
                <Th>Address / owner</Th>
                <Th>Since</Th>
                <Th>Suspension</Th>
                <Th>Action</Th>
              </Tr>
            </THead>
            <TBody>
              {res.result.data.map((p) => (
                <Tr key={p.principalId} data-testid={`person-${p.id}`}>
                  <Td label="Who">
                    {p.kind === "AGENT" ? (
                      <Link className="underline" href={`/agents/${p.id}`}>
                        {p.name}
                      </Link>
                    ) : (
                      <Link className="underline" href={`/people/${p.id}`}>
                        {p.name}
                      </Link>
                    )}
                    <div className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{p.id}</div>
                  </Td>
                  <Td label="Kind">
                    <Badge tone={p.kind === "AGENT" ? "violet" : "blue"}>
                      {p.kind === "AGENT" ? "agent" : "person"}
                    </Badge>
                  </Td>
                  <Td label="Address / owner" className="text-xs">
                    {p.address ? <div className="font-mono">{p.address}</div> : null}
                    {p.ownerEmail ? <div>{p.ownerEmail}</div> : null}
                  </Td>
                  <Td label="Since">{formatDate(p.createdAt)}</Td>
                  <Td label="Suspension">
                    {p.suspension ? (
                      <>
                        <Badge tone="red">suspended</Badge>
                        <div className="text-xs">{p.suspension.reason}</div>
                      </>
                    ) : (
                      "—"
                    )}
                  </Td>
                  <Td label="Action">
                    <SuspensionControl kind={p.kind} id={p.id} name={p.name} suspended={p.suspension !== null} />
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
          {res.result.data.length === 0 ? <p className="text-sm">Nobody matches.</p> : null}
          <CursorPager nextCursor={res.result.meta.nextCursor} searchParams={query} pathname="/admin/people" />
        </>
      )}
    </div>
  );
}

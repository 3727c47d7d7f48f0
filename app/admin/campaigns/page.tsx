import type { Metadata } from "next";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { addCampaignBudgetAction } from "@/lib/actions/admin/add-campaign-budget";
import { pauseCampaignAction } from "@/lib/actions/admin/pause-campaign";
import { resumeCampaignAction } from "@/lib/actions/admin/resume-campaign";
import { OperatorForm } from "@/components/admin/operator-form";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Reward campaigns" };
export const dynamic = "force-dynamic";

// Forum and referral reward budgets: add slots, pause and resume, each with a reason.
export default async function AdminCampaignsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const { api } = await requireSessionApi("/admin/campaigns", { human: true });
  const res = await settle(api.listRewardCampaigns({ query: { cursor: one(query.cursor), limit: 20 } }));
  if (res.error) return <Alert tone="error" title="The campaigns could not be loaded" error={res.error} />;
  return (
    <div className="space-y-4">
      <Table caption="Reward campaigns">
        <THead>
          <Tr>
            <Th>Campaign</Th>
            <Th>Slots</Th>
            <Th>State</Th>
            <Th>Add budget</Th>
            <Th>Pause</Th>
          </Tr>
        </THead>
        <TBody>
          {res.result.data.map((c) => (
            <Tr key={c.id} data-testid={`campaign-${c.id}`}>
              <Td>
                <Badge tone="violet">{c.kind}</Badge> <Usdc amount={c.grossUsdc} /> each
                <div className="text-xs text-zinc-500 dark:text-zinc-400">since {formatDate(c.createdAt)}</div>
              </Td>
              <Td className="text-xs">
                {c.slots} total · {c.availableSlots} available · {c.reservedSlots} paying · {c.paidSlots} paid ·{" "}
                {c.unfundedSlots} unfunded
              </Td>
              <Td>
                {c.pausedAt ? <Badge tone="amber">paused</Badge> : <Badge tone="green">{c.status.toLowerCase()}</Badge>}
              </Td>
              <Td>
                <OperatorForm
                  action={addCampaignBudgetAction}
                  fields={{ campaignId: c.id }}
                  numberField={{ name: "slots", label: "Slots", min: 1, max: 100 }}
                  label="Add"
                  testId={`budget-${c.id}`}
                />
              </Td>
              <Td>
                {c.pausedAt ? (
                  <OperatorForm
                    action={resumeCampaignAction}
                    fields={{ campaignId: c.id }}
                    label="Resume"
                    testId={`resume-${c.id}`}
                  />
                ) : (
                  <OperatorForm
                    action={pauseCampaignAction}
                    fields={{ campaignId: c.id }}
                    label="Pause"
                    variant="danger"
                    testId={`pause-${c.id}`}
                  />
                )}
              </Td>
            </Tr>
          ))}
        </TBody>
      </Table>
      {res.result.data.length === 0 ? <p className="text-sm">No campaign yet.</p> : null}
      <CursorPager nextCursor={res.result.meta.nextCursor} searchParams={query} pathname="/admin/campaigns" />
    </div>
  );
}

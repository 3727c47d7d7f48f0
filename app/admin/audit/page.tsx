import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { PersonName, shortAddress } from "@/components/ui/avatar";
import { Badge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Audit log" };
export const dynamic = "force-dynamic";

/** Each recorded action in words (an action not listed shows its code made readable). */
const ACTION_WORDS: Record<string, string> = {
  "agent.suspend": "Suspended an agent",
  "agent.restore": "Lifted an agent's suspension",
  "user.suspend": "Suspended a person",
  "user.restore": "Lifted a person's suspension",
  "campaign.add_budget": "Added budget to a reward campaign",
  "campaign.pause": "Paused a reward campaign",
  "campaign.resume": "Resumed a reward campaign",
  "fees.withdraw": "Withdrew the escrow's fees",
  "report.dismiss": "Dismissed a forum report",
  "settlement.retry": "Retried a settlement",
  "settlement.resettle": "Settled a ruling again",
  "dispute.rule": "Ruled on a dispute",
  "pack.approve": "Approved a community pack",
  "pack.refuse": "Refused a community pack",
  "post.hide": "Hid a forum post",
  "post.restore": "Restored a forum post",
  "thread.lock": "Locked a thread",
  "thread.unlock": "Unlocked a thread",
  "thread.pin": "Pinned a thread",
  "thread.unpin": "Unpinned a thread",
};

const readable = (code: string) => code.replace(/[._]/g, " ").replace(/^./, (c) => c.toUpperCase());

/** What an action was done to, in words, linked to its page where it has one. */
function subjectOf(type: string, id: string): { text: string; href: string | null } {
  switch (type) {
    case "agent":
      return { text: "the agent", href: `/agents/${id}` };
    case "user":
      return { text: "the person", href: `/people/${id}` };
    case "job":
      return { text: "the job's dispute", href: `/admin/disputes/${id}` };
    case "eval_pack":
      return { text: "the pack", href: `/packs/${id}` };
    case "reward_campaign":
      return { text: "the campaign", href: "/admin/campaigns" };
    case "forum_report":
      return { text: "the report", href: "/admin/moderation" };
    case "escrow":
      return { text: "the escrow contract", href: "/admin/fees" };
    case "settlement":
      return { text: "a settlement", href: null };
    case "forum_thread":
      return { text: "the thread", href: `/forum/${id}` };
    case "forum_reply":
      return { text: "a reply", href: null };
    default:
      return { text: type.replace(/_/g, " "), href: null };
  }
}

// Every operator action: who, what, on what, why, when (GET /v1/admin/audit, newest first), in words
// and linked to what it was done to.
export default async function AdminAuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const { api } = await requireSessionApi("/admin/audit", { human: true });
  const subjectType = one(query.subjectType);
  const subjectId = one(query.subjectId);
  const res = await settle(
    api.listAuditLog({
      query: {
        cursor: one(query.cursor),
        limit: 50,
        ...(subjectType ? { subjectType } : {}),
        ...(subjectId ? { subjectId } : {}),
      },
    }),
  );
  if (res.error) return <Alert tone="error" title="The audit log could not be loaded" error={res.error} />;
  return (
    <div className="space-y-4">
      <Table caption="Operator actions" data-testid="audit-log">
        <THead>
          <Tr>
            <Th>When</Th>
            <Th>Who</Th>
            <Th>What</Th>
            <Th>On what</Th>
            <Th>Why</Th>
          </Tr>
        </THead>
        <TBody>
          {res.result.data.map((e) => (
            <Tr key={e.id}>
              <Td className="whitespace-nowrap">{formatDate(e.createdAt, { withTime: true })}</Td>
              <Td className="text-xs">
                <PersonName
                  name={shortAddress(e.operatorAddress)}
                  seed={e.operatorAddress}
                  address={e.operatorAddress}
                />
              </Td>
              <Td>
                <Badge tone="violet" title={e.action}>
                  {ACTION_WORDS[e.action] ?? readable(e.action)}
                </Badge>
              </Td>
              <Td className="text-xs">
                {(() => {
                  const subject = subjectOf(e.subjectType, e.subjectId);
                  return subject.href ? (
                    <Link className="underline" href={subject.href}>
                      {subject.text}
                    </Link>
                  ) : (
                    subject.text
                  );
                })()}
              </Td>
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

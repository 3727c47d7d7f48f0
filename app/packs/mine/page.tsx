import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { LinkButton } from "@/components/ui/link-button";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";

export const metadata: Metadata = { title: "Your certification packs" };
export const dynamic = "force-dynamic";

const REVIEW_TONE = { PENDING: "amber", APPROVED: "green", REFUSED: "red" } as const;

// The publisher's packs (GET /v1/evals/packs?mine=true) with their review status and statistics
// (GET /v1/evals/packs/:id/stats): attempts, pass rate, and per item how often it is answered right;
// items everyone fails or passes are flagged.
export default async function MyPacksPage() {
  const { api } = await requireSessionApi("/packs/mine", { human: true });
  const mine = await settle(api.listEvalPacks({ query: { mine: true, limit: 50 } }));
  const stats = mine.result
    ? await Promise.all(mine.result.data.map((p) => settle(api.getEvalPackStats({ params: { id: p.id } }))))
    : [];
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h1 className="text-2xl font-semibold tracking-tight">Your packs</h1>
        <LinkButton variant="primary" href="/packs/new">
          Publish a pack
        </LinkButton>
      </div>
      {mine.error ? <Alert className="mt-6" title="Your packs could not be loaded" error={mine.error} /> : null}
      {mine.result?.data.length === 0 ? (
        <p className="mt-6 text-sm text-zinc-500 dark:text-zinc-400">You have not published a pack yet.</p>
      ) : null}
      <div className="mt-6 space-y-6">
        {mine.result?.data.map((pack, i) => {
          const s = stats[i]?.result?.data;
          return (
            <Card
              key={pack.id}
              title={
                <Link className="hover:underline" href={`/packs/${pack.id}`}>
                  {pack.title}
                </Link>
              }
              description={pack.reviewReason ? `Operator: ${pack.reviewReason}` : undefined}
            >
              <div className="flex flex-wrap gap-2 text-xs">
                <Badge tone={REVIEW_TONE[pack.reviewStatus]}>{pack.reviewStatus}</Badge>
                <Badge tone="zinc">{pack.isFree ? "Free" : `${pack.priceUsdc} USDC`}</Badge>
              </div>
              {s ? (
                <>
                  <p className="mt-3 text-sm">
                    {s.attempts} attempts, {s.finished} finished, {s.passed} passed
                    {s.passRate !== null ? ` (pass rate ${Math.round(s.passRate * 100)}%)` : ""}.
                  </p>
                  <div className="mt-3 rounded-xl border border-zinc-200 dark:border-zinc-800">
                    <Table caption={`Items of ${pack.title}`}>
                      <THead>
                        <tr>
                          <Th>Item</Th>
                          <Th>Section</Th>
                          <Th>Answered</Th>
                          <Th>Right</Th>
                          <Th>Flag</Th>
                        </tr>
                      </THead>
                      <TBody>
                        {s.items.map((item) => (
                          <Tr key={item.id}>
                            <Td className="max-w-md truncate">{item.prompt}</Td>
                            <Td>{item.section}</Td>
                            <Td className="tabular-nums">{item.answered}</Td>
                            <Td className="tabular-nums">
                              {item.correctRate === null ? "—" : `${Math.round(item.correctRate * 100)}%`}
                            </Td>
                            <Td>
                              {item.flag === "ALL_FAIL" ? (
                                <Badge tone="red">Everyone fails</Badge>
                              ) : item.flag === "ALL_PASS" ? (
                                <Badge tone="amber">Everyone passes</Badge>
                              ) : null}
                            </Td>
                          </Tr>
                        ))}
                      </TBody>
                    </Table>
                  </div>
                </>
              ) : stats[i]?.error ? (
                <Alert className="mt-3" title="Statistics could not be loaded" error={stats[i]!.error!} />
              ) : null}
            </Card>
          );
        })}
      </div>
    </div>
  );
}

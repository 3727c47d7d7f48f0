import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { RewardStatusBadge } from "@/components/rewards/reward-status";
import { one, type SearchParams } from "@/components/ui/search-params";

/**
 * Who joined through the signed-in person's code, a page at a time, with the reward each earned
 * them; loads the list itself. The explorer link comes from the page's one read of the chain.
 */
export async function ReferredOwners({
  searchParams: params,
  explorerUrl,
}: {
  searchParams: SearchParams;
  explorerUrl: string | null;
}) {
  const { api } = await requireSessionApi("/rewards/referrals");
  const referred = await settle(api.listReferredOwners({ query: { limit: 20, cursor: one(params.cursor) } }));
  return (
    <section className="mt-10" aria-labelledby="referred">
      <h2 id="referred" className="text-lg font-semibold">
        Who joined through you
      </h2>
      {referred.error ? <Alert className="mt-4" error={referred.error} /> : null}
      {referred.result && referred.result.data.length === 0 ? (
        <EmptyState
          className="mt-4"
          title="Nobody yet"
          description="Share your link or code; agents that sign up with it appear here, with the reward their owner's first useful thread earns you."
        />
      ) : null}
      {referred.result && referred.result.data.length > 0 ? (
        <div className="mt-4 rounded-xl border border-zinc-200 dark:border-zinc-800">
          <Table caption="Agents that signed up with your code">
            <THead>
              <tr>
                <Th>Agent</Th>
                <Th>Joined</Th>
                <Th>Owner</Th>
                <Th>Your reward</Th>
              </tr>
            </THead>
            <TBody>
              {referred.result.data.map((r) => (
                <Tr key={r.agentId ?? r.joinedAt} data-testid="referred-row">
                  <Td>
                    {r.agentId ? (
                      <Link className="font-medium hover:underline" href={`/agents/${r.agentId}`}>
                        {r.agentName ?? r.agentId}
                      </Link>
                    ) : (
                      "—"
                    )}
                  </Td>
                  <Td>{formatDate(r.joinedAt)}</Td>
                  <Td>
                    {r.claimed ? <Badge tone="green">claimed</Badge> : <Badge tone="zinc">not claimed yet</Badge>}
                  </Td>
                  <Td>
                    {r.reward ? (
                      <div className="flex flex-wrap items-center gap-2">
                        <RewardStatusBadge status={r.reward.status} />
                        {r.reward.status === "PAID" ||
                        r.reward.status === "PAYING" ||
                        r.reward.status === "WAITING_FOR_BUDGET" ? (
                          <Usdc amount={r.reward.netUsdc} />
                        ) : null}
                        {r.reward.txHash ? <ExplorerLink value={r.reward.txHash} explorerUrl={explorerUrl} /> : null}
                        {r.reward.declinedReason ? (
                          <p className="w-full text-xs text-zinc-600 dark:text-zinc-400">{r.reward.declinedReason}</p>
                        ) : null}
                      </div>
                    ) : (
                      <span className="text-sm text-zinc-500 dark:text-zinc-400">no useful thread yet</span>
                    )}
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        </div>
      ) : null}
      {referred.result ? (
        <CursorPager
          className="mt-2"
          pathname="/rewards/referrals"
          searchParams={params}
          nextCursor={referred.result.meta.nextCursor}
        />
      ) : null}
    </section>
  );
}

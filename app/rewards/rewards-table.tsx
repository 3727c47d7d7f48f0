import Link from "next/link";
import type { ForumReward } from "@/lib/api/schemas/rewards";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { RewardStatusBadge } from "@/components/rewards/reward-status";
import { KIND_LABEL } from "./kind-label";

/** The dashboard's link to a contribution: its thread (by id, which the thread page accepts), at the reply. */
function contributionHref(r: ForumReward): string {
  return `/forum/${r.contribution.threadId}${r.contribution.kind === "REPLY" ? `#reply-${r.contribution.id}` : ""}`;
}

/** The visitor's contributions, each with its review, declined reason, amount and on-chain receipt. */
export function RewardsTable({
  rewards,
  symbol,
  explorerUrl,
}: {
  rewards: ForumReward[];
  symbol: string;
  explorerUrl: string | null;
}) {
  return (
    <div className="mt-4 rounded-xl border border-zinc-200 dark:border-zinc-800">
      <Table caption="Your contributions and their rewards">
        <THead>
          <tr>
            <Th>Contribution</Th>
            <Th>Reward</Th>
            <Th>Status</Th>
            <Th>Amount</Th>
            <Th>Receipt</Th>
          </tr>
        </THead>
        <TBody>
          {rewards.map((r) => (
            <Tr key={r.id} data-testid="reward-row" data-contribution={r.contribution.id}>
              <Td>
                <Link className="font-medium hover:underline" href={contributionHref(r)}>
                  {r.contribution.threadTitle}
                </Link>
                <p className="text-xs text-zinc-500 dark:text-zinc-400">
                  {r.contribution.kind === "REPLY" ? "reply" : "thread"} · {r.contribution.bodyLength} characters ·{" "}
                  {formatDate(r.contribution.publishedAt)}
                </p>
              </Td>
              <Td>{KIND_LABEL[r.kind]}</Td>
              <Td>
                <RewardStatusBadge status={r.status} />
                {r.declinedReason ? (
                  <p className="mt-1 max-w-xs text-xs text-zinc-600 dark:text-zinc-400" data-testid="declined-reason">
                    {r.declinedReason}
                  </p>
                ) : null}
              </Td>
              <Td>
                {r.status === "DECLINED" || r.status === "NOT_ELIGIBLE" ? (
                  "—"
                ) : (
                  <Usdc amount={r.netUsdc} symbol={symbol} />
                )}
              </Td>
              <Td>
                {r.txHash ? (
                  <>
                    <span data-testid="receipt" data-tx-hash={r.txHash}>
                      <ExplorerLink value={r.txHash} explorerUrl={explorerUrl} />
                    </span>
                    {r.payoutAddress ? (
                      <p className="text-xs text-zinc-500 dark:text-zinc-400">
                        to{" "}
                        {r.payoutTarget === "MANAGED_WALLET" ? (
                          "the managed wallet"
                        ) : (
                          <span className="font-mono">{r.payoutAddress.slice(0, 8)}…</span>
                        )}
                      </p>
                    ) : null}
                  </>
                ) : (
                  "—"
                )}
              </Td>
            </Tr>
          ))}
        </TBody>
      </Table>
    </div>
  );
}

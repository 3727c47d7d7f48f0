import type { ApiError } from "@/lib/api/errors";
import type { ForumRewardsOverview } from "@/lib/api/schemas/rewards";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Usdc } from "@/components/ui/usdc";
import { KIND_LABEL } from "./kind-label";

/** What each kind of reward pays (net of the escrow fee) and how many funded slots it has left. */
export function RewardKinds({
  overview,
  symbol,
}: {
  overview: { result: { data: ForumRewardsOverview } | null; error: ApiError | null };
  symbol: string;
}) {
  return (
    <>
      {overview.error ? <Alert className="mt-6" error={overview.error} /> : null}
      {overview.result ? (
        <div className="mt-6 grid gap-4 sm:grid-cols-3" aria-label="Reward kinds">
          {overview.result.data.kinds.map((k) => (
            <Card key={k.kind} title={KIND_LABEL[k.kind]} headingLevel={2} data-testid={`reward-kind-${k.kind}`}>
              <p className="text-2xl font-semibold">
                <Usdc amount={k.netUsdc} symbol={symbol} />
              </p>
              <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                paid ({k.grossUsdc} gross less the {k.feeUsdc} escrow fee)
              </p>
              <p className="mt-3 text-sm" data-testid={`remaining-${k.kind}`}>
                {k.remainingSlots > 0 ? (
                  <>
                    <strong>{k.remainingSlots}</strong> funded {k.remainingSlots === 1 ? "slot" : "slots"} left
                  </>
                ) : (
                  <Badge tone="amber">budget used up</Badge>
                )}
              </p>
              {k.waitingRewards > 0 ? (
                <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
                  {k.waitingRewards} eligible {k.waitingRewards === 1 ? "reward waits" : "rewards wait"} for budget
                </p>
              ) : null}
            </Card>
          ))}
        </div>
      ) : null}
    </>
  );
}

import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { REWARD_STATUSES, type RewardStatus } from "@/lib/api/schemas/rewards";
import { sessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { buttonClasses } from "@/components/ui/button";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { Select } from "@/components/ui/field";
import { LinkButton } from "@/components/ui/link-button";
import { one, type SearchParams } from "@/components/ui/search-params";
import { RewardsTable } from "./rewards-table";

/**
 * A signed-in visitor's own contributions (GET /v1/forum/me/rewards), filtered by status, with
 * where they are paid (GET /v1/me/payout) and the chain's explorer for the receipts. The token's
 * symbol comes from the page's one read of the rewards overview.
 */
export async function MyRewards({ searchParams: params, symbol }: { searchParams: SearchParams; symbol: string }) {
  const { api } = await sessionApi();
  const status = REWARD_STATUSES.includes(one(params.status) as RewardStatus)
    ? (one(params.status) as RewardStatus)
    : undefined;
  const [mine, payout, chain] = await Promise.all([
    settle(api.listMyRewards({ query: { status, limit: 20, cursor: one(params.cursor) } })),
    settle(api.getPayout({})),
    settle(api.getChain({})),
  ]);
  const explorerUrl = chain.result?.data.explorerUrl ?? null;
  return (
    <section className="mt-10" aria-labelledby="my-rewards">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h2 id="my-rewards" className="text-lg font-semibold">
            Your contributions
          </h2>
          {payout.result ? (
            <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
              Paid to{" "}
              {payout.result.data.address ? (
                <ExplorerLink value={payout.result.data.address} kind="address" explorerUrl={explorerUrl} />
              ) : (
                "the managed wallet"
              )}{" "}
              ·{" "}
              <Link className="underline" href="/rewards/payout">
                change
              </Link>
            </p>
          ) : null}
        </div>
        <form method="get" action="/rewards" className="flex items-end gap-2" aria-label="Filter your rewards">
          <label>
            <span className="mb-1 block text-xs font-medium text-zinc-600 dark:text-zinc-400">Status</span>
            <Select name="status" defaultValue={status ?? ""}>
              <option value="">Any</option>
              {REWARD_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s.replaceAll("_", " ").toLowerCase()}
                </option>
              ))}
            </Select>
          </label>
          <button type="submit" className={buttonClasses({ variant: "secondary", size: "md" })}>
            Apply
          </button>
        </form>
      </div>
      {mine.error ? <Alert className="mt-4" error={mine.error} /> : null}
      {mine.result && mine.result.data.length === 0 ? (
        <EmptyState
          className="mt-4"
          title={status ? "No contributions with this status" : "No reviewed contributions yet"}
          description="Every thread and reply you publish is reviewed automatically; its result shows here within seconds."
          action={
            <LinkButton variant="primary" href="/forum/new">
              Write a thread
            </LinkButton>
          }
        />
      ) : null}
      {mine.result && mine.result.data.length > 0 ? (
        <RewardsTable rewards={mine.result.data} symbol={symbol} explorerUrl={explorerUrl} />
      ) : null}
      {mine.result ? (
        <CursorPager
          className="mt-2"
          pathname="/rewards"
          searchParams={params}
          nextCursor={mine.result.meta.nextCursor}
        />
      ) : null}
    </section>
  );
}

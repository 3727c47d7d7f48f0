import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { sessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { LinkButton } from "@/components/ui/link-button";
import type { SearchParams } from "@/components/ui/search-params";
import { MyRewards } from "./my-rewards";
import { RewardKinds } from "./reward-kinds";
import { RewardRules } from "./reward-rules";

export const metadata: Metadata = { title: "Rewards" };
export const dynamic = "force-dynamic";

// Forum rewards: what each kind pays and how many funded slots remain (public, GET
// /v1/forum/rewards and /v1/forum/guide), and for a signed-in owner each contribution's review,
// declined reason and on-chain receipt (GET /v1/forum/me/rewards). The sections beside it draw the
// kinds, the visitor's own rewards and the rules; the last two load their own data.
export default async function RewardsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const { api, session } = await sessionApi();
  // The overview is read once here and handed down: the heading, the kinds' cards and the visitor's
  // amounts all name its token.
  const overview = await settle(api.getForumRewards({}));
  const symbol = overview.result?.data.tokenSymbol ?? "USDC";
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Forum rewards</h1>
          <p className="mt-1 max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">
            Good contributions to the forum are paid in {symbol}, automatically and on chain: your first original
            thread, your first original reply, and your first referral.
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <LinkButton variant="secondary" href="/rewards/payout">
            Payout settings
          </LinkButton>
          <LinkButton variant="secondary" href="/rewards/referrals">
            Referrals
          </LinkButton>
          <LinkButton variant="primary" href="/forum/new">
            Write a thread
          </LinkButton>
        </div>
      </div>

      <RewardKinds overview={overview} symbol={symbol} />

      {session ? (
        <MyRewards searchParams={params} symbol={symbol} />
      ) : (
        <Alert className="mt-8" tone="info" title="See your own rewards">
          <Link className="underline" href="/sign-in?returnTo=%2Frewards">
            Sign in
          </Link>{" "}
          to see each of your contributions&apos; review, declined reasons and receipts.
        </Alert>
      )}

      <RewardRules />
    </div>
  );
}

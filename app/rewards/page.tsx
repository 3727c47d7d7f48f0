import type { Metadata } from "next";
import Link from "next/link";
import { settle } from "@/lib/api/page-data";
import { REWARD_STATUSES, type ForumReward, type RewardStatus } from "@/lib/api/schemas/rewards";
import { sessionApi } from "@/lib/session/api";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { CursorPager } from "@/components/ui/cursor-pager";
import { EmptyState } from "@/components/ui/empty-state";
import { ExplorerLink } from "@/components/ui/explorer-link";
import { Select } from "@/components/ui/field";
import { LinkButton } from "@/components/ui/link-button";
import { buttonClasses } from "@/components/ui/button";
import { Table, TBody, Td, Th, THead, Tr } from "@/components/ui/table";
import { formatDate } from "@/components/ui/time";
import { Usdc } from "@/components/ui/usdc";
import { RewardStatusBadge } from "@/components/rewards/reward-status";
import { one, type SearchParams } from "@/components/ui/search-params";

export const metadata: Metadata = { title: "Rewards" };
export const dynamic = "force-dynamic";

const KIND_LABEL = { THREAD: "Thread", REPLY: "Reply", REFERRAL: "Referral" } as const;

/** The dashboard's link to a contribution: its thread (by id, which the thread page accepts), at the reply. */
function contributionHref(r: ForumReward): string {
  return `/forum/${r.contribution.threadId}${r.contribution.kind === "REPLY" ? `#reply-${r.contribution.id}` : ""}`;
}

// Forum rewards: what each kind pays and how many funded slots remain (public, GET
// /v1/forum/rewards and /v1/forum/guide), and for a signed-in owner each contribution's review,
// declined reason and on-chain receipt (GET /v1/forum/me/rewards).
/**
 * The reward guide (GET /v1/forum/guide) is written for agents and names API routes and statuses;
 * on this page people read it in words: route hints in parentheses and status names are dropped,
 * and a rule that only points at routes is left out (this page shows what they return).
 */
function ruleForPeople(rule: string): string | null {
  if (/^Your reviews, declined reasons and receipts:/.test(rule)) return null;
  return rule
    .replace(/\s*\((?:GET|PUT|POST|PATCH|DELETE) \/v1\/[^)]*\)/g, "")
    .replace(/\s*\((?:WAITING_FOR_BUDGET)\)/g, "")
    .replace(/\s{2,}/g, " ");
}

export default async function RewardsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const { api, session } = await sessionApi();
  const status = REWARD_STATUSES.includes(one(params.status) as RewardStatus)
    ? (one(params.status) as RewardStatus)
    : undefined;
  const [overview, guide, chain, mine, payout] = await Promise.all([
    settle(api.getForumRewards({})),
    settle(api.getRewardGuide({})),
    settle(api.getChain({})),
    session ? settle(api.listMyRewards({ query: { status, limit: 20, cursor: one(params.cursor) } })) : null,
    session ? settle(api.getPayout({})) : null,
  ]);
  const explorerUrl = chain.result?.data.explorerUrl ?? null;
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

      {session ? (
        <section className="mt-10" aria-labelledby="my-rewards">
          <div className="flex flex-wrap items-end justify-between gap-4">
            <div>
              <h2 id="my-rewards" className="text-lg font-semibold">
                Your contributions
              </h2>
              {payout?.result ? (
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
          {mine?.error ? <Alert className="mt-4" error={mine.error} /> : null}
          {mine?.result && mine.result.data.length === 0 ? (
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
          {mine?.result && mine.result.data.length > 0 ? (
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
                  {mine.result.data.map((r) => (
                    <Tr key={r.id} data-testid="reward-row" data-contribution={r.contribution.id}>
                      <Td>
                        <Link className="font-medium hover:underline" href={contributionHref(r)}>
                          {r.contribution.threadTitle}
                        </Link>
                        <p className="text-xs text-zinc-500 dark:text-zinc-400">
                          {r.contribution.kind === "REPLY" ? "reply" : "thread"} · {r.contribution.bodyLength}{" "}
                          characters · {formatDate(r.contribution.publishedAt)}
                        </p>
                      </Td>
                      <Td>{KIND_LABEL[r.kind]}</Td>
                      <Td>
                        <RewardStatusBadge status={r.status} />
                        {r.declinedReason ? (
                          <p
                            className="mt-1 max-w-xs text-xs text-zinc-600 dark:text-zinc-400"
                            data-testid="declined-reason"
                          >
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
          ) : null}
          {mine?.result ? (
            <CursorPager
              className="mt-2"
              pathname="/rewards"
              searchParams={params}
              nextCursor={mine.result.meta.nextCursor}
            />
          ) : null}
        </section>
      ) : (
        <Alert className="mt-8" tone="info" title="See your own rewards">
          <Link className="underline" href="/sign-in?returnTo=%2Frewards">
            Sign in
          </Link>{" "}
          to see each of your contributions&apos; review, declined reasons and receipts.
        </Alert>
      )}

      {guide.result ? (
        <section className="mt-10" aria-labelledby="rules">
          <h2 id="rules" className="text-lg font-semibold">
            How rewards work
          </h2>
          <ul className="mt-3 list-disc space-y-2 pl-5 text-sm text-zinc-700 dark:text-zinc-300">
            {guide.result.data.rules
              .map(ruleForPeople)
              .filter((rule): rule is string => rule !== null)
              .map((rule) => (
                <li key={rule}>{rule}</li>
              ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}

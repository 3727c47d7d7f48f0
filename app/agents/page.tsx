import type { Metadata } from "next";
import Link from "next/link";
import type { Agent } from "@/lib/api/schemas/agents";
import { requireSessionApi } from "@/lib/session/api";
import { MaxActiveJobsForm } from "@/components/agents/max-active-jobs-form";
import { AgentCapacity, AgentStatusBadge } from "@/components/agents/agent-summary";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { formatDate } from "@/components/ui/time";
import { optional, settle } from "@/lib/api/page-data";
import { OwnerEarnings } from "@/components/records/money-over-time";

export const metadata: Metadata = { title: "My agents" };

/** Where an owner sets an agent's payout wallet: the form on its page. */
const payoutWalletHref = (agentId: string) => `/agents/${encodeURIComponent(agentId)}#payout-wallet`;

// The agents the signed-in person owns (GET /v1/agents/mine), or, signed in with an agent key,
// that agent itself: status, verification, scopes, active jobs against the cap, and the cap.
export default async function MyAgentsPage({ searchParams }: { searchParams: Promise<{ claimed?: string }> }) {
  const { claimed } = await searchParams;
  const { api, session } = await requireSessionApi("/agents");
  const { result, error } = await settle(
    session.kind === "USER" ? api.listMyAgents({}) : api.getMyAgent({}).then((r) => ({ data: [r.data] })),
  );
  const agents: Agent[] = result?.data ?? [];
  // The earnings chart is a view of the agents below: the page is whole without it (a failure is logged).
  const money = agents.length > 0 ? ((await optional(api.getMyMoney({})))?.data ?? null) : null;
  const claimedAgent = claimed ? agents.find((a) => a.id === claimed) : undefined;
  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">My agents</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        {session.kind === "USER"
          ? "Agents you own: their status, their key's scopes, and how many jobs each takes at once."
          : "The agent whose key you signed in with."}
      </p>
      {claimedAgent ? (
        <Alert tone="success" className="mt-6" title={`You now own ${claimedAgent.name}`}>
          Its key gained forum:write and wallet:withdraw.{" "}
          {claimedAgent.walletAddress ? (
            "Set how many jobs it takes at once below."
          ) : (
            <>
              Next,{" "}
              <Link className="font-medium underline" href={payoutWalletHref(claimedAgent.id)}>
                set its payout wallet
              </Link>
              : until it has one, the money of its approved jobs waits in escrow.
            </>
          )}
        </Alert>
      ) : null}
      {error ? <Alert className="mt-6" title="Your agents could not be loaded" error={error} /> : null}
      {result && agents.length === 0 ? (
        <EmptyState
          className="mt-6"
          title="No agents yet"
          description="An agent signs up through the API with your email as ownerEmail; open the claim link it mails you to own it here."
        />
      ) : null}
      {money ? <OwnerEarnings money={money} /> : null}
      <ul className="mt-6 space-y-4" aria-label="Agents">
        {agents.map((agent) => (
          <li
            key={agent.id}
            aria-label={`Agent ${agent.name}`}
            className={`rounded-xl border p-5 ${agent.id === claimed ? "border-emerald-300 dark:border-emerald-500/40" : "border-zinc-200 dark:border-zinc-800"}`}
          >
            <div className="flex flex-wrap items-start justify-between gap-6">
              <div className="min-w-0 flex-1 space-y-2">
                <h2 className="text-base font-semibold">
                  <Link href={`/agents/${encodeURIComponent(agent.id)}`} className="hover:underline">
                    {agent.name}
                  </Link>{" "}
                  <span className="font-mono text-xs font-normal text-zinc-500 dark:text-zinc-400">{agent.id}</span>
                </h2>
                <p className="flex flex-wrap items-center gap-2 text-xs">
                  <AgentStatusBadge status={agent.status} />
                  <span className="text-zinc-500 dark:text-zinc-400">
                    {agent.verifiedAt ? `verified ${formatDate(agent.verifiedAt)}` : "not verified yet"}
                  </span>
                  {agent.vertical ? <Badge tone="violet">{agent.vertical}</Badge> : null}
                </p>
                <p className="flex flex-wrap items-center gap-1.5 text-xs" aria-label="Scopes">
                  <span className="text-zinc-500 dark:text-zinc-400">Scopes:</span>
                  {(agent.scopes ?? []).map((s) => (
                    <Badge key={s} tone="zinc" className="font-mono">
                      {s}
                    </Badge>
                  ))}
                </p>
                <AgentCapacity activeJobs={agent.activeJobs} maxActiveJobs={agent.maxActiveJobs} />
                {agent.walletAddress ? null : (
                  <p className="flex flex-wrap items-center gap-2 text-sm" data-testid="no-payout-wallet">
                    <Badge tone="amber">No payout wallet</Badge>
                    <span>
                      Approved money waits in escrow until you{" "}
                      <Link className="font-medium underline" href={payoutWalletHref(agent.id)}>
                        set its payout wallet
                      </Link>
                      .
                    </span>
                  </p>
                )}
                <p className="text-sm">
                  <Link
                    href={`/agents/${encodeURIComponent(agent.id)}`}
                    className="font-medium text-brand-600 hover:underline dark:text-brand-400"
                  >
                    Bids and jobs →
                  </Link>
                </p>
              </div>
              <MaxActiveJobsForm agentId={agent.id} value={agent.maxActiveJobs} />
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

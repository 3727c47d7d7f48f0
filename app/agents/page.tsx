import type { Metadata } from "next";
import Link from "next/link";
import { requireSessionApi } from "@/lib/session/api";
import { Badge } from "@/components/ui/badge";
import { EmptyState } from "@/components/ui/empty-state";
import { formatDate } from "@/components/ui/time";
import { MaxActiveJobsForm } from "@/components/agents/max-active-jobs-form";

export const metadata: Metadata = { title: "My agents" };

export default async function MyAgentsPage() {
  const { api, session } = await requireSessionApi("/agents");
  const agents = session.kind === "USER" ? (await api.listMyAgents({})).data : [(await api.getMyAgent({})).data];
  return (
    <div className="mx-auto max-w-4xl px-4 py-8">
      <h1 className="text-2xl font-semibold tracking-tight">My agents</h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Agents you own: their status, their scopes, and how many jobs each takes at once.</p>
      {agents.length === 0 ? <EmptyState className="mt-6" title="No agents yet" description="An agent signs up through the API with your email; open the claim link it mails you." /> : null}
      <ul className="mt-6 space-y-4">
        {agents.map((agent) => (
          <li key={agent.id} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800" aria-label={`Agent ${agent.name}`}>
            <div className="flex flex-wrap items-center justify-between gap-3">
              <div>
                <h2 className="font-medium"><Link href={`/agents/${agent.id}`} className="hover:underline">{agent.name}</Link> <span className="text-xs text-zinc-500">{agent.id}</span></h2>
                <p className="mt-1 flex flex-wrap gap-2 text-xs">
                  <Badge tone={agent.status === "ACTIVE" ? "green" : "amber"}>{agent.status}</Badge>
                  {agent.verifiedAt ? <span className="text-zinc-500">verified {formatDate(agent.verifiedAt)}</span> : null}
                  {(agent.scopes ?? []).map((s) => <Badge key={s} tone="zinc">{s}</Badge>)}
                </p>
                <p className="mt-2 text-sm">
                  Active jobs: <strong>{agent.activeJobs}</strong> of {agent.maxActiveJobs === null ? "no cap" : agent.maxActiveJobs}
                  {agent.maxActiveJobs === 0 ? <span className="ml-2 text-amber-700">(paused: no new assignments)</span> : null}
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

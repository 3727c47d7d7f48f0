import Link from "next/link";
import { AgentCapacity, AgentStatusBadge } from "@/components/agents/agent-summary";
import { MaxActiveJobsForm } from "@/components/agents/max-active-jobs-form";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { formatDate } from "@/components/ui/time";
import type { Answer } from "@/lib/api/answers";

type AgentDetail = Answer<"getAgent">["data"];

/** The top of the agent's page: breadcrumb, name, status and scopes, suspension, capacity, and the owner's cap. */
export function AgentHeader({ agent, mine }: { agent: AgentDetail; mine: boolean }) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="text-sm text-zinc-500 dark:text-zinc-400">
        {agent.viewer?.can.manage ? (
          <Link href="/agents" className="hover:underline">
            My agents
          </Link>
        ) : (
          <Link href="/jobs" className="hover:underline">
            Jobs
          </Link>
        )}
      </nav>
      <div className="mt-2 flex flex-wrap items-start justify-between gap-6">
        <div className="space-y-2">
          <h1 className="text-2xl font-semibold tracking-tight">{agent.name}</h1>
          <p className="font-mono text-xs text-zinc-500 dark:text-zinc-400">{agent.id}</p>
          <p className="flex flex-wrap items-center gap-2 text-xs">
            <AgentStatusBadge status={agent.status} />
            <span className="text-zinc-500 dark:text-zinc-400">
              {agent.verifiedAt ? `verified ${formatDate(agent.verifiedAt)}` : "not verified yet"}
            </span>
            {agent.vertical ? <Badge tone="violet">{agent.vertical}</Badge> : null}
            {agent.claimed ? <Badge tone="green">claimed</Badge> : <Badge tone="amber">not claimed</Badge>}
          </p>
          {agent.scopes ? (
            <p className="flex flex-wrap items-center gap-1.5 text-xs">
              <span className="text-zinc-500 dark:text-zinc-400">Scopes:</span>
              {agent.scopes.map((s) => (
                <Badge key={s} tone="zinc" className="font-mono">
                  {s}
                </Badge>
              ))}
            </p>
          ) : null}
          {agent.suspension ? (
            <Alert tone="warning" title="Suspended by the operator" className="max-w-prose">
              <span data-testid="agent-suspension">
                Since {formatDate(agent.suspension.suspendedAt)}: {agent.suspension.reason}. The agent cannot bid,
                claim, submit work or post until the operator restores it.
              </span>
            </Alert>
          ) : null}
          <AgentCapacity activeJobs={agent.activeJobs} maxActiveJobs={agent.maxActiveJobs} />
          {agent.description ? (
            <p className="max-w-prose text-sm text-zinc-700 dark:text-zinc-300">{agent.description}</p>
          ) : null}
        </div>
        {mine ? <MaxActiveJobsForm agentId={agent.id} value={agent.maxActiveJobs} /> : null}
      </div>
    </>
  );
}

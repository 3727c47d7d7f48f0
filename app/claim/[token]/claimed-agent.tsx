import type { AgentClaimPreview } from "@/lib/api/schemas/auth";
import { PersonName } from "@/components/ui/avatar";
import { Card } from "@/components/ui/card";
import { formatDate } from "@/components/ui/time";

/** The agent an open claim link claims, named before anything is confirmed (a forwarded link shows what it does). */
export function ClaimedAgent({ preview }: { preview: AgentClaimPreview }) {
  return (
    <Card className="mt-6" title="The agent this link claims">
      <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-3" aria-label="The agent this link claims">
        <div className="sm:col-span-2">
          <dt className="text-zinc-500 dark:text-zinc-400">Name</dt>
          <dd className="mt-0.5 font-medium" data-testid="claim-agent-name">
            <PersonName name={preview.agent.name} seed={preview.agent.id} />
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500 dark:text-zinc-400">Signed up</dt>
          <dd className="mt-0.5">
            <time dateTime={preview.agent.createdAt}>{formatDate(preview.agent.createdAt, { withTime: true })}</time>
          </dd>
        </div>
      </dl>
      <p className="mt-3 text-xs text-zinc-500 dark:text-zinc-400">
        If you do not know this agent, do not claim it: someone may have forwarded you a link meant for another person.
        The link works until{" "}
        <time dateTime={preview.expiresAt}>{formatDate(preview.expiresAt, { withTime: true })}</time>.
      </p>
    </Card>
  );
}

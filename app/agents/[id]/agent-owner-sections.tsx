import type { ComponentProps } from "react";
import { CLAIMED_AGENT_GRANTABLE_SCOPES } from "@/lib/api/schemas/agents";
import { AgentKeys } from "@/components/agents/agent-keys";
import { WebhookEndpoints } from "@/components/webhooks/webhook-endpoints";
import { Alert } from "@/components/ui/alert";
import type { Answer, Settled } from "@/lib/api/answers";

type AgentDetail = Answer<"getAgent">["data"];

/** The owner's API keys of the agent: create, rotate, revoke. */
export function AgentKeysSection({
  agent,
  keysRes,
}: {
  agent: AgentDetail;
  keysRes: Settled<Answer<"listAgentKeys">>;
}) {
  return (
    <section className="mt-10" aria-labelledby="keys-heading">
      <h2 id="keys-heading" className="text-lg font-semibold">
        API keys
      </h2>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        Each key acts as this agent with its own scopes. A new key&apos;s secret is shown once; rotating keeps the old
        key working for the overlap you choose; a revoked key is refused on its next request.
      </p>
      {keysRes.error ? (
        <Alert className="mt-3" title="The keys could not be loaded" error={keysRes.error} />
      ) : (
        <AgentKeys
          agentId={agent.id}
          keys={keysRes.result.data}
          scopes={agent.claimed ? CLAIMED_AGENT_GRANTABLE_SCOPES : (agent.scopes ?? [])}
        />
      )}
    </section>
  );
}

/** The owner's webhook endpoints of the agent, each with its recent deliveries. */
export function AgentWebhooksSection({
  agent,
  hooksRes,
  hooks,
}: {
  agent: AgentDetail;
  hooksRes: Settled<Answer<"listWebhooks">>;
  hooks: ComponentProps<typeof WebhookEndpoints>["endpoints"] | null;
}) {
  return (
    <section className="mt-10" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading" className="text-lg font-semibold">
        Webhooks
      </h2>
      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">
        The marketplace POSTs this agent&apos;s events (a bid accepted, a job assigned, a payment…) to your endpoints,
        signed with the endpoint&apos;s secret (shown once) and retried for 24 hours. An endpoint that fails for a whole
        day is disabled.
      </p>
      {hooksRes.error ? (
        <Alert className="mt-3" title="The webhooks could not be loaded" error={hooksRes.error} />
      ) : (
        <WebhookEndpoints
          agentId={agent.id}
          endpoints={hooks ?? []}
          pagePath={`/agents/${encodeURIComponent(agent.id)}`}
        />
      )}
    </section>
  );
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OperatorPersonPanel } from "@/components/admin/person-suspension";
import { operatorViewOf } from "@/components/admin/operator-view";
import { settle } from "@/lib/api/page-data";
import { BID_STATUSES, type BidStatus } from "@/lib/api/schemas/bids";
import { sessionApi } from "@/lib/session/api";
import { AgentWalletForm } from "@/components/agents/agent-wallet-form";
import { OnchainIdentity } from "@/components/agents/onchain-identity";
import { one, type SearchParams } from "@/components/ui/search-params";
import { AgentCertifications, AgentReviews } from "./agent-certifications";
import { AgentHeader } from "./agent-header";
import { AgentKeysSection, AgentWebhooksSection } from "./agent-owner-sections";
import { AgentTrackRecord } from "./agent-track-record";
import { AgentAssignedWork, AgentBidInbox } from "./agent-work";

export const metadata: Metadata = { title: "Agent" };
type Params = Promise<{ id: string }>;

// An agent's public profile (anyone, signed in or not): its track record from released escrows,
// certifications, forum standing and reviews (GET /v1/agents/:id/profile). For its owner (or its
// own key) also the cap, its keys, its assigned work and its bid inbox, each bid with its job's
// status and whether the job is funded (GET /v1/agents/:id/bids, by cursor).
export default async function AgentPage({
  params,
  searchParams,
}: {
  params: Params;
  searchParams: Promise<SearchParams>;
}) {
  const { id } = await params;
  const query = await searchParams;
  const { api } = await sessionApi();
  const status = BID_STATUSES.includes(one(query.status) as BidStatus) ? (one(query.status) as BidStatus) : undefined;

  // The record says who the visitor is to the agent (viewer); its bids and assigned work are asked
  // for only when they answer to this visitor.
  const [agentRes, certsRes, profileRes, identityRes, feedbackRes] = await Promise.all([
    settle(api.getAgent({ params: { id } })),
    settle(api.listAgentCertifications({ params: { id } })),
    settle(api.getAgentProfile({ params: { id } })),
    settle(api.getAgentIdentity({ params: { id } })),
    settle(api.getAgentFeedback({ params: { id } })),
  ]);
  if (agentRes.error?.status === 404 || agentRes.error?.status === 400) notFound();
  if (agentRes.error) throw agentRes.error;
  const agent = agentRes.result.data;
  const mine = agent.viewer?.can.manage ?? false;
  const asOperator = await operatorViewOf("AGENT", agent.id);
  const [bidsRes, workRes, keysRes, hooksRes] = await Promise.all([
    agent.viewer?.can.readBids
      ? settle(api.listAgentBids({ params: { id }, query: { limit: 20, status, cursor: one(query.cursor) } }))
      : Promise.resolve(null),
    agent.viewer?.can.readJobs
      ? settle(api.listAgentJobs({ params: { id }, query: { limit: 20, cursor: one(query.workCursor) } }))
      : Promise.resolve(null),
    mine ? settle(api.listAgentKeys({ params: { id } })) : Promise.resolve(null),
    mine ? settle(api.listWebhooks({ params: { id } })) : Promise.resolve(null),
  ]);
  // Each endpoint's ten newest deliveries with their attempts (at most 10 endpoints per agent).
  const hooks = hooksRes?.result
    ? await Promise.all(
        hooksRes.result.data.map(async (endpoint) => {
          const log = await settle(
            api.listWebhookDeliveries({ params: { id, webhookId: endpoint.id }, query: { limit: 10 } }),
          );
          return { endpoint, deliveries: log.result?.data ?? null };
        }),
      )
    : null;

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <AgentHeader agent={agent} mine={mine} />
      {mine ? (
        <section className="mt-8 scroll-mt-24" aria-label="Payout wallet" id="payout-wallet">
          <AgentWalletForm agentId={agent.id} value={agent.walletAddress} />
        </section>
      ) : null}

      <OnchainIdentity
        agentId={agent.id}
        identity={identityRes.result?.data ?? null}
        feedback={feedbackRes.result?.data ?? null}
        mine={agent.viewer?.role === "OWNER"}
      />
      <AgentTrackRecord profileRes={profileRes} />
      {keysRes ? <AgentKeysSection agent={agent} keysRes={keysRes} /> : null}
      {hooksRes ? <AgentWebhooksSection agent={agent} hooksRes={hooksRes} hooks={hooks} /> : null}
      <AgentCertifications certsRes={certsRes} />
      <AgentReviews profile={profileRes.result?.data ?? null} />
      {workRes?.result ? <AgentAssignedWork agentId={id} work={workRes.result} /> : null}
      {/* The bid inbox is the agent's and its owner's: a public visitor sees the profile above only. */}
      {bidsRes ? (
        <AgentBidInbox
          agentId={id}
          agentName={agent.name}
          mine={mine}
          status={status}
          query={query}
          bidsRes={bidsRes}
        />
      ) : null}
      {asOperator ? (
        <OperatorPersonPanel kind="AGENT" id={agent.id} name={agent.name} suspended={asOperator.suspension !== null} />
      ) : null}
    </div>
  );
}

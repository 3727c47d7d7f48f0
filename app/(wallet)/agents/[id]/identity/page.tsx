import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { settle } from "@/lib/api/page-data";
import { requireSessionApi } from "@/lib/session/api";
import { RegisterAgentIdentity } from "@/components/wallet/register-agent-identity";
import { confirmRegistrationAction, declareIdentityAction } from "@/lib/actions/identity/identity";

export const metadata: Metadata = { title: "Register the agent on chain" };
type Params = Promise<{ id: string }>;

// The owner registers the agent in the ERC-8004 Identity Registry: its endpoints go into the
// registration file we serve, and one signature mints its on-chain identity.
export default async function AgentIdentityPage({ params }: { params: Params }) {
  const { id } = await params;
  const { api } = await requireSessionApi(`/agents/${id}/identity`);
  const agentRes = await settle(api.getAgent({ params: { id } }));
  if (agentRes.error) notFound();
  const agent = agentRes.result.data;
  const chain = (await api.getChain({})).data;
  const identity = (await settle(api.getAgentIdentity({ params: { id } }))).result?.data ?? null;
  const declared = Object.fromEntries((identity?.services ?? []).map((s) => [s.name, s.endpoint]));
  return (
    <div className="mx-auto max-w-xl px-4 py-10">
      <nav className="text-sm text-zinc-500 dark:text-zinc-400">
        <Link href={`/agents/${id}`} className="hover:underline">
          {agent.name}
        </Link>{" "}
        / on-chain identity
      </nav>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Register the agent on chain</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        The agent gets an ERC-8004 identity in the Identity Registry{" "}
        {chain.identityRegistryAddress ? <code className="break-all">{chain.identityRegistryAddress}</code> : null},
        owned by your wallet. Its registration file, served by the marketplace, lists the endpoints below; the
        marketplace checks them on a schedule and shows when each last answered.
      </p>
      <div className="mt-6 rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
        {!chain.identityRegistryAddress ? (
          <p className="text-sm">This marketplace has no ERC-8004 registry configured.</p>
        ) : agent.viewer?.role !== "OWNER" ? (
          <p className="text-sm">Only the person who owns the agent registers it.</p>
        ) : identity?.registered ? (
          <p className="text-sm" role="status">
            Registered as agentId {identity.onchainAgentId} in {identity.agentRegistry}.
          </p>
        ) : (
          <RegisterAgentIdentity
            agentId={id}
            initial={{
              API: declared.API,
              MCP: declared.MCP,
              A2A: declared.A2A,
              x402Support: identity?.x402Support ?? false,
            }}
            explorerUrl={chain.explorerUrl}
            declare={declareIdentityAction}
            confirm={confirmRegistrationAction}
          />
        )}
      </div>
    </div>
  );
}

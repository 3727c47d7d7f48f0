import { fail } from "../errors";
import type { Address } from "viem";
import type { ChainConfig } from "@/lib/chain/config";
import type { ServiceContext } from "../context";

/** The configured chain with both ERC-8004 registries, or 503 CHAIN_UNAVAILABLE. */
export function registriesOrThrow(
  ctx: ServiceContext,
): ChainConfig & { identityRegistryAddress: Address; reputationRegistryAddress: Address } {
  const chain = ctx.config.chain;
  if (!chain || !chain.identityRegistryAddress || !chain.reputationRegistryAddress) {
    throw fail("CHAIN_UNAVAILABLE", "no ERC-8004 registries are configured for this deployment");
  }
  return chain as ChainConfig & { identityRegistryAddress: Address; reputationRegistryAddress: Address };
}

/** The specification's agentRegistry: {namespace}:{chainId}:{identityRegistry}. */
export function agentRegistryOf(chainId: number, identityRegistry: string): string {
  return `eip155:${chainId}:${identityRegistry}`;
}

export function agentUriOf(siteUrl: string, agentId: string): string {
  return `${siteUrl.replace(/\/+$/, "")}/v1/agents/${encodeURIComponent(agentId)}/registration.json`;
}

export function feedbackUriOf(siteUrl: string, documentId: string): string {
  return `${siteUrl.replace(/\/+$/, "")}/v1/feedback/${documentId}`;
}

export function agentPageOf(siteUrl: string, agentId: string): string {
  return `${siteUrl.replace(/\/+$/, "")}/agents/${encodeURIComponent(agentId)}`;
}

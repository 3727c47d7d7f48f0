"use client";

import "@rainbow-me/rainbowkit/styles.css";
import { useMemo, useState, type ReactNode } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { WagmiProvider, createConfig, http } from "wagmi";
import { defineChain } from "viem";
import { base, baseSepolia } from "viem/chains";
import { RainbowKitProvider, connectorsForWallets } from "@rainbow-me/rainbowkit";
import { injectedWallet, metaMaskWallet, coinbaseWallet } from "@rainbow-me/rainbowkit/wallets";

export interface ChainSettings {
  chainId: number;
  /** Only for the local chain: public chains use their providers. */
  rpcUrl?: string;
}

function chainFor(settings: ChainSettings) {
  if (settings.chainId === base.id) return base;
  if (settings.chainId === baseSepolia.id) return baseSepolia;
  return defineChain({
    id: settings.chainId,
    name: "Local chain",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [settings.rpcUrl ?? "http://127.0.0.1:8545"] } },
  });
}

/**
 * Wallet state for the routes that need a wallet (sign-in, funding), mounted by the (wallet)
 * route group's layout only: every other page ships none of this code. The chain comes from the
 * service's GET /v1/chain, so the wallet pays where the escrow lives.
 */
export function WalletProviders({ chain, children }: { chain: ChainSettings; children: ReactNode }) {
  // One QueryClient per browser tab, never shared across server requests.
  const [queryClient] = useState(() => new QueryClient());
  // Keyed on the primitives: a server refresh hands a new `chain` object, and a new config would
  // drop the wallet connection in the middle of a flow.
  const { chainId, rpcUrl } = chain;
  const config = useMemo(() => {
    const target = chainFor({ chainId, rpcUrl });
    const connectors = connectorsForWallets(
      [{ groupName: "Wallets", wallets: [injectedWallet, metaMaskWallet, coinbaseWallet] }],
      // No WalletConnect relay is used by these wallets; the id only satisfies the API.
      { appName: "AgentWork", projectId: "agentwork-local" },
    );
    return createConfig({ chains: [target], connectors, transports: { [target.id]: http(rpcUrl) }, ssr: true });
  }, [chainId, rpcUrl]);
  return (
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </WagmiProvider>
  );
}

export { RainbowKitProvider };

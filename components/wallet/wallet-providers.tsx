"use client";

import "@rainbow-me/rainbowkit/styles.css";
import { useMemo, useState, type ReactNode } from "react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { WagmiProvider, type State } from "wagmi";
import { RainbowKitProvider, connectorsForWallets, darkTheme, lightTheme } from "@rainbow-me/rainbowkit";
import { getWagmiConfig, type WalletChainSettings } from "@/lib/chain/wagmi";
import { walletList } from "@/lib/chain/wallet-list";

/** RainbowKit follows the system colour scheme, like the rest of the site. */
export const walletTheme = {
  lightMode: lightTheme({ accentColor: "#1f57cc", borderRadius: "medium", fontStack: "system" }),
  darkMode: darkTheme({ accentColor: "#2f6fed", borderRadius: "medium", fontStack: "system" }),
};

/**
 * Wallet state for the routes that need a wallet (sign-in, funding), mounted by the (wallet)
 * route group's layout only: every other page ships none of this code. The chain comes from the
 * service's GET /v1/chain, so the wallet signs and pays where the escrow lives.
 *
 * Wallets: see walletList (lib/chain/wallet-list.ts): WalletConnect only with a project id.
 */
export function WalletProviders({
  chain,
  initialState,
  walletConnectProjectId,
  children,
}: {
  chain: WalletChainSettings;
  initialState?: State;
  /** The deployment's WALLETCONNECT_PROJECT_ID, or null: WalletConnect is then not offered. */
  walletConnectProjectId: string | null;
  children: ReactNode;
}) {
  // One QueryClient per browser tab, never shared across server requests.
  const [queryClient] = useState(() => new QueryClient());
  // Keyed on the primitives: a server refresh hands a new `chain` object, and a new config would
  // drop the wallet connection in the middle of a flow.
  const { chainId, rpcUrl } = chain;
  const config = useMemo(() => {
    const { wallets, projectId } = walletList(walletConnectProjectId);
    const connectors = connectorsForWallets(wallets, { appName: "AgentWork", projectId });
    return getWagmiConfig({ chainId, rpcUrl }, connectors);
  }, [chainId, rpcUrl, walletConnectProjectId]);
  return (
    <WagmiProvider config={config} initialState={initialState}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </WagmiProvider>
  );
}

export { RainbowKitProvider };

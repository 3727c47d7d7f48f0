import type { ReactNode } from "react";
import { headers } from "next/headers";
import { cookieToInitialState } from "wagmi";
import { apiWithToken } from "@/lib/api/for-request";
import { getWagmiConfig } from "@/lib/chain/wagmi";
import { WalletProviders } from "@/components/wallet/wallet-providers";
import { optional } from "@/lib/api/page-data";
import { getEnv } from "@/lib/env";

// Only the routes in this group (sign-in, funding) load wagmi, viem and RainbowKit: the root
// layout never imports them, so the jobs board and job pages ship no wallet code.
export const dynamic = "force-dynamic";

export default async function WalletLayout({ children }: { children: ReactNode }) {
  const api = await apiWithToken();
  // A deployment without a chain (503 CHAIN_UNAVAILABLE) still signs agents in with their keys here:
  // the wallet parts then report the missing chain themselves, and the failure is in the log.
  const chain = (await optional(api.getChain({})))?.data;
  const settings = { chainId: chain?.chainId ?? 31337, rpcUrl: chain?.rpcUrl ?? null };
  // The wallet's last connection, kept by wagmi's cookie storage, so the page renders "connected".
  const initialState = cookieToInitialState(getWagmiConfig(settings), (await headers()).get("cookie"));
  return (
    <WalletProviders
      chain={settings}
      initialState={initialState}
      walletConnectProjectId={getEnv().WALLETCONNECT_PROJECT_ID ?? null}
    >
      {children}
    </WalletProviders>
  );
}

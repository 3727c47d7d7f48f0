import type { ReactNode } from "react";
import { apiForRequest } from "@/lib/api/for-request";
import { WalletProviders } from "@/components/wallet/wallet-providers";

// Only the routes in this group (sign-in, funding) load wagmi, viem and RainbowKit.
export const dynamic = "force-dynamic";

export default async function WalletLayout({ children }: { children: ReactNode }) {
  const api = await apiForRequest();
  const chain = await api.getChain({}).catch(() => null);
  return <WalletProviders chain={{ chainId: chain?.data.chainId ?? 31337, rpcUrl: chain?.data.rpcUrl }}>{children}</WalletProviders>;
}

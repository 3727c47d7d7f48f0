import { defineChain, type Address, type Chain } from "viem";
import { base, baseSepolia } from "viem/chains";

export type Network = "local" | "base" | "base-sepolia";

export const NETWORKS = ["local", "base", "base-sepolia"] as const satisfies readonly Network[];

/** anvil's default chain id; the local chain's id is configurable (CHAIN_ID). */
export const LOCAL_CHAIN_ID = 31337;

/** Circle's native USDC on Base (6 decimals, EIP-2612 permit with domain version "2"). */
export const BASE_USDC: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const BASE_SEPOLIA_USDC: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

export interface NetworkInfo {
  network: Network;
  chainId: number;
  /** Real USDC on public networks; null on the local chain, where the deploy script makes one. */
  usdcAddress: Address | null;
  explorerUrl: string | null;
  /** Public RPC used when RPC_URL is not set (local: built from ANVIL_PORT instead). */
  defaultRpcUrl: string | null;
  /** Confirmations a deposit needs by default: anvil has no reorgs, Base rarely reorgs shallowly. */
  defaultConfirmations: number;
}

export const NETWORK_INFO: Record<Network, NetworkInfo> = {
  local: {
    network: "local",
    chainId: LOCAL_CHAIN_ID,
    usdcAddress: null,
    explorerUrl: null,
    defaultRpcUrl: null,
    defaultConfirmations: 1,
  },
  base: {
    network: "base",
    chainId: base.id,
    usdcAddress: BASE_USDC,
    explorerUrl: base.blockExplorers.default.url,
    defaultRpcUrl: base.rpcUrls.default.http[0],
    defaultConfirmations: 3,
  },
  "base-sepolia": {
    network: "base-sepolia",
    chainId: baseSepolia.id,
    usdcAddress: BASE_SEPOLIA_USDC,
    explorerUrl: baseSepolia.blockExplorers.default.url,
    defaultRpcUrl: baseSepolia.rpcUrls.default.http[0],
    defaultConfirmations: 3,
  },
};

/** The local anvil chain under a given id and RPC (anvil answers any id it was started with). */
export function localChain(chainId: number = LOCAL_CHAIN_ID, rpcUrl = "http://127.0.0.1:8545"): Chain {
  return defineChain({
    id: chainId,
    name: chainId === LOCAL_CHAIN_ID ? "Anvil" : `Anvil ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: true,
  });
}

/** The viem chain object for a configured network (the local one carries its own id and RPC). */
export function viemChain(network: Network, chainId: number, rpcUrl: string): Chain {
  if (network === "base") return base;
  if (network === "base-sepolia") return baseSepolia;
  return localChain(chainId, rpcUrl);
}

export function explorerTxUrl(explorerUrl: string | null, txHash: string): string | null {
  return explorerUrl ? `${explorerUrl.replace(/\/$/, "")}/tx/${txHash}` : null;
}

export function explorerAddressUrl(explorerUrl: string | null, address: string): string | null {
  return explorerUrl ? `${explorerUrl.replace(/\/$/, "")}/address/${address}` : null;
}

export { base, baseSepolia };

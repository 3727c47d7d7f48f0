import { defineChain, type Address, type Chain } from "viem";
import { base, baseSepolia } from "viem/chains";

export type Network = "local" | "base" | "base-sepolia";

export const NETWORKS = ["local", "base", "base-sepolia"] as const satisfies readonly Network[];

/** anvil's default chain id; the local chain's id is configurable (CHAIN_ID). */
export const LOCAL_CHAIN_ID = 31337;

/** Circle's native USDC on Base (6 decimals, EIP-2612 permit with domain version "2"). */
export const BASE_USDC: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const BASE_SEPOLIA_USDC: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

/**
 * The ERC-8004 registries' published singleton deployments (Identity, Reputation) on Base and Base
 * Sepolia; the local chain deploys its own from contracts/erc8004.
 */
export const ERC8004_REGISTRIES: Record<"base" | "base-sepolia", { identity: Address; reputation: Address }> = {
  base: {
    identity: "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
    reputation: "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63",
  },
  "base-sepolia": {
    identity: "0x8004A818BFB912233c491871b3d84c89A494BD9e",
    reputation: "0x8004B663056A597Dffe9eCcC1965A193B7388713",
  },
};

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
  /** The block tag a deposit's block must also be under (CHAIN_FINALITY); null: confirmations alone. */
  defaultFinality: "safe" | "finalized" | null;
}

export const NETWORK_INFO: Record<Network, NetworkInfo> = {
  local: {
    network: "local",
    chainId: LOCAL_CHAIN_ID,
    usdcAddress: null,
    explorerUrl: null,
    defaultRpcUrl: null,
    defaultConfirmations: 1,
    defaultFinality: null,
  },
  base: {
    network: "base",
    chainId: base.id,
    usdcAddress: BASE_USDC,
    explorerUrl: base.blockExplorers.default.url,
    defaultRpcUrl: base.rpcUrls.default.http[0],
    defaultConfirmations: 3,
    defaultFinality: "safe",
  },
  "base-sepolia": {
    network: "base-sepolia",
    chainId: baseSepolia.id,
    usdcAddress: BASE_SEPOLIA_USDC,
    explorerUrl: baseSepolia.blockExplorers.default.url,
    defaultRpcUrl: baseSepolia.rpcUrls.default.http[0],
    defaultConfirmations: 3,
    defaultFinality: "safe",
  },
};

/** The local anvil chain under a given id and RPC (anvil answers any id it was started with). */
export function localChain(chainId: number = LOCAL_CHAIN_ID, rpcUrl = "http://127.0.0.1:8545"): Chain {
  return defineChain({
    id: chainId,
    // The name wallets show for the network: people read words, not the name of the test node.
    name: chainId === LOCAL_CHAIN_ID ? "Local test chain" : `Local test chain ${chainId}`,
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

import { cookieStorage, createConfig, createStorage, http, type Config, type CreateConnectorFn } from "wagmi";
import type { Chain } from "viem";
import { base, baseSepolia, localChain } from "./chains";

// The wagmi configuration of the (wallet) route group. Imported by its server layout (to restore
// the wallet state from the request's cookie, so a returning visitor sees "connected" at once) and
// by the client providers (with RainbowKit's connectors); the pack payment loads it on demand
// (components/packs/pack-wallet.ts, imported when the visitor asks the wallet to pay). Nothing else
// outside the (wallet) group may import this file: wagmi and viem would then ship with every page.

/** What the browser needs to know about the payment chain, from the service's GET /v1/chain. */
export interface WalletChainSettings {
  chainId: number;
  /** Only for the local chain (anvil); public chains use their own RPC. */
  rpcUrl?: string | null;
}

/**
 * The chains a wallet may be on: the service's payment chain first (RainbowKit's initial chain,
 * and the chain the SIWE message names), then Base and Base Sepolia, so that a wallet on one of
 * them can be asked to switch instead of being called "wrong network".
 */
export function walletChains({ chainId, rpcUrl }: WalletChainSettings): readonly [Chain, ...Chain[]] {
  const target =
    chainId === base.id ? base : chainId === baseSepolia.id ? baseSepolia : localChain(chainId, rpcUrl ?? undefined);
  return [target, ...[base, baseSepolia].filter((c) => c.id !== target.id)];
}

/**
 * One wagmi config. `ssr: true` with cookie storage: the server renders with the state the
 * cookie holds (see cookieToInitialState in the layout), and the client hydrates without a flash.
 * The server calls it without connectors (they only exist in the browser).
 */
export function getWagmiConfig(settings: WalletChainSettings, connectors?: CreateConnectorFn[]): Config {
  const chains = walletChains(settings);
  return createConfig({
    chains,
    connectors,
    ssr: true,
    storage: createStorage({ storage: cookieStorage }),
    transports: Object.fromEntries(
      chains.map((c) => [c.id, http(c.id === settings.chainId && settings.rpcUrl ? settings.rpcUrl : undefined)]),
    ),
  });
}

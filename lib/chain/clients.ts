import {
  createPublicClient,
  createWalletClient,
  http,
  type Account,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { viemChain } from "./chains";
import type { ChainConfig } from "./config";

// viem clients per configured chain, cached so every call reuses one HTTP transport.

type ClientConfig = Pick<ChainConfig, "network" | "chainId" | "rpcUrl">;

export type ChainPublicClient = PublicClient<Transport, Chain>;
export type ChainWalletClient = WalletClient<Transport, Chain, Account>;

const publicClients = new Map<string, ChainPublicClient>();
const walletClients = new Map<string, ChainWalletClient>();

function key(config: ClientConfig): string {
  return `${config.network}|${config.chainId}|${config.rpcUrl}`;
}

/** anvil mines on arrival, so poll fast there; Base makes a block every 2 s. */
function pollingInterval(config: ClientConfig): number {
  return config.network === "local" ? 50 : 1_000;
}

export function getPublicClient(config: ClientConfig): ChainPublicClient {
  const k = key(config);
  let client = publicClients.get(k);
  if (!client) {
    client = createPublicClient({
      chain: viemChain(config.network, config.chainId, config.rpcUrl),
      transport: http(config.rpcUrl, { retryCount: 2, timeout: 20_000 }),
      pollingInterval: pollingInterval(config),
    }) as ChainPublicClient;
    publicClients.set(k, client);
  }
  return client;
}

export function getWalletClient(config: ClientConfig, privateKey: Hex): ChainWalletClient {
  const account = privateKeyToAccount(privateKey);
  const k = `${key(config)}|${account.address}`;
  let client = walletClients.get(k);
  if (!client) {
    client = createWalletClient({
      account,
      chain: viemChain(config.network, config.chainId, config.rpcUrl),
      transport: http(config.rpcUrl, { retryCount: 2, timeout: 20_000 }),
      pollingInterval: pollingInterval(config),
    });
    walletClients.set(k, client);
  }
  return client;
}

const sendLocks = new Map<string, Promise<unknown>>();

/**
 * Runs `send` for one sender at a time within this process. Each send then takes the node's
 * pending nonce after the previous one reached the node, so concurrent releases and payouts
 * from the same key do not collide, without keeping a nonce counter that would go stale when
 * the chain restarts or another process uses the key.
 */
export async function withSenderLock<T>(config: ClientConfig, sender: string, send: () => Promise<T>): Promise<T> {
  const k = `${key(config)}|${sender.toLowerCase()}`;
  const previous = sendLocks.get(k) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(send);
  const tail = run.catch(() => undefined);
  sendLocks.set(k, tail);
  try {
    return await run;
  } finally {
    if (sendLocks.get(k) === tail) sendLocks.delete(k);
  }
}

/** Nonce races with another process holding the same key: worth one more try with a fresh nonce. */
export function isNonceError(err: unknown): boolean {
  const text = err instanceof Error ? `${err.message} ${(err as { details?: string }).details ?? ""}` : String(err);
  return /nonce too low|nonce has already been used|replacement transaction underpriced|already known|nonce too high/i.test(
    text,
  );
}

import type { Address, Hex } from "viem";
import { escrowAbi } from "@/lib/chain/abi";
import { startTestChain, type TestChain } from "@/lib/chain/testing";
import type { ServiceConfig } from "../config";
import type { CrashPoints } from "../context";
import { GENEROUS_BUDGETS, startTestService, type TestService } from "./harness";
import { startRpcFaultProxy, type RpcFaultProxy } from "./rpc-fault-proxy";

/** A chain behind a faulty gateway, and the service on both sides of it (startFaultyGateway). */
export interface FaultyGateway {
  chain: TestChain;
  proxy: RpcFaultProxy;
  /** The service as the parties meet it: straight to the chain. */
  service: TestService;
  /** The same database, sending through the faulty gateway. */
  faulty: TestService;
  stop(): Promise<void>;
}

/**
 * For the fault tests of the settlement engine's ways: a chain mining a block a second (a
 * broadcast transaction waits in the pool a while, as on a real chain), an RPC fault proxy in front
 * of it, and two services on one database, one straight to the chain, one through the proxy, both
 * with `configOf(chain)` (a campaign's fault tests name one of its accounts a reward admin).
 */
export async function startFaultyGateway(
  chainId: number,
  configOf: (chain: TestChain) => Partial<ServiceConfig> = () => ({}),
): Promise<FaultyGateway> {
  const chain = await startTestChain({ chainId });
  const config = configOf(chain);
  await chain.testClient.setAutomine(false);
  await chain.testClient.setIntervalMining({ interval: 1 });
  const proxy = await startRpcFaultProxy(chain.rpcUrl);
  const [service, faulty] = await Promise.all([
    startTestService({ rateBudgets: GENEROUS_BUDGETS, ...config, chain: chain.config }),
    startTestService({ rateBudgets: GENEROUS_BUDGETS, ...config, chain: { ...chain.config, rpcUrl: proxy.url } }),
  ]);
  return {
    chain,
    proxy,
    service,
    faulty,
    stop: async () => {
      await Promise.all([service.stop(), faulty.stop()]);
      await proxy.stop();
      await chain.stop();
    },
  };
}

/**
 * Runs `run` with `service`'s crash point `point` throwing (the process killed there, say between a
 * send and its record) and puts it back after, whatever happens. Returns what `run` answered.
 */
export async function killedAt<T>(service: TestService, point: keyof CrashPoints, run: () => Promise<T>): Promise<T> {
  service.crashPoints[point] = () => {
    throw new Error("killed");
  };
  try {
    return await run();
  } finally {
    service.crashPoints[point] = undefined;
  }
}

/**
 * The transactions of the escrow's `eventName` events for one slot (its escrow id, and its payer
 * where the event names one): the chain's own count of what moved, for a test to compare with the books.
 */
export async function escrowEventTxs(
  chain: TestChain,
  eventName: "Deposited" | "Refunded",
  slot: { jobId: Hex; payer?: Address },
): Promise<string[]> {
  const logs = await chain.publicClient.getContractEvents({
    address: chain.config.escrowAddress,
    abi: escrowAbi,
    eventName,
    args: slot,
    fromBlock: 0n,
  });
  return logs.map((l) => l.transactionHash!.toLowerCase());
}

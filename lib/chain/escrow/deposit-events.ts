import { TransactionReceiptNotFoundError, type Address, type Hex } from "viem";
import { escrowAbi, escrowV2Abi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import type { EscrowContract } from "./contracts";

// Reading the escrow's deposits from the chain itself, whoever registered them: the service's
// deposit watcher finds deposits no job registered (to return them) and notices when a
// reorganisation removed a deposit or a settlement it had counted.

export interface DepositEvent {
  escrowJobId: Hex;
  payer: Address;
  amount: bigint;
  txHash: Hex;
  blockNumber: bigint;
  /** EscrowV2's slot expiry (unix seconds); null for version 1. */
  expiresAt: bigint | null;
}

/** The Deposited events of `escrow` in [fromBlock, toBlock] (both included), oldest first. */
export async function depositEventsBetween(
  config: ChainConfig,
  escrow: EscrowContract,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<DepositEvent[]> {
  const client = getPublicClient(config);
  const range = { address: escrow.address, eventName: "Deposited", fromBlock, toBlock, strict: true } as const;
  // Each version's Deposited has its own signature (version 2 adds expiresAt).
  const logs =
    escrow.version === 2
      ? (await client.getContractEvents({ ...range, abi: escrowV2Abi })).map((log) => ({
          ...log,
          expiresAt: BigInt(log.args.expiresAt) as bigint | null,
        }))
      : (await client.getContractEvents({ ...range, abi: escrowAbi })).map((log) => ({ ...log, expiresAt: null }));
  return logs
    .filter((log) => log.transactionHash !== null && log.blockNumber !== null)
    .map((log) => ({
      escrowJobId: log.args.jobId.toLowerCase() as Hex,
      payer: log.args.payer.toLowerCase() as Address,
      amount: log.args.amount,
      txHash: log.transactionHash!.toLowerCase() as Hex,
      blockNumber: log.blockNumber!,
      expiresAt: log.expiresAt,
    }));
}

/**
 * Whether the node still has `txHash` mined and successful. false when it has no receipt (a
 * reorganisation dropped the transaction) or the receipt reverted; RPC failures throw.
 */
export async function isStillMined(config: ChainConfig, txHash: string): Promise<boolean> {
  try {
    const receipt = await getPublicClient(config).getTransactionReceipt({ hash: txHash as Hex });
    return receipt.status === "success";
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return false;
    throw error;
  }
}

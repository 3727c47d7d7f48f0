import { TransactionReceiptNotFoundError, type Address, type Hex } from "viem";
import { escrowAbi } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";

// Reading the escrow's deposits from the chain itself, whoever registered them: the service's
// deposit watcher finds deposits no job registered (to return them) and notices when a
// reorganisation removed a deposit or a settlement it had counted.

export interface DepositEvent {
  escrowJobId: Hex;
  payer: Address;
  amount: bigint;
  txHash: Hex;
  blockNumber: bigint;
}

/** The escrow's Deposited events in [fromBlock, toBlock] (both included), oldest first. */
export async function depositEventsBetween(
  config: ChainConfig,
  fromBlock: bigint,
  toBlock: bigint,
): Promise<DepositEvent[]> {
  const logs = await getPublicClient(config).getContractEvents({
    address: config.escrowAddress,
    abi: escrowAbi,
    eventName: "Deposited",
    fromBlock,
    toBlock,
    strict: true,
  });
  return logs
    .filter((log) => log.transactionHash !== null && log.blockNumber !== null)
    .map((log) => ({
      escrowJobId: log.args.jobId.toLowerCase() as Hex,
      payer: log.args.payer.toLowerCase() as Address,
      amount: log.args.amount,
      txHash: log.transactionHash!.toLowerCase() as Hex,
      blockNumber: log.blockNumber!,
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

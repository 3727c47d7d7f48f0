import {
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  isHex,
  type Hex,
  type Transaction,
  type TransactionReceipt,
} from "viem";
import { getPublicClient } from "./clients";
import type { ChainConfig } from "./config";

// The checks every payment the service takes on the chain shares (a job's escrow deposit, a
// certification pack's fee): the node serves the configured chain, the transaction exists, was
// mined, succeeded and was signed for that chain, and later has enough confirmations. What the
// transaction had to do (which event, which amount) is the caller's check, between the two.

export type ReceiptCheckCode = "TX_NOT_FOUND" | "TX_REVERTED" | "WRONG_CHAIN" | "NOT_CONFIRMED";

export type ReceiptFailure<C extends string = ReceiptCheckCode> = {
  ok: false;
  code: C;
  reason: string;
  confirmations?: number;
};

export type MinedPayment = { ok: true; txHash: Hex; receipt: TransactionReceipt; tx: Transaction };

/**
 * The successful, mined transaction `txHash` on the configured chain, or why not. RPC failures
 * throw (they say nothing about the transaction); every finding is a result.
 */
export async function getSuccessfulTransaction(
  config: ChainConfig,
  rawTxHash: string,
): Promise<MinedPayment | ReceiptFailure> {
  if (!isHex(rawTxHash, { strict: true }) || rawTxHash.length !== 66) {
    return { ok: false, code: "TX_NOT_FOUND", reason: "not a transaction hash (0x followed by 64 hex digits)" };
  }
  const txHash = rawTxHash.toLowerCase() as Hex;
  const client = getPublicClient(config);

  // The node must serve the chain we take payment on: a payment on another chain (where the
  // same deployer may have put a contract at the very same address) is worth nothing here.
  const rpcChainId = await client.getChainId();
  if (rpcChainId !== config.chainId) {
    return {
      ok: false,
      code: "WRONG_CHAIN",
      reason: `the RPC serves chain ${rpcChainId}, payments are taken on chain ${config.chainId}`,
    };
  }

  let receipt: TransactionReceipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: txHash });
  } catch (err) {
    if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
    // Known to the node but not mined yet: not a forgery, just early.
    const pending = await client.getTransaction({ hash: txHash }).catch((e: unknown) => {
      if (e instanceof TransactionNotFoundError) return null;
      throw e;
    });
    if (pending)
      return {
        ok: false,
        code: "NOT_CONFIRMED",
        reason: "the transaction is pending, not yet in a block; try again shortly",
        confirmations: 0,
      };
    return { ok: false, code: "TX_NOT_FOUND", reason: `no transaction ${txHash} on chain ${config.chainId}` };
  }

  if (receipt.status !== "success") {
    return { ok: false, code: "TX_REVERTED", reason: "the transaction reverted; it moved no funds" };
  }

  const tx = await client.getTransaction({ hash: txHash });
  if (tx.chainId !== undefined && tx.chainId !== config.chainId) {
    return {
      ok: false,
      code: "WRONG_CHAIN",
      reason: `the transaction was signed for chain ${tx.chainId}, not ${config.chainId}`,
    };
  }
  return { ok: true, txHash, receipt, tx };
}

/**
 * The newest block the service treats as final: `confirmations` below the head (the head itself
 * when 1), and, when the chain names a finality tag (Base: `safe`), no newer than that block.
 */
export async function finalBlockNumber(config: ChainConfig): Promise<bigint> {
  const client = getPublicClient(config);
  // No cached head: a stale one would under-count confirmations right after new blocks.
  const head = await client.getBlockNumber({ cacheTime: 0 });
  let final = head - BigInt(config.confirmations) + 1n;
  if (config.finality) {
    const tagged = await client.getBlock({ blockTag: config.finality });
    if (tagged.number !== null && tagged.number < final) final = tagged.number;
  }
  return final;
}

/**
 * The receipt's confirmations (its own block included), or NOT_CONFIRMED below the configured
 * number or above the chain's finality tag (config.finality).
 */
export async function checkConfirmations(
  config: ChainConfig,
  receipt: TransactionReceipt,
): Promise<{ ok: true; confirmations: number } | ReceiptFailure<"NOT_CONFIRMED">> {
  // No cached head: a stale one would under-count confirmations right after new blocks.
  const head = await getPublicClient(config).getBlockNumber({ cacheTime: 0 });
  const confirmations = Number(head - receipt.blockNumber + 1n);
  if (confirmations < config.confirmations) {
    return {
      ok: false,
      code: "NOT_CONFIRMED",
      reason: `${confirmations} of ${config.confirmations} confirmations; try again shortly`,
      confirmations,
    };
  }
  if (config.finality && receipt.blockNumber > (await finalBlockNumber(config))) {
    return {
      ok: false,
      code: "NOT_CONFIRMED",
      reason: `the block is not yet ${config.finality} on chain ${config.chainId}; try again shortly`,
      confirmations,
    };
  }
  return { ok: true, confirmations };
}

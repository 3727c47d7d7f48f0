import {
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  isAddressEqual,
  parseEventLogs,
  type Address,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { usdcAbi } from "@/lib/chain/abi";
import { getPublicClient } from "@/lib/chain/clients";
import type { ChainConfig } from "@/lib/chain/config";

export type PackPaymentCode =
  | "TX_NOT_FOUND"
  | "TX_REVERTED"
  | "WRONG_CHAIN"
  | "WRONG_TOKEN"
  | "NO_TRANSFER"
  | "WRONG_RECIPIENT"
  | "WRONG_AMOUNT"
  | "WRONG_PAYER"
  | "NOT_CONFIRMED";

export type PackPaymentCheck =
  | { ok: true; payer: Address; amount: bigint; confirmations: number }
  | { ok: false; code: PackPaymentCode; reason: string; confirmations?: number };

/**
 * Checks on the configured chain that `txHash` paid for a pack: a successful receipt, the
 * configured chain, a Transfer log of the configured token contract to `treasury` of exactly
 * `expectedAmount` (6-decimal units) from one of `payers`, and the configured confirmations.
 * A plain transfer names no pack or agent, so the sender is what ties it to the agent: without
 * that, anyone who saw the hash on chain could start an attempt with someone else's payment.
 * The caller makes sure no attempt used the hash before (a unique constraint decides).
 * RPC failures throw (they say nothing about the transaction); every finding is a result.
 */
export async function verifyPackPayment(params: {
  config: ChainConfig;
  txHash: string;
  treasury: Address;
  expectedAmount: bigint;
  payers: Address[];
}): Promise<PackPaymentCheck> {
  const { config, treasury, expectedAmount, payers } = params;
  const txHash = params.txHash.toLowerCase() as Hex;
  const client = getPublicClient(config);

  const rpcChainId = await client.getChainId();
  if (rpcChainId !== config.chainId) {
    return { ok: false, code: "WRONG_CHAIN", reason: `the RPC serves chain ${rpcChainId}, payments are taken on chain ${config.chainId}` };
  }

  let receipt: TransactionReceipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: txHash });
  } catch (err) {
    if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
    const pending = await client.getTransaction({ hash: txHash }).catch((e: unknown) => {
      if (e instanceof TransactionNotFoundError) return null;
      throw e;
    });
    if (pending) return { ok: false, code: "NOT_CONFIRMED", reason: "the transaction is pending, not yet in a block; retry shortly", confirmations: 0 };
    return { ok: false, code: "TX_NOT_FOUND", reason: `no transaction ${txHash} on chain ${config.chainId}` };
  }

  if (receipt.status !== "success") {
    return { ok: false, code: "TX_REVERTED", reason: "the transaction reverted; it moved no funds" };
  }

  const tx = await client.getTransaction({ hash: txHash });
  if (tx.chainId !== undefined && tx.chainId !== config.chainId) {
    return { ok: false, code: "WRONG_CHAIN", reason: `the transaction was signed for chain ${tx.chainId}, not ${config.chainId}` };
  }

  // Logs, not the transaction's `to`: a payment may come through a smart wallet or a batch.
  const transfers = parseEventLogs({ abi: usdcAbi, eventName: "Transfer", logs: receipt.logs });
  const ofToken = transfers.filter((log) => isAddressEqual(log.address, config.tokenAddress));
  if (ofToken.length === 0) {
    return transfers.length > 0
      ? { ok: false, code: "WRONG_TOKEN", reason: `the transfer is of token ${transfers[0]!.address}, not USDC at ${config.tokenAddress}` }
      : { ok: false, code: "NO_TRANSFER", reason: "the transaction emitted no token Transfer" };
  }

  const toTreasury = ofToken.filter((log) => isAddressEqual(log.args.to, treasury));
  if (toTreasury.length === 0) {
    return { ok: false, code: "WRONG_RECIPIENT", reason: `the USDC went to ${ofToken[0]!.args.to}, not the pack treasury ${treasury}` };
  }

  const exact = toTreasury.filter((log) => log.args.value === expectedAmount);
  if (exact.length === 0) {
    return { ok: false, code: "WRONG_AMOUNT", reason: `the transfer is ${toTreasury[0]!.args.value} units, the pack costs exactly ${expectedAmount} units` };
  }

  const payment = exact.find((log) => payers.some((payer) => isAddressEqual(payer, log.args.from)));
  if (!payment) {
    return {
      ok: false,
      code: "WRONG_PAYER",
      reason:
        payers.length === 0
          ? "the agent has no walletAddress and no owner: set walletAddress with PATCH /v1/agents/:id and pay from it"
          : `the transfer came from ${exact[0]!.args.from}; pay from the agent's walletAddress or its owner's address (${payers.join(", ")})`,
    };
  }

  const head = await client.getBlockNumber({ cacheTime: 0 });
  const confirmations = Number(head - receipt.blockNumber + 1n);
  if (confirmations < config.confirmations) {
    return { ok: false, code: "NOT_CONFIRMED", reason: `${confirmations} of ${config.confirmations} confirmations; retry shortly`, confirmations };
  }

  return { ok: true, payer: payment.args.from, amount: payment.args.value, confirmations };
}

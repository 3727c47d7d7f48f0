import { isAddressEqual, parseEventLogs, recoverMessageAddress, type Address, type Hex } from "viem";
import { usdcAbi } from "@/lib/chain/abi";
import type { ChainConfig } from "@/lib/chain/config";
import { checkConfirmations, getSuccessfulTransaction } from "@/lib/chain/receipts";

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
 * Checks on the configured chain that `txHash` paid for a pack: a successful receipt on the
 * configured chain (lib/chain/receipts.ts, shared with escrow deposits), a Transfer log of the
 * configured token to `treasury` of exactly `expectedAmount` (6-decimal units) whose sender signed
 * `message` (EIP-191), and the configured confirmations.
 *
 * Why a signature: a plain transfer names no pack or agent, and a sender address proves nothing
 * by itself: anyone can type another person's address (or the escrow contract's, whose fee
 * transfers land on chain for all to see) as an agent's walletAddress or payout address and then
 * claim that address's transfers. The signature proves control of the sending address and names
 * the pack, the agent and the hash, so it cannot be lifted to another attempt. A contract sender
 * (the escrow, a smart wallet) cannot produce one: only keys sign (no ERC-1271 here, on purpose,
 * since a contract's isValidSignature may accept what its owner never meant).
 * The caller makes sure no attempt used the hash before (a unique constraint decides).
 * RPC failures throw (they say nothing about the transaction); every finding is a result.
 */
export async function verifyPackPayment(params: {
  config: ChainConfig;
  txHash: string;
  treasury: Address;
  expectedAmount: bigint;
  message: string;
  signature: Hex;
}): Promise<PackPaymentCheck> {
  const { config, treasury, expectedAmount } = params;
  const mined = await getSuccessfulTransaction(config, params.txHash);
  if (!mined.ok) return mined;
  const { receipt } = mined;

  // Logs, not the transaction's `to`: a payment may come through a smart wallet or a batch.
  const transfers = parseEventLogs({ abi: usdcAbi, eventName: "Transfer", logs: receipt.logs });
  const ofToken = transfers.filter((log) => isAddressEqual(log.address, config.tokenAddress));
  if (ofToken.length === 0) {
    return transfers.length > 0
      ? {
          ok: false,
          code: "WRONG_TOKEN",
          reason: `the transfer is of token ${transfers[0]!.address}, not USDC at ${config.tokenAddress}`,
        }
      : { ok: false, code: "NO_TRANSFER", reason: "the transaction emitted no token Transfer" };
  }

  const toTreasury = ofToken.filter((log) => isAddressEqual(log.args.to, treasury));
  if (toTreasury.length === 0) {
    return {
      ok: false,
      code: "WRONG_RECIPIENT",
      reason: `the USDC went to ${ofToken[0]!.args.to}, not the pack treasury ${treasury}`,
    };
  }

  const exact = toTreasury.filter((log) => log.args.value === expectedAmount);
  if (exact.length === 0) {
    return {
      ok: false,
      code: "WRONG_AMOUNT",
      reason: `the transfer is ${toTreasury[0]!.args.value} units, the pack costs exactly ${expectedAmount} units`,
    };
  }

  let signer: Address | null = null;
  try {
    signer = await recoverMessageAddress({ message: params.message, signature: params.signature });
  } catch {
    // A malformed signature (bad v, point not on the curve) proves nothing.
  }
  const payment = signer ? exact.find((log) => isAddressEqual(log.args.from, signer)) : undefined;
  if (!payment) {
    return {
      ok: false,
      code: "WRONG_PAYER",
      reason:
        `the signature is not by the address that sent the transfer (${exact[0]!.args.from}): sign the payment message ` +
        "for this pack, agent and transaction with the key of the sending address (a contract cannot sign, so its transfers never pay)",
    };
  }

  const confirmed = await checkConfirmations(config, receipt);
  if (!confirmed.ok) return confirmed;

  return { ok: true, payer: payment.args.from, amount: payment.args.value, confirmations: confirmed.confirmations };
}

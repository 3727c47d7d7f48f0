import { privateKeyToAccount } from "viem/accounts";
import type { Address, Hex } from "viem";
import type { ChainConfig } from "@/lib/chain/config";
import { formatUsdc, parseUsdc, splitFee } from "@/lib/chain/units";
import type { RewardKind } from "@/lib/api/schemas/rewards";

/** Gross reward per kind, in USDC. The net paid is gross less the escrow contract's fee. */
export const GROSS_USDC: Record<RewardKind, string> = { THREAD: "0.1", REPLY: "0.05", REFERRAL: "0.2" };

/** The review thresholds: a body shorter than this (in characters) is declined. */
export const MIN_CHARS = { THREAD: 400, REPLY: 200 } as const;

/** Fee and net of a kind, computed as the contract does: fee = gross * feeBps / 10000 (rounded down). */
export function amountsOf(kind: RewardKind, feeBps: number) {
  const gross = parseUsdc(GROSS_USDC[kind]);
  const { fee, net } = splitFee(gross, feeBps);
  return { grossUsdc: formatUsdc(gross), feeUsdc: formatUsdc(fee), netUsdc: formatUsdc(net) };
}

/** Rewards are paid from slots on the chain and escrow they were earned under. */
export function chainKeyOf(chain: ChainConfig | null): string {
  return chain ? `${chain.chainId}:${chain.escrowAddress.toLowerCase()}` : "none";
}

/**
 * The rewards wallet (REWARDS_PRIVATE_KEY, else the operator's key): it funds reward slots, and it
 * is the managed wallet, where rewards go for owners without a payout address and what
 * withdrawals are sent from; the ledger says which part of its balance belongs to which owner.
 * Keeping it apart from the operator key keeps the reward budget out of the escrow operator's hands.
 */
export function rewardsKey(chain: ChainConfig): Hex {
  return chain.rewardsPrivateKey ?? chain.operatorPrivateKey;
}

export function managedWalletAddress(chain: ChainConfig | null): Address | null {
  return chain ? privateKeyToAccount(rewardsKey(chain)).address : null;
}

export function explorerTxUrl(chain: ChainConfig | null, txHash: string | null): string | null {
  if (!chain?.explorerUrl || !txHash) return null;
  return `${chain.explorerUrl.replace(/\/$/, "")}/tx/${txHash}`;
}

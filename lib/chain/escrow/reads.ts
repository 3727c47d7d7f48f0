import { isAddressEqual, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ESCROW_STATES, escrowAbi, usdcAbi, type EscrowState } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import { normalizeEscrowJobId } from "../escrow-id";

// Reading the escrow contract and the token: a deposit slot, claimable credits, balances, and
// whether a deployment fits the service's configuration.

/** One (job id, payer) slot of the escrow. */
export interface EscrowRecord {
  payer: Address;
  amount: bigint;
  state: EscrowState;
  /** Block of the release or refund; 0n while not settled. */
  settledBlock: bigint;
}

/** `payer`'s slot of a job's escrow (state NONE when that payer never deposited for it). */
export async function getEscrow(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
}): Promise<EscrowRecord> {
  const { config, payer } = params;
  const [amount, state, settledBlock] = await getPublicClient(config).readContract({
    address: config.escrowAddress,
    abi: escrowAbi,
    functionName: "getEscrow",
    args: [normalizeEscrowJobId(params.escrowJobId), payer],
  });
  return { payer, amount, state: ESCROW_STATES[state] ?? "NONE", settledBlock: BigInt(settledBlock) };
}

/** The block a part (0-based) of `payer`'s slot settled in; 0n while it is unsettled. */
export async function partSettledBlock(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  part: number;
}): Promise<bigint> {
  const [settledBlock] = await getPublicClient(params.config).readContract({
    address: params.config.escrowAddress,
    abi: escrowAbi,
    functionName: "getPart",
    args: [normalizeEscrowJobId(params.escrowJobId), params.payer, BigInt(params.part)],
  });
  return BigInt(settledBlock);
}

/**
 * What `payer`'s slot still holds after the parts (milestones) settled from it: the deposit less
 * the settled parts while FUNDED, 0 once the slot is settled.
 */
export async function remainingInSlot(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
}): Promise<bigint> {
  const [, remaining] = await getPublicClient(params.config).readContract({
    address: params.config.escrowAddress,
    abi: escrowAbi,
    functionName: "getPart",
    args: [normalizeEscrowJobId(params.escrowJobId), params.payer, 0n],
  });
  return remaining;
}

/** Payouts the token refused (e.g. a blacklisted address), waiting for `account` to claim. */
export async function claimableOf(params: { config: ChainConfig; account: Address }): Promise<bigint> {
  return getPublicClient(params.config).readContract({
    address: params.config.escrowAddress,
    abi: escrowAbi,
    functionName: "claimable",
    args: [params.account],
  });
}

export async function erc20BalanceOf(params: {
  config: ChainConfig;
  address: Address;
  token?: Address;
}): Promise<bigint> {
  return getPublicClient(params.config).readContract({
    address: params.token ?? params.config.tokenAddress,
    abi: usdcAbi,
    functionName: "balanceOf",
    args: [params.address],
  });
}

/**
 * Problems with a configuration against what is deployed (empty when it fits): the RPC's chain,
 * code at the escrow address, its token, fee and operator, and that the contract has the
 * per-payer deposit surface the service settles with. Meant for deploy scripts and health checks.
 */
export async function checkEscrowDeployment(config: ChainConfig): Promise<string[]> {
  const client = getPublicClient(config);
  const problems: string[] = [];
  const chainId = await client.getChainId();
  if (chainId !== config.chainId) return [`RPC ${config.rpcUrl} serves chain ${chainId}, expected ${config.chainId}`];
  const code = await client.getCode({ address: config.escrowAddress });
  if (!code || code === "0x") return [`no contract at the escrow address ${config.escrowAddress}`];
  const read = <F extends "token" | "feeBps" | "operator">(functionName: F) =>
    client.readContract({ address: config.escrowAddress, abi: escrowAbi, functionName });
  const [token, feeBps, operator] = await Promise.all([read("token"), read("feeBps"), read("operator")]);
  if (!isAddressEqual(token, config.tokenAddress))
    problems.push(`escrow token is ${token}, configured ${config.tokenAddress}`);
  if (feeBps !== config.feeBps) problems.push(`escrow feeBps is ${feeBps}, configured ${config.feeBps}`);
  const operatorAddress = privateKeyToAccount(config.operatorPrivateKey).address;
  if (!isAddressEqual(operator, operatorAddress))
    problems.push(`escrow operator is ${operator}, the configured key is ${operatorAddress}`);
  // An escrow of the earlier one-slot-per-job surface answers getEscrow(bytes32) only, so this
  // read reverts there: the service would register deposits it could never settle.
  try {
    await getEscrow({ config, escrowJobId: `0x${"00".repeat(31)}01`, payer: operatorAddress });
  } catch {
    problems.push(
      `escrow at ${config.escrowAddress} has no per-payer getEscrow(bytes32,address): redeploy the current contracts/Escrow.sol`,
    );
  }
  if (config.treasuryAddress && isAddressEqual(config.treasuryAddress, config.escrowAddress)) {
    problems.push("the pack treasury must not be the escrow contract");
  }
  return problems;
}

/** Everything the contract keeps for payouts the token refused (the sum of `claimable`). */
export async function totalClaimableOf(config: ChainConfig): Promise<bigint> {
  return getPublicClient(config).readContract({
    address: config.escrowAddress,
    abi: escrowAbi,
    functionName: "totalClaimable",
  });
}

/** Fees of releases the contract holds until the operator's withdrawFees() sends them to the fee recipient. */
export async function feesAccruedOf(config: ChainConfig): Promise<bigint> {
  return getPublicClient(config).readContract({
    address: config.escrowAddress,
    abi: escrowAbi,
    functionName: "feesAccrued",
  });
}

/** The contract's immutable fee recipient (the treasury its withdrawFees() pays). */
export async function feeRecipientOf(config: ChainConfig): Promise<Address> {
  return getPublicClient(config).readContract({
    address: config.escrowAddress,
    abi: escrowAbi,
    functionName: "feeRecipient",
  });
}

import { isAddressEqual, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ESCROW_STATES, escrowAbi, escrowV2Abi, usdcAbi, type EscrowState } from "../abi";
import { getPublicClient } from "../clients";
import type { ChainConfig } from "../config";
import { normalizeEscrowJobId } from "../escrow-id";
import { escrowContractOf, type EscrowVersion } from "./contracts";

// Reading the escrow contract and the token: a deposit slot, claimable credits, balances, and
// whether a deployment fits the service's configuration.

/** One (job id, payer) slot of the escrow. */
export interface EscrowRecord {
  payer: Address;
  amount: bigint;
  state: EscrowState;
  /** Block of the release or refund; 0n while not settled. */
  settledBlock: bigint;
  /** EscrowV2 only: when anyone may return what the slot holds to the payer (unix seconds). */
  expiresAt?: bigint;
  /** EscrowV2 only: the agent the payer assigned (the zero address until then). */
  agent?: Address;
}

/**
 * `payer`'s slot of a job's escrow (state NONE when that payer never deposited for it), in the
 * contract of `version` (the first escrow unless told: a job's slot is in jobs.escrow_version's).
 */
export async function getEscrow(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  version?: EscrowVersion | null;
}): Promise<EscrowRecord> {
  const { config, payer } = params;
  const jobId = normalizeEscrowJobId(params.escrowJobId);
  if (params.version === 2) return getEscrowV2({ config, escrowJobId: jobId, payer });
  const [amount, state, settledBlock] = await getPublicClient(config).readContract({
    address: config.escrowAddress,
    abi: escrowAbi,
    functionName: "getEscrow",
    args: [jobId, payer],
  });
  return { payer, amount, state: ESCROW_STATES[state] ?? "NONE", settledBlock: BigInt(settledBlock) };
}

/** A version 2 slot, whole: its getEscrow beyond the fields every version's record has. */
export interface EscrowV2Record extends EscrowRecord {
  expiresAt: bigint;
  /** The zero address until the payer assigned one. */
  agent: Address;
  feeBps: number;
  partsSettled: bigint;
  /** The nonce the next signed MoveAgent must carry. */
  moveNonce: bigint;
}

/**
 * `payer`'s slot of a job in EscrowV2. Its getEscrow answers `(state, amount, agent, expiresAt,
 * feeBps, partsSettled, settledBlock, moveNonce)`: the state first, unlike version 1's `(amount,
 * state, settledBlock)`.
 */
export async function getEscrowV2(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
}): Promise<EscrowV2Record> {
  const { config, payer } = params;
  const [state, amount, agent, expiresAt, feeBps, partsSettled, settledBlock, moveNonce] = await getPublicClient(
    config,
  ).readContract({
    address: escrowContractOf(config, 2).address,
    abi: escrowV2Abi,
    functionName: "getEscrow",
    args: [normalizeEscrowJobId(params.escrowJobId), payer],
  });
  return {
    payer,
    amount,
    state: ESCROW_STATES[state] ?? "NONE",
    settledBlock: BigInt(settledBlock),
    expiresAt: BigInt(expiresAt),
    agent,
    feeBps: Number(feeBps),
    partsSettled,
    moveNonce,
  };
}

/** The block a part (0-based) of `payer`'s slot settled in; 0n while it is unsettled. */
export async function partSettledBlock(params: {
  config: ChainConfig;
  escrowJobId: string;
  payer: Address;
  part: number;
  version?: EscrowVersion | null;
}): Promise<bigint> {
  // getPart answers (settledBlock, remaining) in both versions.
  const [settledBlock] = await getPublicClient(params.config).readContract({
    address: escrowContractOf(params.config, params.version ?? 1).address,
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
  version?: EscrowVersion | null;
}): Promise<bigint> {
  // getPart answers (settledBlock, remaining) in both versions.
  const [, remaining] = await getPublicClient(params.config).readContract({
    address: escrowContractOf(params.config, params.version ?? 1).address,
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
 * per-payer deposit surface the service settles with; and EscrowV2 when configured
 * (checkEscrowV2Deployment). Meant for deploy scripts and health checks.
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
  if (config.escrowV2Address) problems.push(...(await checkEscrowV2Deployment(config, config.escrowV2Address)));
  return problems;
}

/** The EIP-712 domain EscrowV2's signatures (Assign, Approve, MoveAgent) are made in: docs/escrow-v2.md. */
export const ESCROW_V2_DOMAIN = { name: "AgentWorkEscrow", version: "2" } as const;

/**
 * EscrowV2 beside the first escrow: code at its address; the configured token, operator and fee;
 * the first escrow's fee recipient (the one the service knows: payout addresses are refused when
 * they are it, payable-address.ts); and the EIP-712 domain wallets will sign in (name
 * "AgentWorkEscrow", version "2", this chain, this address), read with ERC-5267's eip712Domain().
 */
async function checkEscrowV2Deployment(config: ChainConfig, address: Address): Promise<string[]> {
  const client = getPublicClient(config);
  const code = await client.getCode({ address });
  if (!code || code === "0x") return [`no contract at the escrow v2 address ${address}`];
  const read = <F extends "token" | "feeBps" | "operator" | "feeRecipient" | "eip712Domain">(functionName: F) =>
    client.readContract({ address, abi: escrowV2Abi, functionName });
  // A contract without one of these (the first escrow's address by mistake has no eip712Domain) reverts.
  const answers = await Promise.all([
    read("token"),
    read("feeBps"),
    read("operator"),
    read("feeRecipient"),
    read("eip712Domain"),
  ]).catch(() => null);
  if (!answers)
    return [`the contract at the escrow v2 address ${address} does not answer as EscrowV2 (contracts/EscrowV2.sol)`];
  const [token, feeBps, operator, feeRecipient, domain] = answers;
  const problems: string[] = [];
  if (!isAddressEqual(token, config.tokenAddress))
    problems.push(`escrow v2 token is ${token}, configured ${config.tokenAddress}`);
  if (feeBps !== config.feeBps) problems.push(`escrow v2 feeBps is ${feeBps}, configured ${config.feeBps}`);
  const operatorAddress = privateKeyToAccount(config.operatorPrivateKey).address;
  if (!isAddressEqual(operator, operatorAddress))
    problems.push(`escrow v2 operator is ${operator}, the configured key is ${operatorAddress}`);
  const firstFeeRecipient = await feeRecipientOf(config);
  if (!isAddressEqual(feeRecipient, firstFeeRecipient))
    problems.push(`escrow v2 fee recipient is ${feeRecipient}, the first escrow's is ${firstFeeRecipient}`);
  const [, name, version, chainId, verifyingContract] = domain;
  const expected = `"${ESCROW_V2_DOMAIN.name}" version "${ESCROW_V2_DOMAIN.version}" on chain ${config.chainId} at ${address}`;
  if (
    name !== ESCROW_V2_DOMAIN.name ||
    version !== ESCROW_V2_DOMAIN.version ||
    chainId !== BigInt(config.chainId) ||
    !isAddressEqual(verifyingContract, address)
  )
    problems.push(
      `escrow v2 EIP-712 domain is "${name}" version "${version}" on chain ${chainId} at ${verifyingContract}, expected ${expected}`,
    );
  if (config.treasuryAddress && isAddressEqual(config.treasuryAddress, address)) {
    problems.push("the pack treasury must not be the escrow v2 contract");
  }
  return problems;
}

/** Everything the contract keeps for payouts the token refused (the sum of `claimable`). */
export async function totalClaimableOf(config: ChainConfig, version: EscrowVersion = 1): Promise<bigint> {
  // Both versions name it alike (totalClaimable(): uint256).
  return getPublicClient(config).readContract({
    address: escrowContractOf(config, version).address,
    abi: escrowAbi,
    functionName: "totalClaimable",
  });
}

/** Fees of releases the contract holds until the operator's withdrawFees() sends them to the fee recipient. */
export async function feesAccruedOf(config: ChainConfig, version: EscrowVersion = 1): Promise<bigint> {
  return getPublicClient(config).readContract({
    address: escrowContractOf(config, version).address,
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
